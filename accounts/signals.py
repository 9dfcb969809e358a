"""What accounts tells the floors above without importing them."""

from __future__ import annotations

from django.dispatch import Signal

# Sent with ``user`` inside the transaction that asks for a new confirmation link
# (services.confirmation_request). The outbox, a floor above, writes the email's row in that
# transaction, so the link goes out like every other email: once, and after a broker outage.
confirmation_requested = Signal()

# Sent with ``user`` and ``language`` (the page's, or the API request's, at sign-up) once a new
# player's row is written, before the address's confirmation is asked for: the floors above
# record what they keep per player (notifications: the language of the emails, the
# confirmation's first).
signed_up = Signal()
