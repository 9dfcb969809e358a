# The columns stay what they were (jsonb on PostgreSQL, text on SQLite): only the Python
# code that encodes and decodes them changes, so the database has nothing to do (SQLite would
# otherwise copy both tables to alter a column that does not change).

from django.db import migrations

import games.fields


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0003_gameevent_game_index_in_unique_key"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="game",
                    name="state",
                    field=games.fields.FastJSONField(
                        blank=True, help_text="Engine snapshot; holds hidden cards.", null=True
                    ),
                ),
                migrations.AlterField(
                    model_name="gameevent",
                    name="payload",
                    field=games.fields.FastJSONField(),
                ),
            ],
        ),
    ]
