"""No GET changes a row. Every route of the site, asked with GET by each member of the cast and
by nobody, leaves every data table as it was and queues nothing for after its commit; and so do
the game page and its poll where a bot's move is overdue, and a finished game's end screen
asking for its review before any worker has written it: the bot's turn and the review are a
worker's (core/deferred.py), never a page's, so a link scanner, a prefetching browser or a
second tab changes nothing."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

from django.apps import apps
from django.utils import timezone

from accounts import services as account_services
from games import challenges, services
from games.models import Game, GameReview
from tests.security.test_authorization_matrix import API, CAST, PAGES
from tests.support.tables import play_first_legal, start
from tests.support.world import DATA_APPS, World, changed_tables, routes, snapshot

ROOT = Path(__file__).resolve().parents[2]
HTMX = {"HTTP_HX_REQUEST": "true"}


def _overdue_bot_game(world: World) -> Game:
    """alice against the bot, the bot to move and its delay long past; its task never ran
    (the test's transaction never commits)."""
    game = challenges.game_create(
        creator=world.users["alice"], opponent="bot:greedy", rules={"first_player": "b"}
    )
    Game.objects.filter(pk=game.pk).update(turn_started_at=timezone.now() - timedelta(hours=1))
    return Game.objects.get(pk=game.pk)


def _unreviewed_end(world: World) -> Game:
    """A game of a few turns that bob resigned, its review queued and not written yet."""
    game = start(world.users["alice"], world.users["bob"])
    for _ in range(4):
        play_first_legal(game)
    services.game_resign(game=game, user=world.users["bob"])
    assert not GameReview.objects.filter(game=game).exists()
    return Game.objects.get(pk=game.pk)


def _writes(world: World, capture: Any, urls: list[tuple[str, dict[str, Any]]]) -> list[str]:
    """Each URL asked with GET by each actor in turn (pages with a session, the API with a
    token): the tables an actor's requests changed, and the URLs that queued work for after
    their commit. (A snapshot is read once an actor: it costs more than most requests.)"""
    pages = {actor: world.browser(None if actor == "anon" else actor) for actor in CAST}  # signed in now
    found = []
    for actor in CAST:
        api = world.api(None if actor == "anon" else actor)
        before = snapshot()
        for url, headers in urls:
            with capture(execute=True) as callbacks:
                (api if url.startswith("/api/") else pages[actor]).get(url, **headers)
            if callbacks:
                found.append(f"{actor} {url} {headers}: {len(callbacks)} on-commit callbacks")
        if changed := changed_tables(before):
            found.append(f"{actor}'s requests changed {sorted(changed)}")
    return found


def test_no_route_of_the_site_writes_on_a_get(world, django_capture_on_commit_callbacks):
    urls = sorted({row.url.format(**world.places()) for row in API + PAGES})

    assert _writes(world, django_capture_on_commit_callbacks, [(url, {}) for url in urls]) == []
    assert {row.route for row in API + PAGES} >= {name for name in routes() if not name.startswith("admin:")}


def test_the_game_page_and_its_poll_leave_an_overdue_bots_turn_to_the_worker(
    world, django_capture_on_commit_callbacks
):
    game = _overdue_bot_game(world)
    urls = [
        (f"/games/{game.pk}/", {}),
        (f"/games/{game.pk}/", HTMX),
        (f"/games/{game.pk}/poll/?version={game.version}", HTMX),
        (f"/games/{game.pk}/poll/?version=0", HTMX),
        (f"/games/{game.pk}/history/", {}),
        (f"/api/games/{game.pk}/", {}),
        ("/?lobby=stale", HTMX),
    ]

    assert _writes(world, django_capture_on_commit_callbacks, urls) == []
    assert Game.objects.get(pk=game.pk).version == game.version


def test_a_finished_games_end_screen_leaves_its_review_to_the_worker(
    world, django_capture_on_commit_callbacks
):
    game = _unreviewed_end(world)
    urls = [
        (f"/games/{game.pk}/", {}),
        (f"/games/{game.pk}/", HTMX),  # the review section's own poll
        (f"/games/{game.pk}/poll/?version={game.version}", HTMX),
        (f"/games/{game.pk}/history/", {}),
        (f"/games/{game.pk}/history/?turn=2&better=1", {}),
        (f"/api/games/{game.pk}/record/", {}),
    ]

    assert _writes(world, django_capture_on_commit_callbacks, urls) == []
    assert not GameReview.objects.filter(game=game).exists()


def test_every_app_of_the_project_is_in_the_snapshot():
    project = {
        app.label
        for app in apps.get_app_configs()
        if Path(app.path).is_relative_to(ROOT) and not Path(app.path).is_relative_to(ROOT / ".venv")
    }
    with_tables = {label for label in project if any(apps.get_app_config(label).get_models())}

    assert {"accounts", "outbox", "ratings", "games", "notifications"} <= with_tables
    assert with_tables <= DATA_APPS


def test_the_snapshot_sees_the_writes_the_orm_sees(world):
    """The snapshot's plain SELECTs beside the ORM's reading of the same tables, around a
    resignation (events, the game, ratings, emails) and a new token."""

    def read_by_the_orm() -> dict[str, list[Any]]:
        return {
            model._meta.label: list(model._default_manager.order_by("pk").values_list())
            for model in apps.get_models()
            if model._meta.app_label in DATA_APPS
        }

    before, before_by_the_orm = snapshot(), read_by_the_orm()
    assert {label: len(rows) for label, rows in before.items()} == {
        label: len(rows) for label, rows in before_by_the_orm.items()
    }

    services.game_resign(game=world.active, user=world.users["bob"])
    account_services.token_create(user=world.users["charlie"], name="another")

    after_by_the_orm = read_by_the_orm()
    seen_by_the_orm = {label for label, rows in after_by_the_orm.items() if rows != before_by_the_orm[label]}
    assert {"games.GameEvent", "accounts.ApiToken"} <= seen_by_the_orm
    assert changed_tables(before) == seen_by_the_orm
