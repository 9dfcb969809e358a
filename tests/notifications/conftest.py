"""The push service of the tests' own and the site's VAPID keys, for every test here."""

from tests.notifications.push_service import push_service, vapid

__all__ = ["push_service", "vapid"]
