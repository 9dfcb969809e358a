"""Players who had an address before confirmation links existed were already receiving game
emails: their addresses count as confirmed (a new address of theirs starts over)."""

from django.db import migrations
from django.utils import timezone


def confirm_existing(apps, schema_editor):  # type: ignore[no-untyped-def]
    User = apps.get_model("auth", "User")
    EmailStatus = apps.get_model("accounts", "EmailStatus")
    now = timezone.now()
    EmailStatus.objects.bulk_create(
        [
            EmailStatus(user_id=user.pk, address=user.email, confirmed_at=now)
            for user in User.objects.exclude(email="")
        ],
        ignore_conflicts=True,
    )


class Migration(migrations.Migration):
    dependencies = [("accounts", "0002_email_status")]

    operations = [migrations.RunPython(confirm_existing, migrations.RunPython.noop)]
