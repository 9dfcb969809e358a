"""The REST API: one small view per operation, input checked by a serializer, work done by
services, output built by presenters (which see only what engine.visibility allows)."""

from __future__ import annotations

import re
from typing import Any

from django.contrib.auth.models import User
from drf_spectacular.extensions import OpenApiSerializerExtension
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.exceptions import ParseError, ValidationError
from rest_framework.pagination import CursorPagination
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts import bots as bot_accounts
from accounts.users import signed_in
from core.errors import Conflict, NotFound
from core.replicas import reads_may_lag, require_primary
from engine.record import record_from_events
from games import challenges, event_log, notes, play_messages, presenters, selectors, services
from games.models import DAYS_PER_TURN, MESSAGE_MAX_CHARS, NOTE_MAX_CHARS, Game, GameQuerySet

GAME_ID = OpenApiParameter("game_id", OpenApiTypes.STR, OpenApiParameter.PATH, description="The game's id")


class PlayerSerializer(serializers.Serializer[dict[str, Any]]):
    seat = serializers.CharField()
    username = serializers.CharField(allow_null=True)
    is_bot = serializers.BooleanField(help_text="A bot plays this seat: a bot account or the site's own.")
    bot = serializers.CharField(allow_null=True)
    # Once the cards are dealt:
    hand_size = serializers.IntegerField(required=False)
    pile_size = serializers.IntegerField(required=False)
    captured_count = serializers.IntegerField(required=False)
    has_dragon = serializers.BooleanField(required=False)
    score = serializers.IntegerField(required=False, allow_null=True, help_text="Shown when open or over.")


class GameSummarySerializer(serializers.Serializer[dict[str, Any]]):
    """What lists show (documentation only: presenters build the JSON)."""

    id = serializers.CharField()
    status = serializers.ChoiceField(choices=Game.Status.choices)
    players = PlayerSerializer(many=True)
    your_seat = serializers.CharField(allow_null=True)
    to_move = serializers.CharField(allow_null=True)
    your_turn = serializers.BooleanField()
    version = serializers.IntegerField()
    series = serializers.IntegerField(allow_null=True)
    number = serializers.IntegerField(help_text="Game number within its series.")
    private = serializers.BooleanField()
    rated = serializers.BooleanField(help_text="Whether the result changes the players' ratings.")
    rating_min = serializers.IntegerField(allow_null=True, help_text="An open challenge's lowest rating.")
    rating_max = serializers.IntegerField(allow_null=True, help_text="An open challenge's highest rating.")
    created_at = serializers.DateTimeField()
    turn_started_at = serializers.DateTimeField(allow_null=True)
    deadline = serializers.DateTimeField(allow_null=True)
    result = serializers.DictField(allow_null=True)


class DealSerializer(serializers.Serializer[dict[str, Any]]):
    """The deal anyone can verify (engine.deal; docs/service.md)."""

    commitment = serializers.CharField(
        help_text="SHA-256 (hex) of the salt's 32 bytes, then the decks as compact JSON with sorted keys."
    )
    salt = serializers.CharField(allow_null=True, help_text="The salt (hex), shown once the game is over.")


class GameViewSerializer(GameSummarySerializer):
    """One game as the requester may see it."""

    turn = serializers.IntegerField()
    options = serializers.DictField()
    board = serializers.DictField(allow_null=True, help_text="type key → cards {id, type, value}")
    hold = serializers.ListField(child=serializers.DictField(), allow_null=True)
    voyages = serializers.IntegerField()
    dragon = serializers.CharField(allow_null=True)
    last_turn = serializers.IntegerField(allow_null=True)
    hand = serializers.ListField(child=serializers.DictField(), allow_null=True)
    legal_plays = serializers.ListField(child=serializers.DictField(), allow_null=True)
    revealed = serializers.DictField(allow_null=True, help_text="Everything, once the game is over.")
    deal = DealSerializer(
        allow_null=True, help_text="The commitment to both decks, from the first turn; null if none."
    )


class WholeNumberField(serializers.IntegerField):
    """An integer as the schema has it: a JSON integer in a body, digits in a query string
    (DRF's own field also takes 5.0, "5.0", " 5" and, in a body, the string "5")."""

    def __init__(self, *, in_query: bool = False, **kwargs: Any) -> None:
        self.in_query = in_query
        super().__init__(**kwargs)

    def to_internal_value(self, data: Any) -> int:
        if not (type(data) is int or (self.in_query and isinstance(data, str) and _DIGITS.fullmatch(data))):
            self.fail("invalid")
        return super().to_internal_value(data)


_DIGITS = re.compile(r"-?[0-9]+")


class WholeNumberChoiceField(serializers.ChoiceField):
    """A choice of whole numbers as the schema has it: a JSON integer (DRF's own field also
    takes the string "3", matching choices by their text)."""

    def to_internal_value(self, data: Any) -> Any:
        if type(data) is not int:
            self.fail("invalid_choice", input=data)
        return super().to_internal_value(data)


class TextField(serializers.CharField):
    """A JSON string as the schema has it (DRF's own field also takes 5 and true as "5" and
    "True")."""

    def to_internal_value(self, data: Any) -> str:
        if not isinstance(data, str):
            self.fail("invalid")
        return str(super().to_internal_value(data))


def refuse_unknown_keys(serializer: serializers.Serializer[Any], data: Any) -> None:
    """A body's keys must all be the serializer's: DRF drops the others silently, and a client
    must never believe it sent what was dropped (a misspelt "mesage" played without a word)."""
    if not isinstance(data, dict):
        return  # the serializer reports a body that is not an object
    unknown = sorted(set(data) - set(serializer.fields))
    if unknown:
        allowed = ", ".join(sorted(serializer.fields))
        raise serializers.ValidationError(
            {
                key: [f"Unknown key: this body takes only {allowed}."]  # API words are English
                for key in unknown
            }
        )


class StrictSerializer(serializers.Serializer[dict[str, Any]]):
    """A body serializer that refuses keys it does not know (refuse_unknown_keys); the schema
    says so (``additionalProperties: false``, StrictSerializerSchema)."""

    def to_internal_value(self, data: Any) -> dict[str, Any]:
        refuse_unknown_keys(self, data)
        value: dict[str, Any] = super().to_internal_value(data)
        return value


# drf-spectacular registers an extension by subclassing (its __init_subclass__ is untyped).
class StrictSerializerSchema(OpenApiSerializerExtension):  # type: ignore[no-untyped-call]
    target_class = StrictSerializer
    match_subclasses = True

    def map_serializer(self, auto_schema: Any, direction: Any) -> dict[str, Any]:
        schema: dict[str, Any] = auto_schema._map_serializer(self.target, direction, bypass_extensions=True)
        schema["additionalProperties"] = False
        return schema


def get_game(game_id: str) -> Game:
    # One row, no joins: the names the views show are copied onto it.
    game = selectors.game_by_id(game_id)
    if game is None:
        raise NotFound("not_found", "There is no game with that id.")
    return game


def game_response(game: Game, user: User, status_code: int = status.HTTP_200_OK) -> Response:
    state = event_log.load_state(game) if game.version else None
    return Response(presenters.game_view(game, state, user), status=status_code)


class GamePagination(CursorPagination):
    ordering = ("-created_at", "-id")
    page_size = 50


class GameListCreateApi(APIView):
    token_scope = "challenge"  # a token's POST (accounts.permissions); its GET needs "read"
    reads_body = frozenset({"POST"})  # see core.middleware.RequestBodyMiddleware

    class InputSerializer(serializers.Serializer[dict[str, Any]]):
        class Meta:
            ref_name = "GameCreateInput"

        # Strings are not trimmed, so that each is as long as the schema says: "  " is no
        # player (a trimmed one would be refused as blank).
        opponent = serializers.CharField(
            allow_null=True,
            default=None,
            trim_whitespace=False,
            help_text=(
                'A username, "bot:random", "bot:greedy", "bot:medium", "bot:strong", '
                "or null for an open challenge."
            ),
        )
        rules = serializers.DictField(
            required=False, default=dict, help_text='{"preset": "official"} or options.'
        )
        series = serializers.DictField(
            required=False,
            allow_null=True,
            default=None,
            help_text='{"kind": "match" | "sumof", "target": 3}',
        )
        private = serializers.BooleanField(
            default=False, help_text="An open challenge only its link reaches."
        )
        days_per_turn = WholeNumberChoiceField(
            choices=DAYS_PER_TURN,
            allow_null=True,
            default=None,
            help_text="Days for each turn; null: casual.",
        )
        rated = serializers.BooleanField(
            allow_null=True,
            default=None,
            help_text="Whether the result changes both players' ratings; null: rated when the game "
            "has a clock. A game against the site's bot, or between a bot account and a person, is "
            "never rated (bots are rated apart from people); an open rated challenge is accepted only "
            "by the creator's kind.",
        )
        rating_min = serializers.IntegerField(
            allow_null=True, default=None, help_text="An open challenge: the lowest rating that may accept."
        )
        rating_max = serializers.IntegerField(
            allow_null=True, default=None, help_text="An open challenge: the highest rating that may accept."
        )

    class FilterSerializer(serializers.Serializer[dict[str, Any]]):
        class Meta:
            ref_name = "GameListFilter"

        status = serializers.ChoiceField(choices=Game.Status.choices, required=False)
        mine = serializers.BooleanField(required=False, default=False)

    @extend_schema(
        parameters=[
            FilterSerializer,
            OpenApiParameter("cursor", OpenApiTypes.STR, description="A page, from a next or previous link"),
        ],
        responses={
            200: inline_serializer(
                "GamePage",
                {
                    "next": serializers.URLField(allow_null=True),
                    "previous": serializers.URLField(allow_null=True),
                    "results": GameSummarySerializer(many=True),
                },
            ),
            404: OpenApiResponse(description="The cursor is not one of ours"),
        },
        summary="List games",
        operation_id="games_list",
    )
    def get(self, request: Request) -> Response:
        filters = self.FilterSerializer(data=request.query_params)
        filters.is_valid(raise_exception=True)
        games: GameQuerySet = Game.objects.defer("state", "options")
        user = signed_in(request)
        mine = games.of_player(user)
        games = mine if filters.validated_data["mine"] else games.filter(private=False) | mine
        if "status" in filters.validated_data:
            games = games.filter(status=filters.validated_data["status"])
        paginator = GamePagination()
        page = paginator.paginate_queryset(games, request, view=self) or []
        return paginator.get_paginated_response([presenters.game_summary(g, user) for g in page])

    @extend_schema(request=InputSerializer, responses={201: GameViewSerializer}, summary="Create a game")
    def post(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        arguments = dict(data.validated_data)
        arguments["rating_range"] = (arguments.pop("rating_min"), arguments.pop("rating_max"))
        game = challenges.game_create(creator=signed_in(request), **arguments)
        return game_response(get_game(game.pk), signed_in(request), status.HTTP_201_CREATED)


class GameDetailApi(APIView):
    @extend_schema(parameters=[GAME_ID], responses={200: GameViewSerializer}, summary="Your view of a game")
    def get(self, request: Request, game_id: str) -> Response:
        return game_response(get_game(game_id), signed_in(request))


def _action(name: str, doc: str, service: Any, scope: str) -> type[APIView]:
    """A POST endpoint that runs one service on a game and answers with the new view."""

    @extend_schema(parameters=[GAME_ID], request=None, responses={200: GameViewSerializer}, summary=doc)
    def post(self: APIView, request: Request, game_id: str) -> Response:
        user = signed_in(request)
        game = service(game=get_game(game_id), user=user)
        return game_response(get_game(game.pk) if isinstance(game, Game) else get_game(game_id), user)

    return type(f"{name}Api", (APIView,), {"post": post, "__doc__": doc, "token_scope": scope})


# The scope a token needs (accounts.permissions): answering a challenge to the account is
# playing; making, cancelling and rematching challenges is "challenge".
GameAcceptApi = _action("GameAccept", "Accept a challenge", challenges.game_accept, "play")
GameDeclineApi = _action("GameDecline", "Decline a challenge", challenges.game_decline, "play")
GameCancelApi = _action("GameCancel", "Cancel your unanswered challenge", challenges.game_cancel, "challenge")
GameResignApi = _action("GameResign", "Resign", services.game_resign, "play")
GameRematchApi = _action(
    "GameRematch", "Ask for a rematch (returns the new game)", challenges.game_rematch, "challenge"
)


class PlayCreateApi(APIView):
    throttle_scope = "plays"
    token_scope = "play"  # accounts.permissions
    # A malformed play is reported after the errors the documented order puts first, here
    # rather than by core.middleware.RequestBodyMiddleware.
    reads_body = frozenset({"POST"})

    class InputSerializer(StrictSerializer):
        """A play: these keys only, any other is refused with 400 (a client must never believe
        it sent what was dropped)."""

        class Meta:
            ref_name = "PlayInput"

        cards = serializers.ListField(
            child=serializers.CharField(max_length=3, trim_whitespace=False), max_length=6, allow_empty=True
        )
        choice = serializers.CharField(
            allow_null=True, required=False, default=None, max_length=16, trim_whitespace=False
        )
        expected_version = WholeNumberField(min_value=0)
        message = TextField(
            required=False,
            allow_null=True,
            allow_blank=True,
            default=None,
            max_length=MESSAGE_MAX_CHARS,
            trim_whitespace=False,
            help_text=f"A word for the opponent with the play (at most {MESSAGE_MAX_CHARS} characters, "
            "plain text); only the game's two players ever read it.",
            error_messages={"max_length": f"A message has at most {MESSAGE_MAX_CHARS} characters."},
        )

    @extend_schema(
        parameters=[
            GAME_ID,
            OpenApiParameter(
                "Idempotency-Key",
                {"type": "string", "minLength": 1, "maxLength": 255},
                OpenApiParameter.HEADER,
                description="Retry-safe key",
            ),
        ],
        request=InputSerializer,
        responses={201: GameViewSerializer},
        summary="Play cards",
    )
    def post(self, request: Request, game_id: str) -> Response:
        game = get_game(game_id)
        outcome = services.game_play(
            game=game,
            user=signed_in(request),
            idempotency_key=request.META.get("HTTP_IDEMPOTENCY_KEY"),
            **self._play(request, game),
        )
        response = Response(
            presenters.game_view(game, outcome.state, request.user), status=status.HTTP_201_CREATED
        )
        if outcome.replayed:
            response["Idempotent-Replayed"] = "true"
        return response

    def _play(self, request: Request, game: Game) -> dict[str, Any]:
        """The play's fields, or the error of a malformed body, reported after the errors the
        documented order puts first (seated, version, running, turn)."""
        try:
            body = request.data
        except ParseError:
            services.play_guards(game=game, user=signed_in(request), expected_version=None)
            raise
        data = self.InputSerializer(data=body)
        if not data.is_valid():
            services.play_guards(game=game, user=signed_in(request), expected_version=_stated_version(body))
            raise ValidationError(data.errors)
        play: dict[str, Any] = data.validated_data
        return play


def _stated_version(body: Any) -> int | None:
    """The expected_version of a play that is malformed elsewhere, if it states a valid one."""
    try:
        version: int = serializers.IntegerField(min_value=0).run_validation(body["expected_version"])
    except (TypeError, KeyError, IndexError, serializers.ValidationError):
        return None
    return version


class EventListApi(APIView):
    class FilterSerializer(serializers.Serializer[dict[str, int]]):
        class Meta:
            ref_name = "EventFilter"

        after = WholeNumberField(
            in_query=True, min_value=0, default=0, help_text="Events after this sequence number."
        )
        limit = WholeNumberField(in_query=True, min_value=1, max_value=500, default=200)

    @extend_schema(
        parameters=[GAME_ID, FilterSerializer],
        responses={
            200: inline_serializer(
                "EventPage",
                {
                    "results": serializers.ListField(child=serializers.DictField()),
                    "next": serializers.CharField(allow_null=True),
                },
            )
        },
        summary="The game's events you may see",
    )
    @reads_may_lag
    def get(self, request: Request, game_id: str) -> Response:
        filters = self.FilterSerializer(data=request.query_params)
        filters.is_valid(raise_exception=True)
        game = get_game(game_id)
        if game.status != Game.Status.FINISHED:
            require_primary()  # a running game's events are read where they are written
        after, limit = filters.validated_data["after"], filters.validated_data["limit"]
        rows = event_log.read_events(game, after=after, limit=limit)
        results = [presenters.event_view(row, game, request.user) for row in rows]
        following = None
        if rows and rows[-1].seq < game.version:
            following = request.build_absolute_uri(f"?after={rows[-1].seq}&limit={limit}")
        return Response({"results": results, "next": following})


class RecordApi(APIView):
    @extend_schema(
        parameters=[GAME_ID],
        responses={200: OpenApiTypes.OBJECT, 409: OpenApiResponse(description="The game is not over")},
        summary="The game record, once over",
    )
    @reads_may_lag
    def get(self, request: Request, game_id: str) -> Response:
        game = get_game(game_id)
        if game.status != Game.Status.FINISHED:
            require_primary()  # the replica may not have its end yet
            raise Conflict("game_not_over", "The record is published once the game is over.")
        log = event_log.read_log(game)
        players = {seat: game.player_name(seat) or "" for seat in ("a", "b")}
        record = record_from_events(log, players, game.revealed_deal())
        # Beside the contract's "players" (seat -> name), which seat a bot played.
        record["is_bot"] = {seat: game.seat_is_bot(seat) for seat in ("a", "b")}
        if game.seat_of(signed_in(request)) is not None:
            # The words sent with the plays, for the two players only (never a spectator's
            # record), less those of an opponent the reader muted.
            said = play_messages.visible_messages(game, signed_in(request)).values()
            record["messages"] = [{"turn": m.turn, "seat": m.seat, "text": m.text} for m in said]
        return Response(record)


class NotesApi(APIView):
    """The reader's own private notes on a game they play (games/notes.py)."""

    reads_body = frozenset({"PUT"})
    token_scope = "play"  # a token's PUT (accounts.permissions); its GET needs "read"

    class InputSerializer(StrictSerializer):
        """Your notes, replaced whole: this key only, any other is refused with 400."""

        class Meta:
            ref_name = "NotesInput"

        # The length is the service's to refuse (400 note_too_long), not the schema's: a
        # string just over a maxLength the schema gave could be over the body's 16 KiB (413).
        text = TextField(
            allow_blank=True,
            trim_whitespace=False,
            help_text=f"The notes, plain text, at most {NOTE_MAX_CHARS} characters "
            "(longer: 400 note_too_long).",
        )

    class OutputSerializer(serializers.Serializer[dict[str, Any]]):
        class Meta:
            ref_name = "Notes"

        text = serializers.CharField()
        updated_at = serializers.DateTimeField(allow_null=True)

    @extend_schema(
        parameters=[GAME_ID],
        responses={200: OutputSerializer, 404: OpenApiResponse(description="Not a game you play")},
        summary="Your private notes on a game",
    )
    def get(self, request: Request, game_id: str) -> Response:
        note = notes.note_of(game=get_game(game_id), user=signed_in(request))
        return Response(_notes_out(note))

    @extend_schema(
        parameters=[GAME_ID],
        request=InputSerializer,
        responses={
            200: OutputSerializer,
            404: OpenApiResponse(description="Not a game you play"),
            413: OpenApiResponse(description="The body is over the 16 KiB the API reads"),
        },
        summary="Replace your private notes on a game",
    )
    def put(self, request: Request, game_id: str) -> Response:
        game, user = get_game(game_id), signed_in(request)
        notes.note_of(game=game, user=user)  # a non-player learns nothing, a bad body included
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        return Response(_notes_out(notes.note_save(game=game, user=user, text=data.validated_data["text"])))


def _notes_out(note: Any) -> dict[str, Any]:
    if note is None:
        return {"text": "", "updated_at": None}
    return {"text": note.text, "updated_at": note.updated_at}


MUTE_ANSWER = inline_serializer(
    "Mute",
    {
        "player": serializers.CharField(),
        "is_bot": serializers.BooleanField(),
        "muted": serializers.BooleanField(),
    },
)


class MuteApi(APIView):
    """Mute or unmute a player's messages, earlier ones included (games/play_messages.py)."""

    token_scope = "play"  # accounts.permissions

    @extend_schema(request=None, responses={200: MUTE_ANSWER}, summary="Mute a player's messages")
    def post(self, request: Request, name: str) -> Response:
        return self._set(request, name, muted=True)

    @extend_schema(request=None, responses={200: MUTE_ANSWER}, summary="Unmute a player's messages")
    def delete(self, request: Request, name: str) -> Response:
        return self._set(request, name, muted=False)

    def _set(self, request: Request, name: str, *, muted: bool) -> Response:
        other = play_messages.mute_set(user=signed_in(request), name=name, muted=muted)
        return Response({"player": other.username, "is_bot": bot_accounts.is_bot(other), "muted": muted})
