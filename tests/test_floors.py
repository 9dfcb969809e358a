"""The floors hold: imports run downhill (engine, core, accounts, outbox, games, notifications,
dragonheart_site), the engine loads no framework, and no package's modules import in a cycle.
Each contract is shown to fail on an import planted against it in a copy of the code."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("engine", "core", "accounts", "outbox", "games", "notifications", "dragonheart_site")
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


def test_it_refuses_an_import_from_a_higher_floor(copy: Path) -> None:
    _plant(copy, "games/models.py", "from notifications import emails  # noqa")
    result = _lint(copy)
    assert result.returncode == 1
    assert "Floors: imports run downhill BROKEN" in result.stdout
    assert "games.models -> notifications.emails" in result.stdout


def test_it_refuses_the_outbox_importing_the_games_app(copy: Path) -> None:
    _plant(copy, "outbox/services.py", "from games.models import Game  # noqa")
    result = _lint(copy)
    assert result.returncode == 1
    assert "outbox.services -> games.models" in result.stdout


def test_it_refuses_django_in_the_engine(copy: Path) -> None:
    _plant(copy, "engine/cards.py", "import django  # noqa")
    result = _lint(copy)
    assert result.returncode == 1
    assert "The engine is pure: no Django, no Celery BROKEN" in result.stdout


def test_it_refuses_a_cycle_inside_a_package(copy: Path) -> None:
    _plant(copy, "games/models.py", "from games import services  # noqa")
    result = _lint(copy)
    assert result.returncode == 1
    assert "No import cycles between the modules of a package BROKEN" in result.stdout
