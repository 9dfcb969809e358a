"""The how-to-play page: the rules in every language with each edition's card names, and the
options in force for a game or a link, with the defaults named."""

from __future__ import annotations

import html
import re

import pytest
from django.test import Client
from django.utils import translation

from engine.cards import TYPES
from games import challenges
from games.templatetags.games_extras import type_label
from tests.support.names import CARD_NAMES, ENGLISH_NAMES
from tests.support.tables import start


@pytest.fixture(autouse=True)
def _english_afterwards():
    # A request in another language leaves that language active in this thread (Django's
    # LocaleMiddleware activates it and nothing deactivates it): later tests expect English.
    yield
    translation.deactivate()


def _page(client: Client, url: str = "/how-to-play/", lang: str = "en") -> str:
    response = client.get(url, HTTP_ACCEPT_LANGUAGE=lang)
    assert response.status_code == 200
    return response.content.decode()


def _headings(page: str) -> list[str]:
    return [html.unescape(re.sub(r"\s*<span.*", "", h)) for h in re.findall(r"<h3>(.*?)</h3>", page)]


@pytest.mark.parametrize("lang", ["en", "de", "es", "fr", "uk"])
def test_the_page_names_the_nine_cards_as_its_languages_edition_does(client, db, lang):
    names = ENGLISH_NAMES if lang == "en" else CARD_NAMES[lang]
    headings = _headings(_page(client, lang=lang))
    assert sorted(headings) == sorted(names)
    assert len(headings) == len(TYPES)


def test_anyone_may_read_it_and_every_page_links_to_it(client, alice):
    assert 'href="/how-to-play/">How to play</a>' in _page(client, "/accounts/login/")
    client.force_login(alice)
    assert 'href="/how-to-play/">How to play</a>' in _page(client, "/")


def test_a_game_page_links_to_the_rules_of_that_game(client, alice, bob):
    game = start(alice, bob)
    client.force_login(alice)
    assert f'href="/how-to-play/?game={game.pk}">How to play</a>' in _page(client, f"/games/{game.pk}/")


def test_the_capture_chain_is_drawn_with_an_arrow_and_a_legend_line_for_each_capture(client, db):
    page = _page(client)
    figure = page[page.index('<figure class="chain">') : page.index("</figure>")]
    assert figure.count('marker-end="url(#arrow-head)"') == 11
    assert len(re.findall(r"<li>", figure)) == 10
    assert "The third ship captures the hold." in figure


def test_without_a_game_the_page_explains_the_default_and_lists_each_variant(client, db):
    page = _page(client)
    assert "Official rules (Kosmos), the default for new games." in page
    here = re.findall(r'<li class="here">(.*?)</li>', page, re.S)
    assert len(here) == 3
    assert "Official rules (default)" in here[2]
    assert "BrettspielWelt rules: when a player draws the last card" in page


def test_opened_from_a_brettspielwelt_game_it_marks_that_games_end(client, alice, bob):
    game = start(alice, bob, rules={"preset": "bsw"})
    page = _page(client, f"/how-to-play/?game={game.pk}")
    here = re.findall(r'<li class="here">(.*?)</li>', page, re.S)
    assert "The rules of the game alice against bob:" in page
    assert "BrettspielWelt rules: the official ones" in page
    assert any("BrettspielWelt rules: when a player draws" in li for li in here)
    assert not any("Official rules (default)" in li for li in here)


def test_a_link_may_name_single_options(client, db):
    page = _page(client, "/how-to-play/?dragon_loss_return=always_one&dragon_requires_stone=false")
    here = " ".join(re.findall(r'<li class="here">(.*?)</li>', page, re.S))
    assert "The official rules with some changes." in page
    assert "always one card" in here
    assert "Choosing the petrified dragons is enough" in here


def test_a_link_with_an_unknown_option_gets_the_defaults(client, db):
    page = _page(client, "/how-to-play/?deck_end_mode=never")
    assert "Official rules (Kosmos), the default for new games." in page


def test_the_german_dwarves_change_the_values_and_the_deck_points(client, alice, bob):
    game = challenges.game_create(creator=alice, opponent="bob", rules={"deck_profile": "dwarf_6x1_4x2"})
    page = _page(client, f"/how-to-play/?game={game.pk}")
    assert "10 cards worth 1, 1, 1, 1, 1, 1, 2, 2, 2, 2" in page
    assert "(78 points)" in page
    assert "(79 points)" in _page(client)


def test_the_counts_of_cards_use_the_plural_of_each_language(client, db):
    page = _page(client, lang="uk")
    assert "6 карт, без вартості" in page  # ships
    assert "3 карти вартістю 1, 2, 3" in page  # trolls
    assert "місце для 2 карт" in page


def test_the_english_page_also_gives_the_fantasy_flight_names(client, db):
    assert "Fantasy Flight edition: Sorceress" in _page(client)
    assert "Sorceress" not in _page(client, lang="de")


def test_the_english_names_are_the_sites_own_type_labels():
    with translation.override("en"):
        assert [type_label(kind) for kind in TYPES] == ENGLISH_NAMES
