from django.apps import AppConfig


class OutboxConfig(AppConfig):
    name = "outbox"
    verbose_name = "Outbox"

    def ready(self) -> None:
        from accounts.signals import confirmation_requested
        from outbox import services

        confirmation_requested.connect(services.confirmation_note, dispatch_uid="outbox.confirmation_note")
