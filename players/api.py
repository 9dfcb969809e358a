"""The players' part of the API: a player (GET /api/players/{name}/) and the leaderboard
(GET /api/leaderboard/), open to everyone as the pages are. Nothing here is about cards."""

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

from core.errors import NotFound
from core.replicas import reads_may_lag
from engine.cards import Seat, other
from games.models import Game
from players import selectors
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
    opponent = serializers.CharField(help_text="A username, or a bot's level when is_bot.")
    is_bot = serializers.BooleanField()


class RatingPointSerializer(serializers.Serializer[dict[str, Any]]):
    game = serializers.CharField()
    rated_at = serializers.DateTimeField()
    rating = serializers.FloatField()
    deviation = serializers.FloatField()
    score = serializers.FloatField(help_text="1 a win, 0.5 a draw, 0 a loss.")


class PlayedGameSerializer(serializers.Serializer[dict[str, Any]]):
    id = serializers.CharField()
    opponent = serializers.CharField(allow_null=True)
    rated = serializers.BooleanField()
    status = serializers.CharField()
    your_turn = serializers.BooleanField(help_text="Whether it is this player's turn (running games).")
    outcome = serializers.ChoiceField(choices=["won", "lost", "draw"], allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)


class PlayerSerializer(serializers.Serializer[dict[str, Any]]):
    class Meta:
        ref_name = "PlayerPage"

    username = serializers.CharField()
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
        description="Players with at least five rated games in the last 90 days whose rating is "
        "not provisional.",
    )
    @reads_may_lag
    def get(self, request: Request) -> Response:
        return Response(
            [{"rank": r.rank, "username": r.username, **r.shown._asdict()} for r in ratings.leaderboard()]
        )
