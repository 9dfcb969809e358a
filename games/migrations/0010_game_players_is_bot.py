# Whether each seat's player is a bot account (issue 27), copied when the seat is filled. No
# account was a bot before accounts' BotAccount existed, so every existing game is False.

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0009_notes_messages_mutes"),
    ]

    operations = [
        migrations.AddField(
            model_name="game",
            name="player_a_is_bot",
            field=models.BooleanField(default=False),
        ),
        migrations.AddField(
            model_name="game",
            name="player_b_is_bot",
            field=models.BooleanField(default=False),
        ),
    ]
