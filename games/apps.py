from django.apps import AppConfig
from django.db.backends.signals import connection_created


class GamesConfig(AppConfig):
    name = "games"

    def ready(self) -> None:
        from dragonheart_site.db import use_compiled_timestamps

        connection_created.connect(use_compiled_timestamps, dispatch_uid="compiled-timestamps")
