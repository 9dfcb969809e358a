"""The Notification model moves to the outbox app, its table and data staying where they are:
this app forgets it (state only); outbox's 0001 adopts the same table."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [("notifications", "0002_outbox_notify")]

    operations = [
        migrations.SeparateDatabaseAndState(state_operations=[migrations.DeleteModel(name="Notification")])
    ]
