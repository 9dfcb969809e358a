"""The site in English, German, Spanish, French and Ukrainian: pages follow Accept-Language and
the switcher; every string the templates, modules and scripts mark for translation, as
makemessages finds it, is in every catalogue (the pages' django.po and the scripts' djangojs.po),
translated, with its placeholders, and compiled; and the words Django's own forms bring to our
pages (labels, password rules, refusals) are in the page's language too."""

from __future__ import annotations

import ast
import contextlib
import gettext
import json
import re
import shutil
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.core.management import call_command
from django.test import override_settings
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
# What makemessages leaves out, as the README runs it: the venv, the tests, the pure engine (its
# refusals are English; games/errors.py says them in the page's language), the collected static
# files, and the catalogues themselves (so that its .pot is written where the test says).
NOT_THE_PROJECT = [".venv", "tests", "engine", "staticfiles", "locale"]

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
    return _entries((LOCALES / lang / "LC_MESSAGES" / f"{domain}.po").read_text(encoding="utf-8"))


def _entries(text: str) -> list[dict[str, Any]]:
    """The entries of a .po (or .pot) file: msgctxt when there is one, msgid, msgid_plural,
    msgstr (one string, or a list of plural forms), flags and where (the #: references); the
    header entry and obsolete (#~) entries left out. Enough of the format for Django's
    catalogues."""
    entries: list[dict[str, Any]] = []
    entry: dict[str, Any] = {}
    field: tuple[str, int | None] | None = None
    for line in [*text.splitlines(), ""]:
        if not line.strip():
            if "msgid" in entry:
                entries.append(entry)
            entry, field = {}, None
        elif line.startswith("#,"):
            entry.setdefault("flags", set()).update(f.strip() for f in line[2:].split(","))
        elif line.startswith("#:"):
            entry.setdefault("where", []).extend(line[2:].split())
        elif line.startswith("#"):
            continue
        elif line.startswith('"'):
            assert field is not None
            _store(entry, field, ast.literal_eval(line), append=True)
        else:
            keyword, value = line.split(" ", 1)
            match = re.fullmatch(r"(msgctxt|msgid|msgid_plural|msgstr)(?:\[(\d+)\])?", keyword)
            assert match, line
            field = (match[1], int(match[2]) if match[2] else None)
            _store(entry, field, ast.literal_eval(value), append=False)
    return [e for e in entries if e["msgid"]]


def _key(entry: dict[str, Any]) -> str:
    """An entry's key in a catalogue, as gettext stores it: the msgid, after its context if any."""
    return f"{entry['msgctxt']}\x04{entry['msgid']}" if "msgctxt" in entry else entry["msgid"]


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


def _marked_strings(domain: str, directory: Path) -> list[dict[str, Any]]:
    """Every string the project's files mark for translation in one domain, found by
    makemessages itself (templates through Django's templatize, then xgettext with Django's
    keywords), as the entries of the .pot it keeps.

    It runs in a copy of the project's sources under `directory`: makemessages writes each
    template, templatized, as a .py file beside it, which two test runs at once (scripts/test's
    two passes) would each delete under the other; and in the copy there is no locale/ that
    it would write its .pot into. The only locale path holds no language, so --all writes no
    catalogue."""
    sources, pots = directory / "sources", directory / "pots"
    shutil.copytree(settings.BASE_DIR, sources, ignore=_not_translatable, copy_function=shutil.copyfile)
    pots.mkdir()
    with override_settings(LOCALE_PATHS=[str(pots)]), contextlib.chdir(sources):
        call_command(
            "makemessages",
            domain=domain,
            all=True,
            keep_pot=True,
            ignore_patterns=[*NOT_THE_PROJECT],  # a copy: makemessages adds to the list it is given
            verbosity=0,
        )
    return _entries((pots / f"{domain}.pot").read_text(encoding="utf-8"))


def _not_translatable(directory: str, names: list[str]) -> set[str]:
    """What the copy leaves out: what makemessages ignores, and every file it does not read."""
    return {
        name
        for name in names
        if name in NOT_THE_PROJECT
        or name.startswith(".")
        or name == "__pycache__"
        or (not Path(directory, name).is_dir() and Path(name).suffix not in {".py", ".html", ".txt", ".js"})
    }


def _missing(lang: str, domain: str, marked: list[dict[str, Any]]) -> list[str]:
    catalogue = {_key(entry): entry for entry in _po_entries(lang, domain)}
    return [
        f"{lang} {domain}: {wanted['msgid']!r} ({' '.join(wanted.get('where', []))})"
        for wanted in marked
        if _key(wanted) not in catalogue
        or catalogue[_key(wanted)].get("msgid_plural") != wanted.get("msgid_plural")
    ]


@pytest.mark.parametrize("domain", DOMAINS)
def test_every_string_marked_for_translation_is_in_every_catalogue(domain, tmp_path):
    """A string marked in a template, a module or a script that makemessages never brought
    into a catalogue shows in English on every page; an entry that is there but empty or
    fuzzy is the test above's."""
    marked = _marked_strings(domain, tmp_path)
    assert len(marked) > {"django": 150, "djangojs": 4}[domain]
    missing = [line for lang in TRANSLATED for line in _missing(lang, domain, marked)]
    assert not missing, "run makemessages and translate:\n" + "\n".join(missing)


class _ShownText(HTMLParser):
    """The sentences a page's <main> shows a person: its text, and the attributes read out or
    shown in place of text."""

    READ = {"placeholder", "title", "aria-label", "alt"}

    def __init__(self) -> None:
        super().__init__()
        self.inside = 0
        self.shown: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.inside += tag == "main"
        if self.inside:
            self.shown.update((value or "").strip() for name, value in attrs if name in self.READ)

    def handle_endtag(self, tag: str) -> None:
        self.inside -= tag == "main"

    def handle_data(self, data: str) -> None:
        if self.inside:
            self.shown.add(" ".join(data.split()))


def _shown(response: Any) -> set[str]:
    parser = _ShownText()
    parser.feed(response.content.decode())
    return {text for text in parser.shown if re.search(r"[^\W\d_]{2}", text)}


# Pages whose words are partly Django's own (its auth forms' labels, the password validators'
# rules, the login form's refusal), which come from the catalogues Django ships for each of our
# languages unless ours say otherwise: each page is asked in English and in the language, and
# no sentence of the English one is left on the other.
DJANGOS_OWN: dict[str, tuple[str, dict[str, str] | None]] = {
    "sign-up refused": (
        "/accounts/signup/",
        {"username": "al ice", "password1": "1234", "password2": "1234"},
    ),
    "sign-up mismatch": ("/accounts/signup/", {"username": "zoe", "password1": "a-Long-1", "password2": "x"}),
    "login refused": ("/accounts/login/", {"username": "nobody", "password": "wrong"}),
    "password reset": ("/accounts/password_reset/", None),
}


def _ask(client: Any, page: str, lang: str) -> set[str]:
    path, data = DJANGOS_OWN[page]
    if data is None:
        response = client.get(path, HTTP_ACCEPT_LANGUAGE=lang)
    else:
        response = client.post(path, data, HTTP_ACCEPT_LANGUAGE=lang)
    assert response.status_code == 200
    return _shown(response)


@pytest.mark.parametrize("lang", TRANSLATED)
@pytest.mark.parametrize("page", DJANGOS_OWN)
def test_the_words_djangos_own_forms_bring_to_a_page_are_in_its_language(db, client, lang, page):
    english = _ask(client, page, "en")
    assert len(english) > 3
    assert not english & _ask(client, page, lang)


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
        (_key(e), i) if "msgid_plural" in e else _key(e)
        for e in entries
        for i in (range(nplurals) if "msgid_plural" in e else [0])
    }
    for entry in entries:
        if "msgid_plural" in entry:
            assert len(entry["msgstr"]) == nplurals, entry["msgid"]
            for n in range(200):
                form = entry["msgstr"][catalogue.plural(n)]  # type: ignore[attr-defined]
                assert catalogue._catalog[(_key(entry), catalogue.plural(n))] == form, entry["msgid"]  # type: ignore[attr-defined]
        else:
            assert catalogue._catalog[_key(entry)] == entry["msgstr"], entry["msgid"]  # type: ignore[attr-defined]


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
