"""The Docker image holds what the site needs: its build context is rebuilt from the
Dockerfile's COPY lines (no Docker daemon needed) and the site is started from it alone, with
the installed libraries but without this checkout's own packages on the path."""

from __future__ import annotations

import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from tests.support.production import ROOT, production_env

pytestmark = pytest.mark.processes  # starts processes of its own: not in scripts/test --quick

# What the image's server process reads besides Python code.
SCRIPT = """
import django
django.setup()
from pathlib import Path
from django.conf import settings
from django.urls import resolve
needed = [*settings.LOCALE_PATHS, *settings.STATICFILES_DIRS, *settings.TEMPLATES[0]["DIRS"]]
missing = [str(p) for p in needed if not Path(p).is_dir()]
assert not missing, missing
assert Path("gunicorn.conf.py").is_file(), "gunicorn.conf.py"
assert list(Path(settings.LOCALE_PATHS[0]).glob("*/LC_MESSAGES/django.mo")), "compiled catalogues"
resolve("/api/health/")
print("ok")
"""


def _copies(dockerfile: Path) -> list[tuple[str, str]]:
    copies = []
    for line in dockerfile.read_text().splitlines():
        words = line.split()
        if words[:1] == ["COPY"]:
            assert not any(w.startswith("--") for w in words), "a COPY with flags: teach this test"
            copies += [(source, words[-1]) for source in words[1:-1]]
    return copies


@pytest.fixture(scope="module")
def image(tmp_path_factory: pytest.TempPathFactory) -> Path:
    app = tmp_path_factory.mktemp("app")
    for source, target in _copies(ROOT / "Dockerfile"):
        dest = app / target / Path(source).name if target.endswith("/") else app / target
        if (ROOT / source).is_dir():
            shutil.copytree(ROOT / source, dest, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(ROOT / source, dest)
    return app


def _run_in(app: Path, args: list[str], **env: str) -> subprocess.CompletedProcess[str]:
    # -S: no .pth files, so this checkout's editable install cannot lend the image what it
    # lacks; the libraries come from site-packages, given by hand.
    return subprocess.run(
        [sys.executable, "-S", *args],
        cwd=app,
        env={**production_env(**env), "PYTHONPATH": f"{app}:{sysconfig.get_paths()['purelib']}"},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_copies_are_read_from_the_dockerfile():
    assert ("games", "games") in _copies(ROOT / "Dockerfile")


def test_the_site_starts_from_what_the_image_holds(image):
    done = _run_in(image, ["manage.py", "check", "--deploy", "--fail-level", "ERROR"])
    assert done.returncode == 0, done.stderr

    done = _run_in(image, ["-c", SCRIPT])
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"


def test_the_images_collectstatic_step_runs(image):
    done = _run_in(image, ["manage.py", "collectstatic", "--noinput", "-v0"])

    assert done.returncode == 0, done.stderr
    assert (image / "staticfiles" / "staticfiles.json").is_file()
