"""A JSONField that encodes with orjson.

A play writes the game's snapshot (every hand, pile and the board) and its events: orjson
encodes a snapshot in a fifth of the time json.dumps takes (benchmarks/overrides.py). The
stored JSON means the same either way; anything orjson would write otherwise (a key that is
not a string, an integer wider than 64 bits) goes to Django's own code, so what is stored is
a JSONField's (tests/games/test_fields.py). One difference is left: a float NaN or infinity,
which Django writes as NaN and both databases refuse, orjson writes as null; our fields hold
no floats. Reading stays Django's: orjson would read an integer wider than 64 bits as a
float, and the search for one that guarded it cost more than json.loads saved.
"""

from __future__ import annotations

from typing import Any

import orjson
from django.db import models
from django.db.backends.base.base import BaseDatabaseWrapper


class FastJSONField(models.JSONField):
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
