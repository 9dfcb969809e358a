"""Who may do what: every endpoint and page of the site, called by each member of the cast on
alice's things, with the status each must get and whether it may write.

The columns are always the same four people:
  alice    the owner: she created the games and the token named in the URL, and is to move
  bob      her opponent, seated in her games; acting on her token he is "another user's token"
  charlie  signed in but seated nowhere: a spectator, and another user's token as well
  anon     no credentials at all

A cell is a status; "+" after it means the request must write (and a refusal, a cell without
"+", must leave every row of every data table as it was). "login" is a 302 to the login page,
"signup" a 302 to the sign-up page. API clients authenticate with their own personal token,
pages with a session.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
from django.urls import resolve

from tests.support.world import PASSWORD, World, changed_tables, routes, snapshot

CAST = ("alice", "bob", "charlie", "anon")
LEGAL = "alice's first legal play"
NEW_USER = {"username": "dora", "password": PASSWORD}
# A browser's PushSubscription (a real P-256 point; nothing is ever pushed to it here).
PUSH_SUBSCRIPTION = {
    "endpoint": "https://push.example.com/send/matrix",
    "keys": {
        "p256dh": "BD7Xoo7GSO3OXVt-JS9rKq-7RINRFKJLPKqPcQ9kmTvCVxGjTNySKQgLY58Jl3_rfKkezOFkm_6orYXHKyBq3n4",
        "auth": "IbcsC3rcXHtKUP_LkNkt1g",
    },
}


@dataclass(frozen=True)
class Row:
    route: str
    method: str
    url: str
    cells: tuple[str, str, str, str]  # alice, bob, charlie, anon
    body: Any = None

    def __str__(self) -> str:
        return f"{self.method} {self.url}"


def same(cell: str) -> tuple[str, str, str, str]:
    return (cell, cell, cell, cell)


def signed_in(cell: str, anon: str) -> tuple[str, str, str, str]:
    return (cell, cell, cell, anon)


# fmt: off
API = [
    Row("api-health", "GET", "/api/health/", same("200")),
    Row("api-ready", "GET", "/api/health/ready/", same("200")),
    Row("api-schema", "GET", "/api/schema/", same("200")),
    Row("api-docs", "GET", "/api/docs/", same("200")),
    Row("api-users", "POST", "/api/users/", same("201+"), NEW_USER),
    Row("api-tokens", "GET", "/api/tokens/", signed_in("200", "401")),
    # The password is the credential here: whoever knows it gets a token, whatever else they carry.
    Row("api-tokens", "POST", "/api/tokens/", same("201+"), {"username": "alice", "password": PASSWORD}),
    Row("api-tokens", "POST", "/api/tokens/", same("401"), {"username": "alice", "password": "guess"}),
    Row("api-token", "DELETE", "/api/tokens/{alice_token}/", ("204+", "404", "404", "401")),
    Row("api-games", "GET", "/api/games/", signed_in("200", "401")),
    Row("api-games", "POST", "/api/games/", signed_in("201+", "401"), {"opponent": None}),
    Row("api-game", "GET", "/api/games/{active}/", signed_in("200", "401")),
    Row("api-game", "GET", "/api/games/no-such-game/", signed_in("404", "401")),
    Row("api-plays", "POST", "/api/games/{active}/plays/", ("201+", "403", "403", "401"), LEGAL),
    Row("api-plays", "POST", "/api/games/no-such-game/plays/", signed_in("404", "401"), LEGAL),
    Row("api-events", "GET", "/api/games/{active}/events/", signed_in("200", "401")),
    Row("api-events", "GET", "/api/games/no-such-game/events/", signed_in("404", "401")),
    Row("api-record", "GET", "/api/games/{active}/record/", signed_in("409", "401")),
    Row("api-record", "GET", "/api/games/{finished}/record/", signed_in("200", "401")),
    Row("api-accept", "POST", "/api/games/{challenge}/accept/", ("403", "200+", "403", "401")),
    Row("api-decline", "POST", "/api/games/{challenge}/decline/", ("403", "200+", "403", "401")),
    Row("api-cancel", "POST", "/api/games/{challenge}/cancel/", ("200+", "403", "403", "401")),
    Row("api-resign", "POST", "/api/games/{active}/resign/", ("200+", "200+", "403", "401")),
    Row("api-rematch", "POST", "/api/games/{finished}/rematch/", ("200+", "200+", "403", "401")),
    # Notes are each player's own: a spectator is told there is no such thing.
    Row("api-notes", "GET", "/api/games/{active}/notes/", ("200", "200", "404", "401")),
    Row("api-notes", "PUT", "/api/games/{active}/notes/", ("200+", "200+", "404", "401"), {"text": "x"}),
    # Anyone signed in may mute anyone but themselves; unmuting someone not muted writes nothing.
    Row("api-mute", "POST", "/api/players/bob/mute/", ("200+", "400", "200+", "401")),
    Row("api-mute", "DELETE", "/api/players/bob/mute/", ("200", "400", "200", "401")),
    Row("api-mute", "POST", "/api/players/nobody/mute/", signed_in("404", "401")),
    # Players and the leaderboard are public, as their pages are.
    Row("api-player", "GET", "/api/players/alice/", same("200")),
    Row("api-player", "GET", "/api/players/nobody/", same("404")),
    Row("api-leaderboard", "GET", "/api/leaderboard/", same("200")),
    Row("api-bots-leaderboard", "GET", "/api/bots/leaderboard/", same("200")),
    Row("api-bots-online", "GET", "/api/bots/online/", same("200")),
    # Streams: anyone signed in opens their own account's stream and any game's, as they may GET
    # the game. The test client's server answers one request at a time, which refuses a stream
    # (503 stream_elsewhere) once the caller is known; what each reads over a real connection is
    # tests/api/test_streams.py's.
    Row("api-stream", "GET", "/api/stream/", signed_in("503", "401")),
    Row("api-game-stream", "GET", "/api/games/{active}/stream/", signed_in("503", "401")),
    # Only an account seated in no game (charlie) may become a bot; the others have played.
    Row("api-account-bot", "POST", "/api/account/bot/", ("409", "409", "200+", "401")),
    # Push: the public key is public; each account keeps and forgets only its own browsers.
    Row("api-push-key", "GET", "/api/push/key/", same("200")),
    Row("api-push-subscriptions", "POST", "/api/push/subscriptions/", signed_in("201+", "401"),
        PUSH_SUBSCRIPTION),
    Row("api-push-subscriptions", "POST", "/api/push/subscriptions/", signed_in("400", "401"),
        {**PUSH_SUBSCRIPTION, "endpoint": "https://10.0.0.1/push"}),
    Row("api-push-subscriptions", "DELETE", "/api/push/subscriptions/", signed_in("404", "401"),
        PUSH_SUBSCRIPTION),
    Row("api-account-notifications", "GET", "/api/account/notifications/", signed_in("200", "401")),
    Row("api-account-notifications", "PATCH", "/api/account/notifications/", signed_in("200+", "401"),
        {"turn": "push"}),
]

PAGES = [
    Row("home", "GET", "/", same("200")),
    # Without an account the lobby is the welcome page: a posted form creates nothing.
    Row("home", "POST", "/", ("302+", "302+", "302+", "200"), {"against": "open", "preset": "official"}),
    Row("signup", "GET", "/accounts/signup/", same("200")),
    Row("signup", "POST", "/accounts/signup/", same("302+"),
        {"username": "dora", "password1": PASSWORD, "password2": PASSWORD}),
    Row("login", "GET", "/accounts/login/", same("200")),
    Row("login", "POST", "/accounts/login/", same("200"), {"username": "alice", "password": "guess"}),
    Row("login", "POST", "/accounts/login/", same("302+"), {"username": "alice", "password": PASSWORD}),
    Row("logout", "POST", "/accounts/logout/", same("302")),
    Row("password_change", "GET", "/accounts/password_change/", signed_in("200", "login")),
    Row("password_change_done", "GET", "/accounts/password_change/done/", signed_in("200", "login")),
    Row("password_reset", "GET", "/accounts/password_reset/", same("200")),
    Row("password_reset", "POST", "/accounts/password_reset/", same("302"), {"email": "alice@example.com"}),
    Row("password_reset_done", "GET", "/accounts/password_reset/done/", same("200")),
    Row("password_reset_confirm", "GET", "/accounts/reset/MQ/not-a-token/", same("200")),
    Row("password_reset_complete", "GET", "/accounts/reset/done/", same("200")),
    Row("profile", "GET", "/accounts/profile/", signed_in("200", "login")),
    Row("profile", "POST", "/accounts/profile/", signed_in("302+", "login"),
        {"email_mode": "digest", "digest_hour": "7", "time_zone": "UTC", "language": "en"}),
    Row("token-create", "POST", "/accounts/tokens/", signed_in("302+", "login"), {"name": "bot"}),
    Row("token-revoke", "POST", "/accounts/tokens/{alice_token}/revoke/", ("302+", "302", "302", "login")),
    Row("vacation-start", "POST", "/accounts/vacation/", signed_in("302+", "login"), {"days": "3"}),
    Row("play-computer", "GET", "/play-computer/", signed_in("405", "login")),
    Row("play-computer", "POST", "/play-computer/", signed_in("302+", "login")),
    Row("invite", "GET", "/invite/{invite}/", signed_in("200", "signup")),
    # alice cannot take the seat of her own open challenge: the page says so.
    Row("invite", "POST", "/invite/{invite}/", ("200", "302+", "302+", "signup")),
    Row("unsubscribe", "GET", "/unsubscribe/{alice_unsubscribe}/", same("200")),
    # The signed link is the credential (one-click unsubscribe from a mail client).
    Row("unsubscribe", "POST", "/unsubscribe/{alice_unsubscribe}/", same("200+")),
    Row("unsubscribe", "POST", "/unsubscribe/forged:token/", same("400")),
    Row("game", "GET", "/games/{active}/", signed_in("200", "login")),
    Row("game", "GET", "/games/no-such-game/", signed_in("404", "login")),
    Row("game-poll", "GET", "/games/{active}/poll/?version=-1", signed_in("200", "login")),
    Row("game-play", "POST", "/games/{active}/play/", ("302+", "400", "400", "login"), LEGAL),
    Row("game-waiting", "GET", "/games/{challenge}/waiting/?status=challenge", signed_in("204", "login")),
    # The rules are for everyone; a game's options are no secret (anyone may watch it).
    # A play link is the credential of its reader (alice, to move) for one play, without a
    # session; a browser signed in as someone else is refused. Opening it never writes.
    Row("play-link", "GET", "/play/{alice_play_link}/", ("200", "403", "403", "200")),
    Row("play-link", "POST", "/play/{alice_play_link}/", ("200+", "403", "403", "200+")),
    Row("play-link", "POST", "/play/forged:link/", same("400")),
    # A confirmation link is the credential of its address; opening it never writes.
    Row("email-confirm", "GET", "/accounts/confirm/{alice_confirm}/", same("200")),
    Row("email-confirm", "POST", "/accounts/confirm/{alice_confirm}/", same("302+")),
    Row("email-confirm", "POST", "/accounts/confirm/forged:link/", same("400")),
    # Asking for a new link writes its email's outbox row (sent, or skipped once confirmed).
    Row("email-confirmation-send", "POST", "/accounts/confirm/", signed_in("302+", "login")),
    # A new address (each their own) needs the password too: it is written, with a new link's
    # outbox row; with a wrong password nothing is.
    Row("email-change", "POST", "/accounts/email/", signed_in("302+", "login"),
        {"email": "alice@example.org", "password": PASSWORD}),
    Row("email-change", "POST", "/accounts/email/", signed_in("302", "login"),
        {"email": "alice@example.org", "password": "guess"}),
    Row("player", "GET", "/players/alice/", same("200")),
    Row("player", "GET", "/players/nobody/", same("404")),
    Row("leaderboard", "GET", "/players/", same("200")),
    Row("bots", "GET", "/bots/", same("200")),
    Row("how-to-play", "GET", "/how-to-play/", same("200")),
    Row("how-to-play", "GET", "/how-to-play/?game={active}", same("200")),
    Row("game-history", "GET", "/games/{active}/history/", signed_in("200", "login")),
    # The end screen's review, polled until a worker writes it: anyone may watch a game.
    Row("game-review", "GET", "/games/{finished}/review/", signed_in("204", "login")),
    # Refused actions come back to the game page with a message, having changed nothing.
    Row("game-accept", "POST", "/games/{challenge}/accept/", ("302", "302+", "302", "login")),
    Row("game-decline", "POST", "/games/{challenge}/decline/", ("302", "302+", "302", "login")),
    Row("game-cancel", "POST", "/games/{challenge}/cancel/", ("302+", "302", "302", "login")),
    Row("game-resign", "POST", "/games/{active}/resign/", ("302+", "302+", "302", "login")),
    Row("game-rematch", "POST", "/games/{finished}/rematch/", ("302+", "302+", "302", "login")),
    Row("game-notes", "POST", "/games/{active}/notes/", ("302+", "302+", "404", "login"), {"text": "x"}),
    Row("game-mute", "POST", "/games/{active}/mute/", ("302+", "302+", "404", "login"), {"mute": "1"}),
    Row("set_language", "POST", "/i18n/setlang/", same("302"), {"language": "de", "next": "/"}),
    # The words of the game page's script: public, like every page's words.
    Row("javascript-catalog", "GET", "/jsi18n/", same("200")),
    # The installable app's files: the same for everyone, signed in or not (games/views/app.py).
    Row("manifest", "GET", "/manifest.webmanifest", same("200")),
    Row("service-worker", "GET", "/sw.js", same("200")),
    Row("offline", "GET", "/offline/", same("200")),
    # No player is staff: the admin sends everyone to its own login.
    Row("admin:index", "GET", "/admin/", same("302")),
]
# fmt: on

# Routes without a row of their own, and why.
NOT_IN_THE_MATRIX = {
    "admin:*": "Django's admin: every view requires a staff session (the admin:index row shows the "
    "redirect); its pages are not the site's.",
}


def _cells(rows: list[Row]) -> list[Any]:
    return [
        pytest.param(row, actor, cell, id=f"{row} as {actor}")
        for row in rows
        for actor, cell in zip(CAST, row.cells, strict=True)
    ]


def _body(world: World, row: Row, page: bool) -> Any:
    if row.body != LEGAL:
        return row.body
    return world.legal_form() if page else world.legal_play()


def _check(response: Any, cell: str, before: dict[str, Any]) -> None:
    expected, writes = cell.rstrip("+"), cell.endswith("+")
    where = {"login": "/accounts/login/?next=", "signup": "/accounts/signup/?next="}.get(expected)
    if where is not None:
        assert response.status_code == 302
        assert response["Location"].startswith(where)
    else:
        assert response.status_code == int(expected), getattr(response, "content", b"")[:300]
    changed = changed_tables(before)
    assert bool(changed) is writes, f"wrote {changed} on a refusal" if not writes else "wrote nothing"


@pytest.mark.parametrize(("row", "actor", "cell"), _cells(API))
def test_the_api_answers_each_actor_as_the_matrix_says(world, row, actor, cell):
    client = world.api(None if actor == "anon" else actor)
    before = snapshot()

    response = getattr(client, row.method.lower())(
        row.url.format(**world.places()), _body(world, row, page=False), format="json"
    )

    _check(response, cell, before)


@pytest.mark.parametrize(("row", "actor", "cell"), _cells(PAGES))
def test_the_pages_answer_each_actor_as_the_matrix_says(world, row, actor, cell):
    client = world.browser(None if actor == "anon" else actor)
    before = snapshot()

    response = getattr(client, row.method.lower())(
        row.url.format(**world.places()), _body(world, row, page=True)
    )

    _check(response, cell, before)


def test_every_route_of_the_project_has_a_row():
    rows = {row.route for row in API + PAGES}
    exempt = {prefix.removesuffix("*") for prefix in NOT_IN_THE_MATRIX}
    names = {name for name in routes() if not name.startswith(tuple(exempt))}

    assert names - rows == set(), "a route without a row in the authorisation matrix"
    assert rows - names - {"admin:index"} == set(), "a row for a route that does not exist"


@pytest.mark.parametrize("row", API + PAGES, ids=str)
def test_each_row_calls_the_route_it_names(world, row):
    path = row.url.format(**world.places()).split("?")[0]
    assert resolve(path).view_name == row.route


# --- The documented order of the API's refusals (issue 3) -------------------------------------

STALE = -1  # stands for a version the game has already passed
# fmt: off
ORDER = [
    # who,      game,          version, cards,   status, code
    ("anon",    "no-such-game", None,   "legal", 401, "not_authenticated"),
    ("charlie", "no-such-game", None,   "legal", 404, "not_found"),
    ("charlie", "active",       STALE,  "legal", 403, "not_a_player"),   # not seated before stale
    ("bob",     "active",       STALE,  "legal", 409, "stale_version"),  # stale before not your turn
    ("bob",     "active",       None,   "legal", 403, "not_your_turn"),
    ("alice",   "active",       STALE,  "z99",   409, "stale_version"),  # stale before illegal
    ("alice",   "active",       None,   "z99",   400, None),
    ("alice",   "active",       None,   "legal", 201, None),
]
# fmt: on


@pytest.mark.parametrize(("who", "game", "version", "cards", "status", "code"), ORDER)
def test_a_play_is_refused_in_the_documented_order(world, who, game, version, cards, status, code):
    body = world.legal_play()
    body["expected_version"] = body["expected_version"] - 1 if version == STALE else body["expected_version"]
    if cards != "legal":
        body["cards"] = [cards]
    game_id = world.places().get(game, game)
    before = snapshot()

    response = world.api(None if who == "anon" else who).post(
        f"/api/games/{game_id}/plays/", body, format="json"
    )

    assert response.status_code == status
    if code is not None:
        assert response.json()["code"] == code
    if status >= 400:
        assert set(response.json()) >= {"code", "detail"}
    assert bool(changed_tables(before)) is (status == 201)


def test_another_users_token_lists_only_its_own_tokens(world):
    listed = world.api("bob").get("/api/tokens/").json()

    assert [token["id"] for token in listed] == [world.token_ids["bob"]]


def test_a_page_ignores_an_api_token(world):
    client = world.browser(None, HTTP_AUTHORIZATION=f"Token {world.keys['alice']}")

    response = client.get(f"/games/{world.active.pk}/")

    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/")
