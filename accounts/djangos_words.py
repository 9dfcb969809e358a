"""Words of Django's own forms that our pages show (the password reset form's "Email") and that
Django's catalogue for one of our languages leaves in English (its Ukrainian "Email"). Marked
here, makemessages keeps them in our catalogues, which come before Django's (LOCALE_PATHS);
tests/dragonheart_site/test_i18n.py asks those pages in every language."""

from __future__ import annotations

from django.utils.translation import gettext_noop

RETRANSLATED = (gettext_noop("Email"),)
