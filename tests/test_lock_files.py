"""The lock files pin every package, the transitive ones too: they hold pyproject.toml's own
pins, agree with each other, say how they are regenerated, and are what this venv runs."""

from __future__ import annotations

import re
import tomllib
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[1]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
RUNTIME = PROJECT["dependencies"]
DEV = [*RUNTIME, *PROJECT["optional-dependencies"]["dev"]]
LOCKS = {"requirements.lock": RUNTIME, "requirements-dev.lock": DEV}


def _pins(lock: str) -> dict[str, str]:
    """name -> version of each line ``name==version`` of a lock file."""
    text = (ROOT / lock).read_text()
    return {canonicalize_name(m[1]): m[2] for m in re.finditer(r"^([\w.-]+)==(\S+)", text, re.MULTILINE)}


def _direct(requirements: list[str]) -> dict[str, str]:
    pins: dict[str, str] = {}
    for line in requirements:
        requirement = Requirement(line)
        (spec,) = requirement.specifier  # pyproject pins each direct dependency exactly
        assert spec.operator == "==", line
        pins[canonicalize_name(requirement.name)] = spec.version
    return pins


@pytest.mark.parametrize(("lock", "requirements"), LOCKS.items())
def test_each_lock_pins_pyprojects_own_versions(lock, requirements):
    pins = _pins(lock)
    assert {name: pins.get(name) for name in _direct(requirements)} == _direct(requirements)


def test_the_runtime_lock_is_the_dev_locks_runtime_part():
    dev = _pins("requirements-dev.lock")
    runtime = _pins("requirements.lock")
    assert {name: dev.get(name) for name in runtime} == runtime


@pytest.mark.parametrize("lock", LOCKS)
def test_each_lock_says_how_to_regenerate_it(lock):
    head = (ROOT / lock).read_text().split("\n\n", 1)[0]
    assert re.search(rf"^#    pip-compile .*--output-file={re.escape(lock)} .*pyproject\.toml$", head, re.M)
    assert ("--extra=dev" in head) == (lock == "requirements-dev.lock")


def test_this_venv_runs_the_dev_locks_versions():
    installed = {name: _installed(name) for name in _pins("requirements-dev.lock")}
    assert installed == _pins("requirements-dev.lock")


def _installed(name: str) -> str | None:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None
