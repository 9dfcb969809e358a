"""On PostgreSQL a trigger refuses UPDATE and DELETE on game events: the log is append-only
even for code (or a person in psql) that bypasses the application. TRUNCATE, which test
flushes use, fires no row trigger. SQLite gets no trigger: its test flush deletes rows."""

from django.db import migrations

CREATE = """
CREATE OR REPLACE FUNCTION games_gameevent_append_only() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION 'games_gameevent is append-only: % refused', TG_OP
        USING ERRCODE = 'restrict_violation';
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER games_gameevent_append_only
    BEFORE UPDATE OR DELETE ON games_gameevent
    FOR EACH ROW EXECUTE FUNCTION games_gameevent_append_only();
"""
DROP = """
DROP TRIGGER IF EXISTS games_gameevent_append_only ON games_gameevent;
DROP FUNCTION IF EXISTS games_gameevent_append_only();
"""


def _on_postgresql(sql: str):  # type: ignore[no-untyped-def]
    def run(apps, schema_editor):  # type: ignore[no-untyped-def]
        if schema_editor.connection.vendor == "postgresql":
            schema_editor.execute(sql, params=None)  # None: the SQL has literal % signs

    return run


class Migration(migrations.Migration):
    dependencies = [("games", "0001_initial")]

    operations = [migrations.RunPython(_on_postgresql(CREATE), _on_postgresql(DROP))]
