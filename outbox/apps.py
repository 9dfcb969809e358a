from django.apps import AppConfig


class OutboxConfig(AppConfig):
    name = "outbox"
    verbose_name = "Outbox"

    def ready(self) -> None:
        from accounts.signals import confirmation_requested
        from core.live import hub
        from outbox import services

        # Where there is no NOTIFY (SQLite), the streams' listener polls the accounts' events.
        hub.watch("outbox_accountevent", "user_id", "u")

        confirmation_requested.connect(services.confirmation_note, dispatch_uid="outbox.confirmation_note")
