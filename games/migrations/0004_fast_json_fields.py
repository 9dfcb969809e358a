# This migration once switched Game.state and GameEvent.payload, in the migration state only, to
# games.fields.FastJSONField, a JSONField that encoded with orjson. That field is gone: the two
# columns are Django's JSONField again, as they were before, and never changed in the database
# (jsonb on PostgreSQL, text on SQLite). Its operations went with the field so that no migration
# imports it (Django's docs, "Historical models": copy or drop the references); the migration
# stays, empty, because later ones depend on it and databases have it recorded as applied.

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0003_gameevent_game_index_in_unique_key"),
    ]

    operations = []
