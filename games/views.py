"""Server-rendered pages: lobby, game, history, and the forms that act on games. Each view
validates a form and calls one service; what a viewer sees comes from presenters, built on
engine.visibility like the API."""

from __future__ import annotations

import copy
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.text import capfirst
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django_htmx.http import HttpResponseClientRefresh

from accounts import services as account_services
from accounts.presence import records_presence
from accounts.throttling import throttled_post
from accounts.users import signed_in
from core.errors import NotFound, ServiceError
from core.replicas import reads_may_lag, require_primary
from engine.cards import TYPES
from engine.state import State
from games import (
    challenges,
    event_log,
    guide,
    history,
    play_links,
    presenters,
    reviews,
    selectors,
    services,
    table,
    vacations,
)
from games.errors import StaleVersion
from games.forms import CreateGameForm, PlayForm
from games.models import Game

# A refusal of game_create that is about one field of the new-game form, shown beside it.
CREATE_ERROR_FIELDS = {
    "unknown_opponent": "username",
    "self_challenge": "username",
    "unknown_bot": "bot",
    "invalid_clock": "days_per_turn",
    "invalid_series": "target",
    "invalid_rating_range": "rating_min",
    "bot_not_rated": "rated",
}


@records_presence
def home(request: HttpRequest) -> HttpResponse:
    if not request.user.is_authenticated:
        return render(request, "welcome.html")
    if request.method == "GET" and "lobby" in request.GET:
        return _lobby_poll(request)
    form = CreateGameForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            game = challenges.game_create(creator=request.user, **form.service_arguments())
            return redirect("game", game_id=game.pk)
        except ServiceError as exc:
            form.add_error(CREATE_ERROR_FIELDS.get(exc.code), exc.detail)
    lists = selectors.lobby(signed_in(request))
    ratings = selectors.ratings_in(lists, signed_in(request))
    context = {
        "form": form,
        "lists": lists,
        "ratings": ratings,
        "my_rating": ratings[signed_in(request).pk],
        "lobby_version": selectors.lobby_version(signed_in(request)),
        "unconfirmed": bool(request.user.email) and not account_services.may_email(signed_in(request)),
    }
    return render(request, "home.html", context)


def _lobby_poll(request: HttpRequest) -> HttpResponse:
    """The lobby asks every few seconds with the fingerprint of what it shows: one query and
    no content while nothing changed; else the lists afresh, which htmx swaps in place (the
    new-game form, and whatever the player is typing in it, stays as it is)."""
    version = selectors.lobby_version(signed_in(request))
    if version == request.GET["lobby"]:
        return HttpResponse(status=204)
    lists = selectors.lobby(signed_in(request))
    ratings = selectors.ratings_in(lists, signed_in(request))
    context = {
        "lists": lists,
        "ratings": ratings,
        "my_rating": ratings[signed_in(request).pk],
        "lobby_version": version,
    }
    return render(request, "games/_lobby_live.html", context)


@require_http_methods(["GET", "POST"])
def invite(request: HttpRequest, token: str) -> HttpResponse:
    game = get_object_or_404(Game, invite_token=token)
    if not request.user.is_authenticated:
        return redirect(f"{reverse('signup')}?next={request.path}")
    error = None
    if request.method == "POST":
        try:
            challenges.game_accept(game=game, user=request.user)
            return redirect("game", game_id=game.pk)
        except ServiceError as exc:
            error = exc.detail
    return render(request, "games/invite.html", {"game": game, "error": error})


@require_GET
def how_to_play(request: HttpRequest) -> HttpResponse:
    """The rules in words and pictures, for the options of ``?game=ID`` or of the link."""
    rules = guide.rules_for(request.GET)
    context = {
        "rules": rules,
        "options": rules.options,
        "deck": guide.deck(rules.options),
        "deck_points": guide.deck_points(rules.options),
        "from_game": rules.game,
        "boxes": guide.chain(
            {**{kind: capfirst(history.type_name(kind)) for kind in TYPES}, "hold": _("Hold")}
        ),
        "arrows": guide.ARROWS,
    }
    return render(request, "how_to_play.html", context)


@records_presence
@login_required
@require_GET
def game_waiting(request: HttpRequest, game_id: str) -> HttpResponse:
    """The waiting page polls this while its challenge waits: one indexed read; 204 while the
    status holds, else the page reloads (into the game once accepted, or the news that the
    challenge was declined or cancelled)."""
    status = Game.objects.filter(pk=game_id).values_list("status", flat=True).first()
    if status is None:
        return HttpResponse(status=404)
    if status == request.GET.get("status"):
        return HttpResponse(status=204)
    return HttpResponseClientRefresh()


# Board layout, as on the printed board: each space beside the ones it takes from.
def _game_or_404(game_id: str) -> Game:
    game = selectors.game_by_id(game_id)
    if game is None:
        raise Http404
    return game


@records_presence
@login_required
@require_GET
def game_page(request: HttpRequest, game_id: str) -> HttpResponse:
    game = _game_or_404(game_id)
    if request.headers.get("HX-Request") and services.review_by_page() and reviews.review_due(game):
        reviews.game_review_once(game=game)  # the end screen's poll (services.review_by_page)
    return render(request, "games/game.html", table.table_context(game, signed_in(request)))


@records_presence
@login_required
@require_GET
def game_poll(request: HttpRequest, game_id: str) -> HttpResponse:
    """htmx polls this every few seconds: one indexed read; 204 while nothing changed, else ask
    the page to reload. In a bot game the poll is also the bot's clock when tasks run
    in-process: the page's play only hands the turn over (services.bot_turn_by_poll),
    and once the bot has "thought" for BOT_MOVE_DELAY_SECONDS the next poll plays its turn, so
    the player sees the result of their own play first and the bot's reply as its own step."""
    row = (
        Game.objects.filter(pk=game_id)
        .values_list("version", "bot", "to_move", "status", "turn_started_at")
        .first()
    )
    if row is None:
        return HttpResponse(status=404)
    version, bot, to_move, status, started = row
    if (
        bot
        and status == Game.Status.ACTIVE
        and to_move == services.BOT_SEAT
        and services.bot_turn_due_for_page(started)
    ):
        # Idempotent: of two polls at once, one plays and the other finds nothing to do.
        played = services.bot_play_turn(game_id=game_id)
    else:
        played = False
    if not played and str(version) == request.GET.get("version"):
        return HttpResponse(status=204)
    return HttpResponseClientRefresh()


@records_presence
@login_required
@require_POST
@throttled_post("plays")
def game_play(request: HttpRequest, game_id: str) -> HttpResponse:
    game = _game_or_404(game_id)
    cards = request.POST.getlist("cards")[:6]
    form = PlayForm(request.POST)
    stale = False
    if form.is_valid():
        try:
            services.game_play(
                game=game,
                user=signed_in(request),
                cards=cards,
                choice=form.cleaned_data["choice"] or None,
                expected_version=form.cleaned_data["expected_version"],
                idempotency_key=form.cleaned_data["idempotency_key"] or None,
                from_page=True,
            )
            return redirect("game", game_id=game.pk)
        except StaleVersion:
            # Sent from a page that was behind (another tab, the API, the bot): nothing is
            # played; the page shows the position as it now is and says so.
            stale = True
            error = _("The game moved on: here is the position now. Nothing was played; choose again.")
            game.refresh_from_db()
        except ServiceError as exc:
            error = exc.detail
            game.refresh_from_db()
    else:
        error = _("The play could not be read; reload the page and try again.")
    context = table.table_context(game, signed_in(request))
    context["play_error"] = error
    context["stale"] = stale
    return render(request, "games/game.html", context, status=409 if stale else 400)


def _act(service: Any, done: str) -> Any:
    @login_required
    @require_POST
    def view(request: HttpRequest, game_id: str) -> HttpResponse:
        game = get_object_or_404(Game, pk=game_id)
        try:
            result = service(game=game, user=request.user)
        except ServiceError as exc:
            messages.error(request, exc.detail)
            return redirect("game", game_id=game.pk)
        messages.success(request, DONE_MESSAGES[done])
        target = result.pk if isinstance(result, Game) else game.pk
        return redirect("game", game_id=target) if done != "declined" else redirect("home")

    return view


DONE_MESSAGES = {
    "accepted": gettext_lazy("The challenge is accepted."),
    "declined": gettext_lazy("The challenge is declined."),
    "cancelled": gettext_lazy("The challenge is cancelled."),
    "resigned": gettext_lazy("You resigned the game."),
    "rematch": gettext_lazy("A rematch is on."),
}
game_accept = _act(challenges.game_accept, "accepted")
game_decline = _act(challenges.game_decline, "declined")
game_cancel = _act(challenges.game_cancel, "cancelled")
game_resign = _act(services.game_resign, "resigned")
game_rematch = _act(challenges.game_rematch, "rematch")


@login_required
@require_GET
@reads_may_lag
def game_history(request: HttpRequest, game_id: str) -> HttpResponse:
    """One turn of the game (``?turn=N``, 0 the deal; the last by default), its events in words
    and the board after it, as the viewer may see it then; the whole log beside it. A finished
    game's history may come from the replica; a running game's is always the primary's."""
    game = get_object_or_404(Game, pk=game_id)
    if game.status != Game.Status.FINISHED:
        require_primary()
    rows = event_log.read_events(game)
    if not rows:
        return redirect("game", game_id=game.pk)
    log = [row.as_engine_event() for row in rows]
    seat = game.seat_of(signed_in(request))
    game_turns = history.turns_of(log)
    step = _history_turn(request, game_turns, seat)
    last = game_turns[-1].number
    live = step == last and game.status == Game.Status.ACTIVE
    # A past position has no clock: the deadline is the present turn's, so the panels of any
    # other step are drawn from a copy of the game without it (never saved).
    shown_game = game if live else _without_clock(game)
    state = history.state_at(log, game_turns[step].end)
    revealed = game.status == Game.Status.FINISHED
    judged = reviews.turn_reviews(game)  # empty until the game is over
    log_turns = _history_log(rows, game_turns, game, request.user, state.values)
    for entry in log_turns:
        entry["badge"] = reviews.mark_badge(judged.get(entry["number"]))
    opener = log[game_turns[step].start]  # the turn's play (the deal's start for step 0)
    # The cards this turn put down, marked on the board as the game page marks the latest
    # turn's; a history step is no moment for the capture animation.
    fresh = set(opener["cards"]) if opener["kind"] == "cards_played" else set()
    lines = log_turns[step]["lines"]
    row = judged.get(step) if step else None
    better = bool(request.GET.get("better")) and row is not None and bool(row.mark)
    if better and row is not None:
        # The board as the better play would have left it, told in the same words.
        state, events = reviews.better_position(log, game_turns[step].start, row)
        names = history.names_of(game)
        lines = [history.describe(dict(e), names, state.values) for e in events if e["kind"] != "turn_ended"]
        fresh = set(row.best_cards)
    view = presenters.state_view(shown_game, state, request.user, revealed=revealed)
    faces = presenters.faces(state.options.deck_profile)
    return render(
        request,
        "games/history.html",
        {
            "game": shown_game,
            "view": view,
            "spaces": table.spaces(view["board"]),
            "step": step,
            "last": last,
            "turns": log_turns,
            "current": log_turns[step],
            "lines": lines,
            "live": live,
            "seats": _history_seats(view, seat),
            "fresh": fresh,
            "flights": [],
            "me": seat,
            "opponent": {"a": "b", "b": "a"}.get(seat or ""),
            "note": reviews.turn_note(row, faces, state.values),
            "better": better,
            "review_pending": revealed and not judged and last > 0,
        },
    )


def _history_seats(view: dict[str, Any], me: str | None) -> dict[str, dict[str, Any]]:
    """The two seats in the order of the game page: the opponent above the board, the viewer
    below (a spectator sees seat b above, a below), each with the cards it may show now: the
    viewer's own hand, and every hand and draw pile once the game is over."""
    players = {p["seat"]: p for p in view["players"]}
    revealed = view["revealed"]

    def side(seat: str) -> dict[str, Any]:
        hand = revealed["hands"][seat] if revealed else view["hand"] if seat == me else None
        pile = revealed["piles"][seat] if revealed else None
        return {"player": players[seat], "own": seat == me, "hand": hand, "pile": pile}

    top = {"a": "b", "b": "a"}.get(me or "", "b")
    return {"top": side(top), "bottom": side(me or "a")}


def _history_turn(request: HttpRequest, turns: list[history.Turn], seat: str | None) -> int:
    """The turn asked for: ``?turn=N``; an old event link ``?step=N`` opens the turn holding
    that event; ``?since=1`` the first turn after the viewer's own last; else the last."""
    last = turns[-1].number
    try:
        if "turn" in request.GET:
            return min(max(int(request.GET["turn"]), 0), last)
        if "step" in request.GET:
            return history.turn_of_step(turns, int(request.GET["step"]))
    except ValueError:
        return last
    return history.first_unseen_turn(turns, seat) if request.GET.get("since") else last


def _without_clock(game: Game) -> Game:
    past = copy.copy(game)
    past.deadline = None
    return past


def _history_log(
    rows: list[Any], turns: list[history.Turn], game: Game, viewer: Any, values: dict[str, int]
) -> list[dict[str, Any]]:
    """Every turn with its events in words, as the viewer may see them. The end of a turn goes
    without saying (each turn is its own entry)."""
    names = history.names_of(game)
    shown = [presenters.event_view(row, game, viewer) for row in rows]
    return [
        {
            "number": turn.number,
            "who": names[turn.seat] if turn.seat else "",
            "lines": [
                history.describe(shown[i], names, values)
                for i in range(turn.start, turn.end)
                if shown[i]["kind"] != "turn_ended"
            ],
        }
        for turn in turns
    ]


@login_required
@require_POST
def vacation_start(request: HttpRequest) -> HttpResponse:
    try:
        days = int(request.POST.get("days", ""))
        vacations.vacation_start(user=signed_in(request), days=days)
        messages.success(request, _("Enjoy your vacation: your clocks stop until you are back."))
    except ValueError:
        messages.error(request, _("Give the number of days."))
    except ServiceError as exc:
        messages.error(request, exc.detail)
    return redirect("profile")


@require_http_methods(["GET", "POST"])
@throttled_post("plays", by_address=True)
def play_link(request: HttpRequest, token: str) -> HttpResponse:
    """A play from an email's link, without signing in: GET shows it on the board with a
    Confirm button (mail scanners open links; they must not play), POST plays it once."""
    try:
        link = play_links.read_link(token)
        play_links.check_viewer(link, request.user)
        game, user = _link_game(link)
    except ServiceError as exc:
        return _link_page(request, {"error": exc.detail}, status=403 if exc.kind == "forbidden" else 400)
    if request.method == "POST":
        return _play_from_link(request, link, game, user)
    if game.version != link.version or game.status != Game.Status.ACTIVE:
        return _link_page(request, {"game": game, "error": _link_over()}, status=409)
    state = event_log.load_state(game)
    try:
        cards, choice = link.play(state)
    except ServiceError as exc:
        return _link_page(request, {"game": game, "error": exc.detail}, status=400)
    context = table.table_context(game, user)
    context.update(link_user=user, play=play_links.play_label(cards, choice, state.values), chosen=cards)
    return _link_page(request, context)


def _link_game(link: play_links.PlayLink) -> tuple[Game, User]:
    game = selectors.game_by_id(link.game_id)
    user = User.objects.filter(pk=link.user_id, is_active=True).first()
    if game is None or user is None or game.seat_of(user) is None:
        raise NotFound("not_found", _("This game is not there any more."))
    return game, user


def _play_from_link(request: HttpRequest, link: play_links.PlayLink, game: Game, user: User) -> HttpResponse:
    state = event_log.load_state(game)
    try:
        # The position the link was written for, even after the game moved on: a second
        # Confirm is the same play, which services.game_play answers from its key.
        cards, choice = link.play(state if game.version == link.version else _position_at(game, link.version))
        services.game_play(
            game=game,
            user=user,
            cards=cards,
            choice=choice,
            expected_version=link.version,
            idempotency_key=link.idempotency_key,
        )
    except StaleVersion:
        return _link_page(request, {"game": game, "error": _link_over()}, status=409)
    except ServiceError as exc:
        return _link_page(request, {"game": game, "error": exc.detail}, status=400)
    context = table.table_context(game, user)
    context.update(link_user=user, played=play_links.play_label(cards, choice, state.values))
    return _link_page(request, context)


def _position_at(game: Game, version: int) -> State:
    log = event_log.read_log(game)
    if not 1 <= version <= len(log):
        raise NotFound("not_found", _("This game is not there any more."))
    return history.state_at(log, version)


def _link_over() -> str:
    return _("This turn is over: a play has been made since the email was sent. Nothing was played.")


def _link_page(request: HttpRequest, context: dict[str, Any], status: int = 200) -> HttpResponse:
    return render(request, "games/play_link.html", context, status=status)
