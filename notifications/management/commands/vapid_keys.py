"""``manage.py vapid_keys``: a new VAPID key pair for Web Push, as lines for an env file."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from notifications import push


class Command(BaseCommand):
    help = "Print a new VAPID key pair (and a subject to edit) as lines for the environment."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--subject", default="mailto:admin@example.com", help="A mailto: or https: URL to reach you."
        )

    def handle(self, *args: Any, **options: Any) -> None:
        subject = options["subject"]
        if not subject.startswith(("mailto:", "https:")):
            raise CommandError("The subject must be a mailto: or https: URL.")
        for name, value in {**push.make_vapid_keys(), "VAPID_SUBJECT": subject}.items():
            self.stdout.write(f"{name}={value}")
