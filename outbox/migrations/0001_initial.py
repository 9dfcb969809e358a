"""The Notification model, adopted from the notifications app with its table and data
(state only: notifications 0001 created the table, 0002 its NOTIFY trigger, 0003 let go)."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        ("games", "0004_fast_json_fields"),
        ("notifications", "0003_notification_moves_to_outbox"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="Notification",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                            ),
                        ),
                        (
                            "kind",
                            models.CharField(
                                choices=[
                                    ("your_turn", "your turn"),
                                    ("reminder", "reminder"),
                                    ("challenge", "challenge received"),
                                    ("accepted", "challenge accepted"),
                                    ("game_over", "game over"),
                                    ("digest", "daily digest"),
                                ],
                                max_length=16,
                            ),
                        ),
                        (
                            "key",
                            models.CharField(
                                help_text="What makes this fact unique, e.g. the game version.", max_length=64
                            ),
                        ),
                        ("created_at", models.DateTimeField(auto_now_add=True)),
                        ("claimed_at", models.DateTimeField(blank=True, null=True)),
                        ("sent_at", models.DateTimeField(blank=True, null=True)),
                        (
                            "skipped",
                            models.CharField(
                                blank=True, help_text="Why no email went out, if none did.", max_length=100
                            ),
                        ),
                        ("attempts", models.PositiveSmallIntegerField(default=0)),
                        ("subject", models.CharField(blank=True, max_length=200)),
                        ("last_error", models.TextField(blank=True)),
                        (
                            "game",
                            models.ForeignKey(
                                blank=True,
                                null=True,
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="+",
                                to="games.game",
                            ),
                        ),
                        (
                            "user",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="notifications",
                                to=settings.AUTH_USER_MODEL,
                            ),
                        ),
                    ],
                    options={
                        "db_table": "notifications_notification",
                        "indexes": [
                            models.Index(fields=["sent_at", "created_at"], name="notification_pending")
                        ],
                        "constraints": [
                            models.UniqueConstraint(fields=("user", "kind", "key"), name="notification_once")
                        ],
                    },
                ),
            ]
        )
    ]
