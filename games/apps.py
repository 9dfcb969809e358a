from django.apps import AppConfig


class GamesConfig(AppConfig):
    name = "games"

    def ready(self) -> None:
        # Registers the tasks, which services queue by name (services -> tasks -> services
        # would be an import cycle).
        from games import tasks  # noqa: F401
        from games.event_log import checks  # noqa: F401  (registers the check of the written models)
