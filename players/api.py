"""The players' part of the API: a player (GET /api/players/{name}/), the leaderboard
(GET /api/leaderboard/) and the bots' (GET /api/bots/leaderboard/), the bots online
(GET /api/bots/online/), open to everyone as the pages are; and turning one's own account into
a bot (POST /api/account/bot/). Nothing here is about cards."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts import bots as bot_accounts
from accounts.users import signed_in
from core.errors import NotFound
from core.replicas import reads_may_lag
from engine.cards import Seat, other
from games.models import Game
from players import selectors, services
from ratings import selectors as ratings
from ratings.models import RatingChange


class RatingSerializer(serializers.Serializer[dict[str, Any]]):
    rating = serializers.IntegerField()
    deviation = serializers.IntegerField(help_text="Grows while the player has no rated game.")
    provisional = serializers.BooleanField(help_text='Shown with "?": the deviation is above 110.')
    games = serializers.IntegerField(help_text="Rated games played.")


class RecordSerializer(serializers.Serializer[dict[str, Any]]):
    wins = serializers.IntegerField()
    losses = serializers.IntegerField()
    draws = serializers.IntegerField()


class OpponentSerializer(RecordSerializer):
    opponent = serializers.CharField(help_text='A username, or "bot:LEVEL" for the site\'s own bot.')
    is_bot = serializers.BooleanField(help_text="The site's own bot or a bot account.")


class RatingPointSerializer(serializers.Serializer[dict[str, Any]]):
    game = serializers.CharField()
    rated_at = serializers.DateTimeField()
    rating = serializers.FloatField()
    deviation = serializers.FloatField()
    score = serializers.FloatField(help_text="1 a win, 0.5 a draw, 0 a loss.")


class PlayedGameSerializer(serializers.Serializer[dict[str, Any]]):
    id = serializers.CharField()
    opponent = serializers.CharField(allow_null=True)
    is_bot = serializers.BooleanField(help_text="Whether the opponent is a bot (false for an open seat).")
    rated = serializers.BooleanField()
    status = serializers.CharField()
    your_turn = serializers.BooleanField(help_text="Whether it is this player's turn (running games).")
    outcome = serializers.ChoiceField(choices=["won", "lost", "draw"], allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)


class PlayerSerializer(serializers.Serializer[dict[str, Any]]):
    class Meta:
        ref_name = "PlayerPage"

    username = serializers.CharField()
    is_bot = serializers.BooleanField(help_text="A bot account, played by a program through the API.")
    member_since = serializers.DateTimeField()
    rating = RatingSerializer()
    record = RecordSerializer()
    opponents = OpponentSerializer(many=True)
    history = RatingPointSerializer(many=True, help_text="The rating after each rated game, oldest first.")
    current_games = PlayedGameSerializer(many=True)
    recent_games = PlayedGameSerializer(many=True)


class RankedSerializer(RatingSerializer):
    rank = serializers.IntegerField()
    username = serializers.CharField()
    is_bot = serializers.BooleanField()


NAME = OpenApiParameter("name", OpenApiTypes.STR, OpenApiParameter.PATH, description="The player's username")


class PlayerApi(APIView):
    permission_classes = [AllowAny]

    @extend_schema(
        parameters=[NAME],
        responses={200: PlayerSerializer, 404: OpenApiResponse(description="No such player")},
        summary="A player: rating and its history, record, games",
    )
    @reads_may_lag
    def get(self, request: Request, name: str) -> Response:
        user = selectors.player_named(name)
        if user is None:
            raise NotFound(
                "no_such_player", gettext("There is no player called %(name)s.") % {"name": repr(name)}
            )
        opponents = selectors.against_each_opponent(user)
        return Response(
            {
                "username": user.username,
                "is_bot": bot_accounts.is_bot(user),
                "member_since": user.date_joined,
                "rating": selectors.shown_rating(user)._asdict(),
                "record": _record(selectors.overall(opponents)),
                "opponents": [
                    {"opponent": o.name, "is_bot": o.is_bot, **_record(o.record)} for o in opponents
                ],
                "history": [_point(c) for c in ratings.history(user.pk)],
                "current_games": [_played(g, user.pk) for g in selectors.current_games(user)],
                "recent_games": [_played(g, user.pk) for g in selectors.recent_games(user)],
            }
        )


def _record(record: selectors.Record) -> dict[str, int]:
    return {"wins": record.wins, "losses": record.losses, "draws": record.draws}


def _point(change: RatingChange) -> dict[str, Any]:
    return {
        "game": change.game_id,
        "rated_at": change.rated_at,
        "rating": round(change.rating_after, 2),
        "deviation": round(change.deviation_after, 2),
        "score": change.score,
    }


def _played(game: Game, user_id: int) -> dict[str, Any]:
    seat: Seat = "a" if game.player_a_id == user_id else "b"
    return {
        "id": game.pk,
        "opponent": game.shown_player_name(other(seat)),
        "is_bot": game.seat_is_bot(other(seat)),
        "rated": game.rated,
        "status": game.status,
        "your_turn": game.status == Game.Status.ACTIVE and game.to_move == seat,
        "outcome": game.outcome_of(seat) or None,
        "finished_at": game.finished_at,
    }


class LeaderboardApi(APIView):
    permission_classes = [AllowAny]

    @extend_schema(
        responses={200: RankedSerializer(many=True)},
        summary="The leaderboard: established players, best first",
        description="People with at least five rated games in the last 90 days whose rating is "
        "not provisional. Bot accounts are rated apart and ranked on their own board "
        "(GET /api/bots/leaderboard/).",
    )
    @reads_may_lag
    def get(self, request: Request) -> Response:
        return Response(_ranked(ratings.leaderboard()))


def _ranked(rows: list[ratings.Ranked]) -> list[dict[str, Any]]:
    bots = bot_accounts.bot_user_ids(r.user_id for r in rows)
    return [
        {"rank": r.rank, "username": r.username, "is_bot": r.user_id in bots, **r.shown._asdict()}
        for r in rows
    ]


class BotsLeaderboardApi(APIView):
    permission_classes = [AllowAny]

    @extend_schema(
        responses={200: RankedSerializer(many=True)},
        summary="The bots' leaderboard: established bot accounts, best first",
        description="Bot accounts with at least five rated games in the last 90 days whose rating "
        "is not provisional. A bot is rated only in games against bot accounts.",
    )
    @reads_may_lag
    def get(self, request: Request) -> Response:
        return Response(_ranked(ratings.leaderboard(bots=True)))


class OnlineBotSerializer(serializers.Serializer[dict[str, Any]]):
    username = serializers.CharField()
    is_bot = serializers.BooleanField(help_text="Always true.")
    rating = RatingSerializer()
    seen_at = serializers.DateTimeField(help_text="When its stream last said it was open.")


class OnlineBotsSerializer(serializers.Serializer[dict[str, Any]]):
    results = OnlineBotSerializer(many=True)


class BotsOnlineApi(APIView):
    permission_classes = [AllowAny]

    @extend_schema(
        responses={200: OnlineBotsSerializer},
        summary="The bots online: bot accounts with an account stream open now",
        description="A bot is listed while it has GET /api/stream/ open, and leaves the list within "
        "30 seconds of its last stream closing. By username.",
    )
    def get(self, request: Request) -> Response:
        return Response({"results": [_online(bot) for bot in selectors.online_bots()]})


def _online(bot: selectors.OnlineBot) -> dict[str, Any]:
    return {"username": bot.username, "is_bot": True, "rating": bot.rating._asdict(), "seen_at": bot.seen_at}


class AccountBotApi(APIView):
    """Needs a session or a token with every scope (accounts.permissions): it changes the
    account itself."""

    class OutputSerializer(serializers.Serializer[dict[str, Any]]):
        class Meta:
            ref_name = "BotAccount"

        username = serializers.CharField()
        is_bot = serializers.BooleanField(help_text="Always true: the switch cannot be undone.")

    @extend_schema(
        request=None,
        responses={
            200: OutputSerializer,
            409: OpenApiResponse(
                description='"already_bot": the account is a bot already; "has_played": it is a player '
                "of a game (a waiting challenge counts: cancel or decline it first)."
            ),
        },
        summary="Turn your account into a bot, for good",
        description="Only an account that has played no game can become a bot. A bot plays only "
        "through the API, gets no game emails (it has the account stream), is marked is_bot "
        "wherever it is named, and is rated only against bots. This cannot be undone.",
    )
    def post(self, request: Request) -> Response:
        user = services.bot_account_create(user=signed_in(request))
        return Response({"username": user.username, "is_bot": True})
