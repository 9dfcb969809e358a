from __future__ import annotations

import signal
import threading
from typing import Any

from aiosmtpd.controller import Controller
from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from notifications.smtp import Handler


class Command(BaseCommand):
    help = "Receive replies to turn emails by SMTP (play by reply), for INBOUND_EMAIL_DOMAIN."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--host", default="127.0.0.1")
        parser.add_argument("--port", type=int, default=8025)

    def handle(self, *args: Any, host: str, port: int, **options: Any) -> None:
        if not settings.INBOUND_EMAIL_DOMAIN:
            raise CommandError("INBOUND_EMAIL_DOMAIN is not set: turn emails carry no reply address.")
        controller = Controller(Handler(), hostname=host, port=port)
        stopping = threading.Event()
        for signum in (signal.SIGTERM, signal.SIGINT):
            signal.signal(signum, lambda *_: stopping.set())
        controller.start()
        self.stdout.write(f"inbound SMTP on {host}:{port} for @{settings.INBOUND_EMAIL_DOMAIN}", ending="\n")
        self.stdout.flush()
        try:
            stopping.wait()
        finally:
            controller.stop()
