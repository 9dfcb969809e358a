"""The database's clock, for the times that several hosts compare (claims, holds, due rows).

Each host's own clock drifts: a worker whose clock runs fast would take another's fresh claim
as stale, one that runs slow would leave a due row waiting. Times written and compared by
these expressions are all read on the database server, whichever host sends the statement.
"""

from __future__ import annotations

from datetime import timedelta

from django.db.models import DateTimeField, Expression, ExpressionWrapper, Value
from django.db.models.functions import Now


def db_now() -> Expression:
    return Now()


def db_ago(delta: timedelta) -> Expression:
    """The database's now minus ``delta``."""
    return ExpressionWrapper(Now() - Value(delta), output_field=DateTimeField())


def db_in(delta: timedelta) -> Expression:
    """The database's now plus ``delta``."""
    return ExpressionWrapper(Now() + Value(delta), output_field=DateTimeField())
