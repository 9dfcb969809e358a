"""On PostgreSQL every event appended to a game's log announces its game with NOTIFY, which the
database delivers only when the appending transaction commits, to every process serving that
game's stream (core/live.py). SQLite gets no trigger: its streams poll the log."""

from django.db import migrations

CREATE = """
CREATE OR REPLACE FUNCTION games_gameevent_announce() RETURNS trigger AS $$
BEGIN
    PERFORM pg_notify('dragonheart_live', 'g' || NEW.game_id);
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER games_gameevent_announce
    AFTER INSERT ON games_gameevent
    FOR EACH ROW EXECUTE FUNCTION games_gameevent_announce();
"""
DROP = """
DROP TRIGGER IF EXISTS games_gameevent_announce ON games_gameevent;
DROP FUNCTION IF EXISTS games_gameevent_announce();
"""


def _on_postgresql(sql: str):  # type: ignore[no-untyped-def]
    def run(apps, schema_editor):  # type: ignore[no-untyped-def]
        if schema_editor.connection.vendor == "postgresql":
            schema_editor.execute(sql, params=None)

    return run


class Migration(migrations.Migration):
    dependencies = [("games", "0010_game_players_is_bot")]

    operations = [migrations.RunPython(_on_postgresql(CREATE), _on_postgresql(DROP))]
