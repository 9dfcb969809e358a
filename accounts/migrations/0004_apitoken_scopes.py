# Scoped API tokens (issue 27). The tokens made before scopes existed could do everything: the
# field's default, applied to each existing row, gives them all three scopes, so no client
# that holds one loses anything.

from django.db import migrations, models

import accounts.scopes


class Migration(migrations.Migration):
    dependencies = [("accounts", "0003_existing_addresses_confirmed")]

    operations = [
        migrations.AddField(
            model_name="apitoken",
            name="scopes",
            field=models.JSONField(
                default=accounts.scopes.all_scopes, help_text="Of read, play and challenge."
            ),
        ),
    ]
