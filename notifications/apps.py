from django.apps import AppConfig


class NotificationsConfig(AppConfig):
    name = "notifications"

    def ready(self) -> None:
        from accounts.signals import signed_up
        from notifications import (
            checks,  # noqa: F401  (registers the system checks)
            preferences,
            tasks,  # noqa: F401  (registers the tasks the outbox queues by name)
            webhooks,
        )

        signed_up.connect(preferences.language_at_sign_up, dispatch_uid="notifications.language_at_sign_up")

        webhooks.connect()  # the provider's inbound webhook hands replies to notifications.inbound
