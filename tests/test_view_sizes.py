"""Views stay small: no function that answers a request is longer than 40 lines, whether a
page's view, an API method or a helper handed the request; a longer one is split into a
context builder (games/table.py, games/history_table.py) or a helper."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.support.source import parse

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("core", "accounts", "outbox", "ratings", "games", "players", "notifications", "dragonheart_site")
MOST = 40


def _is_view(node: ast.FunctionDef | ast.AsyncFunctionDef, path: Path) -> bool:
    """A function of a views module (views.py, or a module of a views package), or any
    function whose first argument (after self) is the request."""
    arguments = [a.arg for a in node.args.posonlyargs + node.args.args]
    if arguments[:1] in (["self"], ["cls"]):
        arguments = arguments[1:]
    return "views" in path.parts or path.name == "views.py" or arguments[:1] == ["request"]


def _too_long(path: Path, source: str) -> list[str]:
    """Each view of ``source`` longer than MOST lines, from its ``def`` to its last line."""
    found = []
    for node in ast.walk(parse(source)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and _is_view(node, path):
            lines = (node.end_lineno or node.lineno) - node.lineno + 1
            if lines > MOST:
                found.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name} ({lines} lines)")
    return found


def _sources() -> list[Path]:
    return [
        path
        for package in PACKAGES
        for path in sorted((ROOT / package).rglob("*.py"))
        if "migrations" not in path.parts
    ]


def test_no_view_is_longer_than_40_lines() -> None:
    too_long = [found for path in _sources() for found in _too_long(path, path.read_text())]
    assert too_long == []


def test_it_finds_views_where_they_are() -> None:
    # The views this project has: pages, API methods, the generated game actions.
    views = {
        node.name
        for path in _sources()
        for node in ast.walk(parse(path.read_text()))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and _is_view(node, path)
    }
    assert {"game_history", "game_page", "home", "profile", "player_page", "get", "post", "view"} <= views


def _view_of(lines: int) -> str:
    body = "".join(f"    x{i} = {i}\n" for i in range(lines - 2))
    return f"def game_page(request, game_id):\n{body}    return x0\n"


def test_it_counts_a_view_of_41_lines_as_too_long_and_one_of_40_as_not() -> None:
    where = ROOT / "games" / "views" / "table.py"
    assert _too_long(where, _view_of(MOST + 1)) == ["games/views/table.py:1 game_page (41 lines)"]
    assert _too_long(where, _view_of(MOST)) == []
