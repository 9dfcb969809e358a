"""Schemathesis fuzzes every operation of the OpenAPI schema, in-process through the WSGI
app, on the test database: no 5xx, and every response (status, content type, headers, body)
as the schema documents it. Path parameters mostly name alice's own games and tokens, so the
calls reach real game states rather than 404s."""

from __future__ import annotations

import zlib
from typing import Any

import hypothesis
from django.db import transaction
from schemathesis import checks
from schemathesis.core.parameters import ParameterLocation

from tests.api.conftest import PASSWORD, SCHEMA

# Examples per operation: about 40 s for the whole schema on this 2-core machine.
MAX_EXAMPLES = 40
# Codes of a request the serializers or parsers refuse; the others are the rules' answers
# (a finished game, a weak password, your own challenge), which no schema can foresee.
MALFORMED = {"invalid", "parse_error", "invalid_idempotency_key"}


def schema_valid_input_is_well_formed(ctx: Any, response: Any, case: Any) -> None:
    """Stands in for schemathesis' positive_data_acceptance, which would count a rule's 400 as
    a schema lie: a request the schema allows may be refused, but never as malformed."""
    if case.meta is not None and case.meta.generation.mode.is_positive and response.status_code == 400:
        code = response.json().get("code")
        assert code not in MALFORMED, f"a schema-valid request was refused as malformed: {response.text}"


def _aim(case: Any, world: dict[str, Any]) -> bool:
    """Points the case at alice's world; returns whether to call anonymously.

    The choices derive from the generated case itself, so they spread evenly over the cases
    and an example replays (and shrinks) the same way. A path parameter is replaced by one of
    alice's games or tokens (or kept) only if generated valid: an invalid one stays invalid.
    Now and then a play is a legal one and a token request gives alice's own credentials."""
    spread = zlib.crc32(repr((case.path_parameters, case.query, case.body, sorted(case.headers))).encode())
    path = case.meta.components.get(ParameterLocation.PATH) if case.meta else None
    if path is not None and path.mode.is_positive:
        for name, ids in (("game_id", world["games"]), ("token_id", world["tokens"])):
            if name in case.path_parameters and spread % 6 < len(ids):
                case.path_parameters[name] = list(ids.values())[spread % 6]
    body_is_valid = case.meta is None or case.meta.generation.mode.is_positive
    pick = spread // 6 % 12
    if case.operation.label == "POST /api/games/{game_id}/plays/" and pick < len(world["legal_plays"]):
        case.body = world["legal_plays"][pick]
    elif case.operation.label == "POST /api/tokens/" and body_is_valid and pick < 4:
        case.body = {**case.body, "username": "alice", "password": PASSWORD}
    return spread // 72 % 4 == 0


@hypothesis.settings(
    max_examples=MAX_EXAMPLES,
    derandomize=True,
    database=None,
    deadline=None,
    # The fixtures are built once per operation; each example's writes are rolled back below.
    suppress_health_check=[hypothesis.HealthCheck.function_scoped_fixture],
)
@SCHEMA.parametrize()
def test_every_operation_answers_as_documented(case, world):
    anonymous = _aim(case, world)
    if anonymous:
        case.headers.pop("Authorization", None)
    # Each example starts from the same world.
    with transaction.atomic():
        case.call_and_validate(
            headers={} if anonymous else world["headers"],
            additional_checks=[schema_valid_input_is_well_formed],
            excluded_checks=[checks.positive_data_acceptance],
        )
        transaction.set_rollback(True)
