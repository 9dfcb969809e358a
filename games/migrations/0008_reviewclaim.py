import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0007_reviews"),
    ]

    operations = [
        migrations.CreateModel(
            name="ReviewClaim",
            fields=[
                (
                    "game",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        primary_key=True,
                        related_name="+",
                        serialize=False,
                        to="games.game",
                    ),
                ),
                ("claimed_at", models.DateTimeField()),
            ],
        ),
    ]
