"""The site in English, German, Spanish, French and Ukrainian: pages follow Accept-Language and
the switcher, every catalogue (the pages' django.po and the scripts' djangojs.po) is complete,
keeps its placeholders and is compiled."""

from __future__ import annotations

import ast
import gettext
import json
import re
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.utils import translation
from django.utils.translation import ngettext

from engine.cards import TYPES
from games import challenges
from games.models import Game
from games.templatetags.games_extras import type_label
from tests.support.names import CARD_NAMES

LOCALES = Path(settings.BASE_DIR) / "locale"
TRANSLATED = [code for code, _name in settings.LANGUAGES if code != "en"]
# The pages' strings (django) and those of the scripts under static/js (djangojs, served by
# Django's JavaScriptCatalog at /jsi18n/).
DOMAINS = ["django", "djangojs"]
CATALOGUES = [pytest.param(lang, domain, id=f"{lang}-{domain}") for lang in TRANSLATED for domain in DOMAINS]
SCRIPTS = Path(settings.BASE_DIR) / "static" / "js"

# RULES.md section 0: the card (and space) names of each edition, in the order of engine.cards.TYPES
# (CH FD PD PR TR DW HE HU SH).
DWARVES = {  # counts 1, 2, 5
    "de": ["Zwerg", "Zwerge", "Zwerge"],
    "es": ["enano", "enanos", "enanos"],
    "fr": ["nain", "nains", "nains"],
    "uk": ["ґном", "ґноми", "ґномів"],
}
YOUR_TURN = {"de": "Du bist am Zug", "es": "Tu turno", "fr": "À vous de jouer", "uk": "Ваш хід"}


def _po_entries(lang: str, domain: str = "django") -> list[dict[str, Any]]:
    """The entries of a .po file: msgid, msgid_plural, msgstr (one string, or a list of plural
    forms) and flags; the header entry left out. Enough of the format for Django's catalogues."""
    entries: list[dict[str, Any]] = []
    entry: dict[str, Any] = {}
    field: tuple[str, int | None] | None = None
    text = (LOCALES / lang / "LC_MESSAGES" / f"{domain}.po").read_text(encoding="utf-8")
    for line in [*text.splitlines(), ""]:
        if not line.strip():
            if "msgid" in entry:
                entries.append(entry)
            entry, field = {}, None
        elif line.startswith("#,"):
            entry.setdefault("flags", set()).update(f.strip() for f in line[2:].split(","))
        elif line.startswith("#"):
            continue
        elif line.startswith('"'):
            assert field is not None
            _store(entry, field, ast.literal_eval(line), append=True)
        else:
            keyword, value = line.split(" ", 1)
            match = re.fullmatch(r"(msgid|msgid_plural|msgstr)(?:\[(\d+)\])?", keyword)
            assert match, line
            field = (match[1], int(match[2]) if match[2] else None)
            _store(entry, field, ast.literal_eval(value), append=False)
    return [e for e in entries if e["msgid"]]


def _store(entry: dict[str, Any], field: tuple[str, int | None], value: str, *, append: bool) -> None:
    name, index = field
    if index is None:
        entry[name] = entry[name] + value if append else value
    else:
        forms = entry.setdefault(name, [])
        if append:
            forms[index] += value
        else:
            forms.append(value)


def _placeholders(text: str) -> set[str]:
    return set(re.findall(r"%\(\w+\)[sd]", text))


def _started_game(alice: Any, bob: Any) -> Game:
    game = challenges.game_create(creator=alice, opponent="bob")
    challenges.game_accept(game=game, user=bob)
    return Game.objects.get(pk=game.pk)


def _mover(game: Game, alice: Any, bob: Any) -> Any:
    return alice if game.to_move == "a" else bob


def test_the_lobby_is_in_german_for_a_german_browser(client, alice):
    client.force_login(alice)
    page = client.get("/", HTTP_ACCEPT_LANGUAGE="de-DE,de;q=0.9,en;q=0.5").content.decode()
    assert '<html lang="de">' in page
    assert "Du bist am Zug" in page
    assert "Spiel erstellen" in page


def test_a_game_page_is_in_german_with_the_german_card_names(client, alice, bob):
    game = _started_game(alice, bob)
    client.force_login(alice)
    page = client.get(f"/games/{game.pk}/", HTTP_ACCEPT_LANGUAGE="de").content.decode()
    assert "Nachziehstapel" in page
    assert "Versteinerter Drache" in page
    assert "Drachenjägerin" in page


def test_the_history_tells_the_game_in_the_browsers_language(client, alice, bob):
    game = _started_game(alice, bob)
    client.force_login(alice)
    page = client.get(f"/games/{game.pk}/history/", HTTP_ACCEPT_LANGUAGE="uk").content.decode()
    assert "Карти перетасовано й роздано" in page


def test_without_a_preference_the_site_is_in_english(client, alice):
    client.force_login(alice)
    page = client.get("/").content.decode()
    assert '<html lang="en">' in page
    assert "Your turn" in page


def test_the_switcher_sets_the_language_and_returns_to_the_page(client, alice):
    client.force_login(alice)
    response = client.post("/i18n/setlang/", {"language": "fr", "next": "/"}, HTTP_ACCEPT_LANGUAGE="de")
    assert response.status_code == 302
    assert response["Location"] == "/"
    # The cookie wins over the browser's German.
    page = client.get("/", HTTP_ACCEPT_LANGUAGE="de").content.decode()
    assert '<html lang="fr">' in page
    assert "À vous de jouer" in page


def test_every_page_offers_the_five_languages_each_named_in_itself(client):
    page = client.get("/accounts/login/", HTTP_ACCEPT_LANGUAGE="de").content.decode()
    assert 'action="/i18n/setlang/"' in page
    assert '<label for="language-select" class="sr-only">Sprache</label>' in page
    options = re.findall(r'<option value="(\w+)" lang="\w+"(?: selected)?>([^<]+)</option>', page)
    assert options == [
        ("en", "English"),
        ("de", "Deutsch"),
        ("es", "Español"),
        ("fr", "Français"),
        ("uk", "Українська"),
    ]


def test_the_switcher_on_a_refused_play_returns_to_the_game_not_to_the_post_only_url(client, alice, bob):
    game = _started_game(alice, bob)
    client.force_login(_mover(game, alice, bob))
    page = client.post(f"/games/{game.pk}/play/", {"cards": ["zz"], "expected_version": game.version})
    assert f'name="next" value="/games/{game.pk}/"' in page.content.decode()


def test_a_refused_play_is_explained_in_the_players_language(client, alice, bob):
    game = _started_game(alice, bob)
    client.force_login(_mover(game, alice, bob))
    other_card = "b00" if game.to_move == "a" else "a00"
    response = client.post(
        f"/games/{game.pk}/play/",
        {"cards": [other_card], "expected_version": game.version},
        HTTP_ACCEPT_LANGUAGE="es",
    )
    assert response.status_code == 400
    assert "Una de las cartas elegidas no está en tu mano." in response.content.decode()


@pytest.mark.parametrize("lang", TRANSLATED)
def test_the_key_strings_are_translated(lang):
    with translation.override(lang):
        assert translation.gettext("Your turn") == YOUR_TURN[lang]
        assert [ngettext("dwarf", "dwarves", n) for n in (1, 2, 5)] == DWARVES[lang]
        assert [type_label(kind) for kind in TYPES] == CARD_NAMES[lang]


@pytest.mark.parametrize(("lang", "domain"), CATALOGUES)
def test_no_catalogue_entry_is_empty_or_fuzzy(lang, domain):
    entries = _po_entries(lang, domain)
    assert len(entries) > {"django": 150, "djangojs": 4}[domain]
    for entry in entries:
        assert "fuzzy" not in entry.get("flags", set()), entry["msgid"]
        forms = entry["msgstr"] if isinstance(entry["msgstr"], list) else [entry["msgstr"]]
        assert all(form.strip() for form in forms), entry["msgid"]


@pytest.mark.parametrize(("lang", "domain"), CATALOGUES)
def test_every_translation_keeps_the_placeholders_of_its_original(lang, domain):
    for entry in _po_entries(lang, domain):
        wanted = _placeholders(entry["msgid"]) | _placeholders(entry.get("msgid_plural", ""))
        forms = entry["msgstr"] if isinstance(entry["msgstr"], list) else [entry["msgstr"]]
        for form in forms:
            assert _placeholders(form) == wanted, (entry["msgid"], form)


@pytest.mark.parametrize(("lang", "domain"), CATALOGUES)
def test_the_committed_mo_holds_exactly_what_the_po_says(lang, domain):
    """The site reads the compiled .mo, not the .po: a .po edited without compilemessages
    fails here."""
    with (LOCALES / lang / "LC_MESSAGES" / f"{domain}.mo").open("rb") as compiled:
        catalogue = gettext.GNUTranslations(compiled)
    nplurals = int(re.search(r"nplurals=(\d+)", catalogue.info()["plural-forms"])[1])  # type: ignore[index]
    entries = _po_entries(lang, domain)
    # Nothing in the .mo that the .po no longer has (besides the header).
    assert set(catalogue._catalog) - {""} == {  # type: ignore[attr-defined]
        (e["msgid"], i) if "msgid_plural" in e else e["msgid"]
        for e in entries
        for i in (range(nplurals) if "msgid_plural" in e else [0])
    }
    for entry in entries:
        if "msgid_plural" in entry:
            assert len(entry["msgstr"]) == nplurals, entry["msgid"]
            for n in range(200):
                form = entry["msgstr"][catalogue.plural(n)]  # type: ignore[attr-defined]
                assert catalogue.ngettext(entry["msgid"], entry["msgid_plural"], n) == form, entry["msgid"]
        else:
            assert catalogue.gettext(entry["msgid"]) == entry["msgstr"], entry["msgid"]


def _script_strings() -> set[str]:
    """The msgids the scripts ask gettext and ngettext for (their literal first arguments)."""
    found: set[str] = set()
    for script in SCRIPTS.glob("*.js"):
        text = script.read_text(encoding="utf-8")
        found |= set(re.findall(r'\b(?:gettext|ngettext)\(\s*"((?:[^"\\]|\\.)*)"', text))
    return found


def test_the_scripts_keep_no_words_of_their_own_and_ask_the_catalogue():
    turn = (SCRIPTS / "turn.js").read_text(encoding="utf-8")
    assert "Choose cards of one type." in _script_strings()
    for code, _name in settings.LANGUAGES:  # no table per language, as the script once had
        assert not re.search(rf"^\s+{code}: \{{", turn, re.MULTILINE), code


@pytest.mark.parametrize("lang", TRANSLATED)
def test_every_string_of_the_scripts_is_in_the_djangojs_catalogue(lang):
    """A string added to a script without makemessages -d djangojs would show in English."""
    assert _script_strings() <= {entry["msgid"] for entry in _po_entries(lang, "djangojs")}


@pytest.mark.parametrize(
    ("lang", "words"), [("de", "Wähle Karten einer Sorte."), ("uk", "Виберіть карти одного типу.")]
)
def test_the_javascript_catalogue_speaks_the_pages_language(client, lang, words):
    response = client.get("/jsi18n/", HTTP_ACCEPT_LANGUAGE=lang)
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/javascript")
    found = re.search(r"const newcatalog = (\{.*?\});\n", response.content.decode(), re.S)
    assert found is not None
    catalogue = json.loads(found[1])
    assert catalogue["Choose cards of one type."] == words
