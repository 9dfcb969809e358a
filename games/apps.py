from django.apps import AppConfig


class GamesConfig(AppConfig):
    name = "games"

    def ready(self) -> None:
        # Registers the tasks, which services queue by name (services -> tasks -> services
        # would be an import cycle).
        from core.live import hub
        from games import tasks  # noqa: F401

        # Where there is no NOTIFY (SQLite), the game streams' listener polls the logs.
        hub.watch("games_gameevent", "game_id", "g")
        from games.event_log import checks  # noqa: F401  (registers the check of the written models)
