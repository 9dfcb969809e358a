"""The engine is pure Python on the standard library: importing it loads nothing else."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# Run in a fresh interpreter: this test process has pytest, hypothesis and more loaded.
PROBE = """
import json, sys
before = set(sys.modules)
import engine, engine.bots, engine.record, engine.visibility, engine.__main__
loaded = sorted(set(sys.modules) - before)
print(json.dumps({"loaded": loaded, "all": sorted(sys.modules), "engine": engine.__file__}))
"""


def imports() -> dict[str, list[str]]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE], cwd=ROOT, capture_output=True, text=True, timeout=60, check=True
    )
    result: dict[str, list[str]] = json.loads(done.stdout)
    return result


def test_the_probe_imports_this_checkouts_engine() -> None:
    assert Path(str(imports()["engine"])).resolve() == ROOT / "engine" / "__init__.py"


def test_importing_the_engine_loads_no_django() -> None:
    modules = imports()["all"]
    assert "engine.visibility" in modules
    assert not [name for name in modules if name == "django" or name.startswith("django.")]


def test_importing_the_engine_loads_only_the_standard_library_and_the_engine() -> None:
    loaded = imports()["loaded"]
    assert "engine.__main__" in loaded
    outside = [
        name
        for name in loaded
        if name.split(".")[0] not in sys.stdlib_module_names and name.split(".")[0] != "engine"
    ]
    assert outside == []
