"""On PostgreSQL every outbox row announces itself with NOTIFY, which the database delivers
only when the inserting transaction commits, and never for one that rolls back. The outbox
relay (notifications/relay.py) listens and queues the deliveries, so that a play publishes
nothing to the broker itself. SQLite gets no trigger: without the relay, rows are queued on
commit by the code that writes them."""

from django.db import migrations

CREATE = """
CREATE OR REPLACE FUNCTION notifications_notification_announce() RETURNS trigger AS $$
BEGIN
    PERFORM pg_notify('notifications_outbox', NEW.id::text);
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER notifications_notification_announce
    AFTER INSERT ON notifications_notification
    FOR EACH ROW EXECUTE FUNCTION notifications_notification_announce();
"""
DROP = """
DROP TRIGGER IF EXISTS notifications_notification_announce ON notifications_notification;
DROP FUNCTION IF EXISTS notifications_notification_announce();
"""


def _on_postgresql(sql: str):  # type: ignore[no-untyped-def]
    def run(apps, schema_editor):  # type: ignore[no-untyped-def]
        if schema_editor.connection.vendor == "postgresql":
            schema_editor.execute(sql, params=None)

    return run


class Migration(migrations.Migration):
    dependencies = [("notifications", "0001_initial")]

    operations = [migrations.RunPython(_on_postgresql(CREATE), _on_postgresql(DROP))]
