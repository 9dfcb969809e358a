"""One rule for the client's address, for every throttle keyed on it (API sign-up and token
creation, the sign-up page) and for the login page's lockout: REMOTE_ADDR when no proxy is
trusted (the embedded default), else the address the outermost of the NUM_PROXIES trusted
proxies saw, counted from the right of X-Forwarded-For. Whatever a client writes into that
header itself changes nothing."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from django.test import Client, RequestFactory
from rest_framework.test import APIClient
from rest_framework.throttling import ScopedRateThrottle

from accounts.throttling import FAILURES_ALLOWED
from tests.support.production import ROOT, production_env, run
from tests.support.world import PASSWORD

pytestmark = pytest.mark.processes  # starts processes of its own: not in scripts/test --quick

PROXY = "10.0.0.1"  # the address gunicorn sees behind one proxy
OTHER_PROXY = "10.0.0.2"  # the inner one of two


@pytest.fixture
def two_a_minute(monkeypatch):
    for scope in ("signup", "tokens"):
        monkeypatch.setitem(ScopedRateThrottle.THROTTLE_RATES, scope, "2/minute")
    return 2


@pytest.fixture
def proxies(settings) -> Callable[[int], None]:
    """Trust ``n`` proxies, as NUM_PROXIES=n in the environment would."""

    def trust(n: int) -> None:
        settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": n}

    return trust


def spoofed() -> Iterator[str]:
    """A different X-Forwarded-For value for every request (documentation addresses)."""
    n = 0
    while True:
        n += 1
        yield f"203.0.113.{n % 250 + 1}, 198.18.{n // 250}.{n % 250 + 1}"


def _sign_up(client: APIClient, n: int, **headers: Any) -> int:
    body = {"username": f"dora{n}", "password": PASSWORD}
    return client.post("/api/users/", body, format="json", **headers).status_code


def _ask_token(client: APIClient, **headers: Any) -> int:
    body = {"username": "alice", "password": "guess"}
    return client.post("/api/tokens/", body, format="json", **headers).status_code


def _sign_up_page(client: Client, n: int, **headers: Any) -> int:
    body = {"username": f"dora{n}", "password1": PASSWORD, "password2": PASSWORD}
    return client.post("/accounts/signup/", body, **headers).status_code


def _log_in(client: Client, password: str = "guess", **headers: Any) -> int:
    body = {"username": "alice", "password": password}
    return client.post("/accounts/login/", body, **headers).status_code


# --- No trusted proxy (the embedded default): X-Forwarded-For is the client's own words ----------


def test_signing_up_through_the_api_with_a_new_forwarded_for_each_time_is_throttled(world, two_a_minute):
    client, forged = APIClient(), spoofed()

    statuses = [_sign_up(client, n, HTTP_X_FORWARDED_FOR=next(forged)) for n in range(two_a_minute + 1)]

    assert statuses == [201] * two_a_minute + [429]


def test_asking_for_tokens_with_a_new_forwarded_for_each_time_is_throttled(world, two_a_minute):
    client, forged = APIClient(), spoofed()

    statuses = [_ask_token(client, HTTP_X_FORWARDED_FOR=next(forged)) for _ in range(two_a_minute + 1)]

    assert statuses == [401] * two_a_minute + [429]


def test_the_signup_page_with_a_new_forwarded_for_each_time_is_throttled(world, two_a_minute):
    client, forged = Client(), spoofed()

    statuses = [_sign_up_page(client, n, HTTP_X_FORWARDED_FOR=next(forged)) for n in range(two_a_minute + 1)]

    assert statuses == [302] * two_a_minute + [429]


def test_the_login_page_with_a_new_forwarded_for_each_time_is_locked(world):
    client, forged = Client(), spoofed()
    for _ in range(FAILURES_ALLOWED):
        assert _log_in(client, HTTP_X_FORWARDED_FOR=next(forged)) == 200

    assert _log_in(client, PASSWORD, HTTP_X_FORWARDED_FOR=next(forged)) == 429


# --- Behind trusted proxies: the address the outermost one saw ---------------------------------


def _behind_one_proxy(client_address: str, forged: str) -> dict[str, str]:
    """What gunicorn gets from a proxy that appended the address it was reached from."""
    return {"REMOTE_ADDR": PROXY, "HTTP_X_FORWARDED_FOR": f"{forged}, {client_address}"}


def _behind_two_proxies(client_address: str, forged: str) -> dict[str, str]:
    return {"REMOTE_ADDR": PROXY, "HTTP_X_FORWARDED_FOR": f"{forged}, {client_address}, {OTHER_PROXY}"}


@pytest.mark.parametrize(("n", "headers"), [(1, _behind_one_proxy), (2, _behind_two_proxies)])
def test_behind_proxies_two_clients_are_counted_apart_and_neither_can_step_around(
    world, two_a_minute, proxies, n, headers
):
    proxies(n)
    client, forged = APIClient(), spoofed()

    first = [_ask_token(client, **headers("198.51.100.7", next(forged))) for _ in range(two_a_minute + 1)]
    second = _ask_token(client, **headers("198.51.100.8", next(forged)))

    assert first == [401] * two_a_minute + [429]
    assert second == 401  # its own allowance, although it came through the same proxy


@pytest.mark.parametrize(("n", "headers"), [(1, _behind_one_proxy), (2, _behind_two_proxies)])
def test_behind_proxies_the_login_page_locks_out_one_client_not_everyone_behind_the_proxy(
    world, proxies, n, headers
):
    proxies(n)
    client, forged = Client(), spoofed()
    for _ in range(FAILURES_ALLOWED):
        assert _log_in(client, **headers("198.51.100.7", next(forged))) == 200

    assert _log_in(client, PASSWORD, **headers("198.51.100.7", next(forged))) == 429
    assert _log_in(client, PASSWORD, **headers("198.51.100.8", next(forged))) == 302


@pytest.mark.parametrize(
    ("n", "forwarded", "expected"),
    [
        (0, None, "192.0.2.9"),
        (0, "203.0.113.1", "192.0.2.9"),
        (1, None, "192.0.2.9"),  # the proxy sent none: the connection's own address
        (1, "203.0.113.1, 198.51.100.7", "198.51.100.7"),
        (1, "198.51.100.7", "198.51.100.7"),
        (2, "203.0.113.1, 198.51.100.7, 10.0.0.2", "198.51.100.7"),
        (2, " 203.0.113.1,198.51.100.7 , 10.0.0.2 ", "198.51.100.7"),
    ],
)
def test_the_client_address_is_the_one_n_hops_from_the_right(proxies, n, forwarded, expected):
    from core.throttling import client_address

    proxies(n)
    headers: dict[str, Any] = {"REMOTE_ADDR": "192.0.2.9"}
    if forwarded is not None:
        headers["HTTP_X_FORWARDED_FOR"] = forwarded

    assert client_address(RequestFactory().get("/", **headers)) == expected


# --- Where the number comes from ----------------------------------------------------------------


def _num_proxies_in_production(**env: str) -> Any:
    script = (
        "import json, django; django.setup(); from rest_framework.settings import api_settings; "
        "print(json.dumps(api_settings.NUM_PROXIES))"
    )
    done = run(["-c", script], production_env(**env))
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_the_number_of_trusted_proxies_comes_from_the_environment_and_defaults_to_none_trusted():
    assert _num_proxies_in_production() == 0
    assert _num_proxies_in_production(NUM_PROXIES="2") == 2


def test_env_example_documents_the_number_of_trusted_proxies():
    lines = (Path(ROOT) / ".env.example").read_text().splitlines()

    assert any(line.startswith("NUM_PROXIES=") for line in lines)
