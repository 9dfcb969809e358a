"""A system check for the one-statement write (statements.py): it builds its SQL from the
models' concrete fields and prepares each value as the ORM would, but it is not the ORM's
save, so it would silently bypass a database default, a generated field or a save signal on
a model it writes. Adding one of those to these models fails ``manage.py check`` (and every
test run) instead."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.core import checks
from django.db.models import GeneratedField, Model
from django.db.models.fields import NOT_PROVIDED
from django.db.models.signals import post_save, pre_save


def written_models() -> tuple[type[Model], ...]:
    """The models event_log.append writes: the game row, its events and its companions."""
    from games.models import Game, GameEvent, IdempotentPlay, PlayMessage
    from outbox.models import Notification

    return (Game, GameEvent, IdempotentPlay, Notification, PlayMessage)


def refusals(models: Iterable[type[Model]]) -> list[checks.CheckMessage]:
    errors: list[checks.CheckMessage] = []
    for model in models:
        for field in model._meta.concrete_fields:
            if (
                isinstance(field, GeneratedField)
                or getattr(field, "db_default", NOT_PROVIDED) is not NOT_PROVIDED
            ):
                errors.append(
                    checks.Error(
                        f"{model.__name__}.{field.name} is computed by the database, which the "
                        "one-statement write of games/event_log/statements.py does not read back.",
                        hint="Compute the value in Python, or write this model through the ORM.",
                        obj=field,
                        id="games.E001",
                    )
                )
        for signal in (pre_save, post_save):
            if signal.has_listeners(model):
                errors.append(
                    checks.Error(
                        f"{model.__name__} has a {'pre' if signal is pre_save else 'post'}_save receiver, "
                        "which the one-statement write of games/event_log/statements.py never sends.",
                        hint="Do the work in the service that appends, not in a signal.",
                        obj=model,
                        id="games.E002",
                    )
                )
    return errors


@checks.register(checks.Tags.models)
def check_written_models(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    return refusals(written_models())
