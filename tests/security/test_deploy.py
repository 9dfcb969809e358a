"""Production settings: `manage.py check --deploy` finds nothing, secrets have no default, and
real responses under those settings carry HSTS and secure cookies."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.conf import settings
from django.test import Client, override_settings

from tests.support.production import HOST, SECURITY_SETTINGS, production_env, production_settings, run
from tests.support.world import PASSWORD, World, build_world

pytestmark = pytest.mark.processes  # starts processes of its own: not in scripts/test --quick

CHECK_DEPLOY = ["manage.py", "check", "--deploy", "--fail-level", "WARNING"]


def test_check_deploy_is_clean_with_production_settings():
    done = run(CHECK_DEPLOY, production_env())

    assert done.returncode == 0, done.stdout + done.stderr
    assert "System check identified no issues (0 silenced)." in done.stdout
    assert "WARNING" not in done.stderr


def test_check_deploy_does_catch_a_weak_secret_key():
    """The check above can fail: with a short key it reports security.W009."""
    done = run(CHECK_DEPLOY, production_env(SECRET_KEY="short"))

    assert done.returncode != 0
    assert "security.W009" in done.stderr


def test_production_refuses_to_start_without_a_secret_key():
    env = production_env()
    del env["SECRET_KEY"]

    done = run(["manage.py", "check"], env)

    assert done.returncode != 0
    assert "SECRET_KEY" in done.stderr


@pytest.fixture(scope="module")
def production() -> dict[str, Any]:
    values = production_settings()
    assert values["DEBUG"] is False
    return values


@pytest.fixture
def world(db, production) -> Iterator[World]:
    # The same middleware in this process as in production, then production's values of
    # everything it reads.
    assert production["MIDDLEWARE"] == settings.MIDDLEWARE
    values = {
        name: production[name] for name in SECURITY_SETTINGS if name not in ("DEBUG", "MIDDLEWARE", "LOGGING")
    }
    values["SECURE_PROXY_SSL_HEADER"] = tuple(values["SECURE_PROXY_SSL_HEADER"])
    with override_settings(**values):
        yield build_world()


def _browser() -> Client:
    return Client(HTTP_HOST=HOST)


def test_plain_http_is_sent_to_https(world):
    response = _browser().get("/accounts/login/")

    assert response.status_code == 301
    assert response["Location"] == f"https://{HOST}/accounts/login/"


@pytest.mark.parametrize("url", ["/accounts/login/", "/api/health/"])
def test_https_responses_carry_hsts(world, url):
    response = _browser().get(url, secure=True)

    assert response.status_code == 200
    assert response["Strict-Transport-Security"] == "max-age=31536000; includeSubDomains; preload"


def test_https_behind_the_proxy_counts_as_https(world):
    response = _browser().get("/accounts/login/", HTTP_X_FORWARDED_PROTO="https")

    assert response.status_code == 200
    assert "Strict-Transport-Security" in response


def test_the_session_and_csrf_cookies_are_secure(world):
    client = _browser()
    page = client.get("/accounts/login/", secure=True)

    client.post("/accounts/login/", {"username": "alice", "password": PASSWORD}, secure=True)

    csrf, session = page.cookies["csrftoken"], client.cookies["sessionid"]
    assert (csrf["secure"], csrf["samesite"]) == (True, "Lax")
    assert (session["secure"], session["httponly"], session["samesite"]) == (True, True, "Lax")
