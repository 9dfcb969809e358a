"""Request bodies on every API route and every method its view answers: one over the limit gets
the API's JSON 413 before any of it is parsed, a malformed one (not JSON, not UTF-8, broken,
nested past the decoder, not an object) a JSON 400 or 415, and none of them writes anything.
Whatever the answer, the body is read to its end first, so that a client still sending never
writes into a closed connection (tests/api/test_bodies_over_http.py shows it under gunicorn)."""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from typing import Any

import pytest
from django.conf import global_settings, settings
from django.core.handlers.wsgi import WSGIHandler
from django.urls import URLPattern, URLResolver, get_resolver
from rest_framework.test import APIClient

from core import middleware
from tests.api.conftest import SCHEMA
from tests.security.test_authorization_matrix import API as MATRIX
from tests.security.test_authorization_matrix import CAST, LEGAL
from tests.support.world import PASSWORD, World, build_world, changed_tables, snapshot

LIMIT = settings.REQUEST_BODY_MAX_BYTES
FIVE_MB = 5 * 1024 * 1024


def _padded(size: int) -> bytes:
    """A well-formed JSON object of exactly ``size`` bytes."""
    head, tail = b'{"cards": ["', b'"], "expected_version": 1}'
    return head + b"a" * (size - len(head) - len(tail)) + tail


# kind: (body, content type, status, code)
MALFORMED: dict[str, tuple[bytes, str, int, str]] = {
    "broken JSON": (b'{"cards": ["a23"', "application/json", 400, "parse_error"),
    "not UTF-8": ('{"cards": ["é"]}'.encode("latin-1"), "application/json", 400, "parse_error"),
    "a charset that is no text": (b"{}", "application/json; charset=bz2_codec", 400, "parse_error"),
    "nested past the decoder": (b"[" * 5000 + b"]" * 5000, "application/json", 400, "parse_error"),
    "an array": (b'["a23"]', "application/json", 400, "invalid"),
    "a string": (b'"a23"', "application/json", 400, "invalid"),
    "null": (b"null", "application/json", 400, "invalid"),
    "a form": (
        b"cards=a23&expected_version=1",
        "application/x-www-form-urlencoded",
        415,
        "unsupported_media_type",
    ),
    "text": (b'{"cards": ["a23"]}', "text/plain", 415, "unsupported_media_type"),
    "no content type": (b'{"cards": ["a23"]}', "", 415, "unsupported_media_type"),
    "one byte over the limit": (_padded(LIMIT + 1), "application/json", 413, "body_too_large"),
    "5 MB": (_padded(FIVE_MB), "application/json", 413, "body_too_large"),
}


def _api_routes(patterns: list[Any] | None = None, prefix: str = "") -> dict[str, Any]:
    """Every route under /api/: its name and its view."""
    found: dict[str, Any] = {}
    for pattern in get_resolver().url_patterns if patterns is None else patterns:
        path = prefix + str(pattern.pattern)
        if isinstance(pattern, URLResolver):
            found |= _api_routes(pattern.url_patterns, path)
        elif isinstance(pattern, URLPattern) and path.startswith("api/"):
            assert pattern.name, f"{path}: every API route has a name, which the tests call it by"
            found[pattern.name] = pattern.callback
    return found


def _operations() -> list[tuple[str, str]]:
    """(route, method) for every method the view of every API route answers."""
    return [
        (name, method.upper())
        for name, view in sorted(_api_routes().items())
        for method in view.cls.http_method_names
        if hasattr(view.cls, method)
    ]


def _row(route: str, method: str) -> Any:
    """The authorisation matrix's row for this call (for OPTIONS, any row of the route): its
    URL names things that exist, and its cells say who may do it."""
    rows = [row for row in MATRIX if row.route == route]
    return next((row for row in rows if row.method == method), rows[0])


@pytest.fixture
def world(db) -> World:
    return build_world()


def _caller(world: World, route: str, method: str) -> tuple[str, APIClient, Any, int | None]:
    """The URL, a client, a good body and what that call answers (None: as without a body), for
    someone whose call would be accepted and write if it writes at all: a refusal then comes
    from the body alone."""
    row = _row(route, method)
    actor, cell = next(
        ((who, cell) for who, cell in zip(CAST, row.cells, strict=True) if cell.endswith("+")),
        ("alice", row.cells[0]),
    )
    body, status = (row.body, int(cell.rstrip("+"))) if row.method == method else (None, None)
    if body == LEGAL:
        body = world.legal_play()
    return row.url.format(**world.places()), world.api(None if actor == "anon" else actor), body, status


def _answer(response: Any) -> tuple[int, str | None]:
    assert response["Content-Type"] == "application/json", response.content[:200]
    body = json.loads(response.content)
    assert isinstance(body["code"], str)
    assert isinstance(body["detail"], str)
    assert body["detail"]
    return response.status_code, body["code"]


def test_every_api_route_has_a_row_to_call_it_by():
    assert {route for route, _ in _operations()} <= {row.route for row in MATRIX}
    assert len(_operations()) > len(_api_routes())  # OPTIONS and more, not one method each


@pytest.mark.parametrize(("route", "method"), _operations())
def test_every_api_route_answers_a_bad_body_with_a_json_error_and_writes_nothing(world, route, method):
    url, client, good_body, good_status = _caller(world, route, method)
    if good_status is None:
        good_status = client.generic(method, url).status_code
    before = snapshot()

    answers = {}
    for kind, (body, content_type, _, _) in MALFORMED.items():
        response = client.generic(method, url, body, content_type=content_type)  # type: ignore[arg-type]
        answers[kind] = _answer(response)

    assert answers == {kind: (status, code) for kind, (_, _, status, code) in MALFORMED.items()}
    assert changed_tables(before) == set()
    # The same call with a good body (an empty object where the call takes none) is answered
    # as the authorisation matrix says: the refusals above came from the bodies alone.
    good = client.generic(method, url, json.dumps(good_body or {}), content_type="application/json")
    assert good.status_code == good_status, good.content[:300]


def test_a_body_over_the_limit_is_refused_before_authentication(world):
    response = APIClient().post(
        f"/api/games/{world.active.pk}/plays/", _padded(LIMIT + 1), content_type="application/json"
    )

    assert _answer(response) == (413, "body_too_large")
    assert str(LIMIT) in response.json()["detail"]
    assert response["X-Frame-Options"] == "DENY"  # the site's headers, as on every answer
    assert response["X-Content-Type-Options"] == "nosniff"


def test_a_body_without_a_length_is_refused(world):
    """WSGI gives Django no way to read a chunked body: it would be taken as none at all."""
    response = world.api("alice").generic(
        "POST", f"/api/games/{world.active.pk}/plays/", b"", HTTP_TRANSFER_ENCODING="chunked"
    )

    assert _answer(response) == (411, "length_required")


def test_the_limit_is_well_below_djangos_and_fits_the_largest_legitimate_bodies(world):
    """Each body as large as its fields allow, pretty-printed and every character escaped: a
    client that writes JSON any way it likes stays far below the limit."""
    assert LIMIT * 10 <= global_settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    longest = "\U0001f409" * 200  # a dragon: twelve bytes once escaped as a surrogate pair
    largest = {
        "/api/users/": {
            "username": "d" * 30,
            "password": longest,
            "email": "d" * 64 + "@" + "e" * 60 + ".org",
        },
        "/api/tokens/": {"username": "alice", "password": PASSWORD, "name": longest[:100]},
        "/api/games/": {
            "opponent": "bot:strong",
            "rules": {
                "preset": "official",
                "first_player": "random",
                "match_first_player": "loser_starts",
                "deck_end_mode": "bsw_next_turn",
                "dragon_requires_stone": False,
                "dragon_loss_return": "always_one",
                "sumof_tiebreak": "game_wins",
                "deck_profile": "dwarf_6x1_4x2",
                "open_scores": True,
            },
            "series": {"kind": "sumof", "target": 3},
            "private": False,
            "days_per_turn": None,
        },
        f"/api/games/{world.active.pk}/plays/": world.legal_play(),
    }
    for url, body in largest.items():
        payload = json.dumps(body, indent=4, ensure_ascii=True)
        response = world.api("alice").generic("POST", url, payload, content_type="application/json")
        assert response.status_code == 201, (url, response.content[:300])


def test_every_operation_documents_the_body_errors():
    for path, operations in SCHEMA.raw_schema["paths"].items():
        for method, operation in operations.items():
            for status in ("400", "411", "413", "415"):
                content = operation["responses"][status]["content"]["application/json"]
                assert content["schema"] == {"$ref": "#/components/schemas/Error"}, (method, path, status)


# --- Read to the end before answering ------------------------------------------------------------


def _through_wsgi(method: str, path: str, body: bytes, **environ: str) -> tuple[str, bytes, io.BytesIO]:
    """One request through the WSGI application as a server makes it, with the body on a stream
    that tells how much of it was read."""
    stream = io.BytesIO(body)
    statuses: list[str] = []

    def start_response(
        status: str, headers: list[tuple[str, str]], exc_info: Any = None
    ) -> Callable[[bytes], object]:
        statuses.append(status)
        return lambda data: None  # the body comes back from the call, not through write()

    response = WSGIHandler()(
        {
            "REQUEST_METHOD": method,
            "PATH_INFO": path,
            "SERVER_NAME": "testserver",
            "SERVER_PORT": "80",
            "wsgi.url_scheme": "http",
            "wsgi.input": stream,
            "CONTENT_LENGTH": str(len(body)),
            "CONTENT_TYPE": "application/json",
            **environ,
        },
        start_response,
    )
    content = b"".join(response)
    response.close()
    return statuses[0], content, stream


@pytest.mark.parametrize(
    ("path", "size", "status"),
    [
        ("/api/games/abcdefabcdef/plays/", FIVE_MB, "413"),  # refused for its size
        ("/api/games/", LIMIT, "401"),  # refused before its body is looked at
        ("/api/no-such-thing/", LIMIT, "404"),
    ],
)
def test_the_body_is_read_to_its_end_before_the_answer(db, path, size, status):
    answer, content, stream = _through_wsgi("POST", path, _padded(size))

    assert answer.startswith(status)
    assert json.loads(content)["code"]
    assert stream.tell() == size


def test_a_body_past_what_is_worth_reading_is_answered_without_being_read(db):
    """A client cannot hold a worker by sending without end: past the drain limit the answer
    goes out at once, and the server closes the connection on the rest."""
    size = middleware.DRAIN_MAX_BYTES + 1
    answer, content, stream = _through_wsgi("POST", "/api/games/abcdefabcdef/plays/", _padded(size))

    assert answer.startswith("413")
    assert json.loads(content)["code"] == "body_too_large"
    assert stream.tell() == 0
