"""The floors hold: imports run downhill (engine, core, accounts, outbox, ratings, games,
players, notifications, dragonheart_site), the engine loads no framework, and no package's
modules import in a cycle. Each contract is shown to fail on an import planted against it
in a copy of the code."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = (
    "engine",
    "core",
    "accounts",
    "outbox",
    "ratings",
    "games",
    "players",
    "notifications",
    "dragonheart_site",
)
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")


def _lint(where: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(LINT_IMPORTS), "--no-cache"], cwd=where, capture_output=True, text=True, timeout=300
    )


@pytest.fixture
def copy(tmp_path: Path) -> Path:
    """The packages and pyproject.toml, copied where an import can be planted."""
    for name in PACKAGES:
        shutil.copytree(ROOT / name, tmp_path / name, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path)
    return tmp_path


def _plant(copy: Path, module: str, line: str) -> None:
    path = copy / module
    path.write_text(path.read_text() + f"\n{line}\n")


def test_it_keeps_every_contract() -> None:
    result = _lint(ROOT)
    assert result.returncode == 0, result.stdout
    assert "0 broken" in result.stdout


@pytest.mark.parametrize(
    ("module", "line", "said"),
    [
        pytest.param(
            "games/models.py",
            "from notifications import emails  # noqa",
            ["Floors: imports run downhill BROKEN", "games.models -> notifications.emails"],
            id="an import from a higher floor",
        ),
        pytest.param(
            "outbox/services.py",
            "from games.models import Game  # noqa",
            ["Floors: imports run downhill BROKEN", "outbox.services -> games.models"],
            id="the outbox importing the games app",
        ),
        pytest.param(
            "ratings/services.py",
            "from games.models import Game  # noqa",
            ["Floors: imports run downhill BROKEN", "ratings.services -> games.models"],
            id="the ratings importing the games app",
        ),
        pytest.param(
            "engine/cards.py",
            "import django  # noqa",
            ["The engine is pure: no Django, no Celery BROKEN"],
            id="django in the engine",
        ),
        pytest.param(
            "games/models.py",
            "from games import services  # noqa",
            ["No import cycles between the modules of a package BROKEN"],
            id="a cycle inside a package",
        ),
    ],
)
def test_it_refuses(copy: Path, module: str, line: str, said: list[str]) -> None:
    _plant(copy, module, line)
    result = _lint(copy)
    assert result.returncode == 1
    for words in said:
        assert words in result.stdout
