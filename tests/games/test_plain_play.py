"""The play body fast path (games.api.plain_play) accepts only what the play serializer
accepts, and returns exactly what the serializer would."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from games.api import PlayCreateApi, plain_play

_strings = st.text(max_size=4) | st.sampled_from(
    ["a23", "h01", "trolls", " ", "", "\x00", "\ud800", "é", "a\n"]
)
_values = (
    _strings
    | st.none()
    | st.booleans()
    | st.integers(min_value=-3, max_value=2**70)
    | st.floats(allow_nan=False)
    | st.sampled_from(["5", "5.0", " 5", 5.0])
)
_cards = st.lists(_strings | _values, max_size=8) | _values | st.dictionaries(_strings, _values, max_size=2)
_bodies = st.fixed_dictionaries(
    {},
    optional={
        "cards": _cards,
        "choice": st.text(max_size=18) | _values,
        "expected_version": _values,
        "extra": _values,
    },
) | st.one_of(st.lists(_values), _values)
# Bodies one character or one value away from a valid play: where a fast path would go wrong.
_tricky = st.text(st.sampled_from(["a", "7", " ", "\x00", "\ud800", "é", "\n", "\x7f", "-"]), max_size=4)
_near_plays = st.fixed_dictionaries(
    {
        "cards": st.lists(_tricky, max_size=7),
        "expected_version": st.integers(min_value=-1, max_value=2**64) | st.booleans(),
    },
    optional={
        "choice": st.none() | st.text(st.sampled_from(["t", "\x00", "\ud800", " ", "\t"]), max_size=17)
    },
)


@settings(max_examples=3000)
@given(body=_bodies | _near_plays)
def test_what_the_fast_path_accepts_the_serializer_accepts_the_same(body):
    fast = plain_play(body)
    serializer = PlayCreateApi.InputSerializer(data=body)

    if fast is not None:
        assert serializer.is_valid(), serializer.errors
        assert fast == dict(serializer.validated_data)


@given(
    cards=st.lists(st.sampled_from(["a01", "b23", "h7", "x"]), max_size=6),
    choice=st.sampled_from([None, "trolls", "princesses", "stones"]),
    version=st.integers(min_value=0, max_value=10**6),
)
def test_a_play_as_clients_send_it_takes_the_fast_path(cards, choice, version):
    body = {"cards": cards, "choice": choice, "expected_version": version}

    assert plain_play(body) == body
    assert plain_play({"cards": cards, "expected_version": version}) == {**body, "choice": None}


def test_anything_else_goes_to_the_serializer():
    for body in (
        [],
        {"cards": ["a01"], "expected_version": True},
        {"cards": ["a01"], "expected_version": -1},
        {"cards": ["a01"], "expected_version": "5"},
        {"cards": "a01", "expected_version": 5},
        {"cards": ["a01", 7], "expected_version": 5},
        {"cards": ["a0001"], "expected_version": 5},
        {"cards": [""], "expected_version": 5},
        {"cards": ["a01"] * 7, "expected_version": 5},
        {"cards": ["a01"], "choice": "", "expected_version": 5},
        {"cards": ["a01"], "expected_version": 5, "note": "hi"},
    ):
        assert plain_play(body) is None, body
