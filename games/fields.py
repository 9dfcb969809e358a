"""A JSONField that encodes and decodes with orjson.

A play writes the game's snapshot (every hand, pile and the board) and its events, and every
read of a game decodes the snapshot: with the standard library's json that was 4 to 5% of
the CPU of opening a game or playing. The stored JSON means the same either way; anything
orjson would read or write otherwise (an integer wider than 64 bits, a key that is not a
string) goes to Django's own code, so what is stored and read back is a JSONField's
(tests/games/test_fields.py). One difference is left: a float NaN or infinity, which
Django writes as NaN and both databases refuse, orjson writes as null; our fields hold no
floats.
"""

from __future__ import annotations

import re
from typing import Any

import orjson
from django.db import models
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.models.fields.json import KeyTransform

# orjson reads an integer wider than 64 bits as a float, losing digits; json.loads keeps it.
# Any run of 19 digits (in a number or a string) sends the text to json.loads.
_LONG_NUMBER = re.compile(r"[0-9]{19}")


class FastJSONField(models.JSONField):
    def from_db_value(self, value: Any, expression: Any, connection: BaseDatabaseWrapper) -> Any:
        if (
            self.decoder is None
            and isinstance(value, str)
            and not isinstance(expression, KeyTransform)
            and not _LONG_NUMBER.search(value)
        ):
            try:
                return orjson.loads(value)
            except orjson.JSONDecodeError:
                pass  # Django's json.loads decides: it reads NaN and wide integers
        return super().from_db_value(value, expression, connection)

    def get_db_prep_value(self, value: Any, connection: BaseDatabaseWrapper, prepared: bool = False) -> Any:
        if not prepared:
            value = self.get_prep_value(value)
        if self.encoder is None:
            try:
                encoded = orjson.dumps(value)
            except orjson.JSONEncodeError:
                pass  # Django's json.dumps decides, error included
            else:
                if connection.vendor == "postgresql":
                    from psycopg.types.json import Jsonb

                    # The value is encoded already: psycopg is given bytes to pass on.
                    return Jsonb(value, dumps=lambda _: encoded)
                return encoded.decode()
        return connection.ops.adapt_json_value(value, self.encoder)
