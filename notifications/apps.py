from django.apps import AppConfig


class NotificationsConfig(AppConfig):
    name = "notifications"

    def ready(self) -> None:
        from notifications import (
            checks,  # noqa: F401  (registers the system checks)
            tasks,  # noqa: F401  (registers the tasks the outbox queues by name)
            webhooks,
        )

        webhooks.connect()  # the provider's inbound webhook hands replies to notifications.inbound
