"""What settings.py needs to read the deployment's environment (docs/deploy.md): the variables a
production process may not go without, and the Redis addresses derived from REDIS_URL."""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit

import environ
from django.core.exceptions import ImproperlyConfigured

env = environ.Env()

# Why each variable may not be missing when DEBUG is off: what the process would quietly do
# without it, a node on its own that no other node sees.
WITHOUT = {
    "DATABASE_URL": "this process would keep its games in a SQLite file of its own",
    "REDIS_URL": "this process would run every task inside its requests, with no worker, beat or cache",
}


def required(name: str, *, debug: bool, default: str) -> str:
    """The variable's value; with DEBUG on, ``default`` stands in for a missing one."""
    value: str = env.str(name, default="")
    if value:
        return value
    if debug:
        return default
    raise ImproperlyConfigured(
        f"{name} is not set. With DEBUG=0 it is required: without it {WITHOUT[name]}. "
        "Set it (docs/deploy.md lists every variable), or DEBUG=1 for a local run."
    )


def host_port(item: str) -> tuple[str, int]:
    """``host:port`` (a Sentinel's address, as REDIS_SENTINELS lists them)."""
    host, sep, port = item.strip().rpartition(":")
    if not sep or not host or not port.isdigit():
        raise ImproperlyConfigured(f"REDIS_SENTINELS: {item!r} is not host:port.")
    return host.strip("[]"), int(port)


def _database(url: str) -> int:
    path = urlsplit(url).path.strip("/")
    if path and not path.isdigit():
        raise ImproperlyConfigured(f"{url.split('@')[-1]!r}: a Redis URL's path is a database number.")
    return int(path or 0)


def next_database(redis_url: str) -> str:
    """The broker's default URL: REDIS_URL's server, its database number plus one (the broker
    and the cache apart, so an evicting cache policy or a FLUSHDB never reaches queued tasks)."""
    number = _database(redis_url) + 1
    if number > 15:
        raise ImproperlyConfigured(
            "REDIS_URL uses database 15: set REDIS_BROKER_URL to a database of its own."
        )
    parts = urlsplit(redis_url)
    return urlunsplit((parts.scheme, parts.netloc, f"/{number}", parts.query, parts.fragment))


def _credentials(url: str) -> str:
    parts = urlsplit(url)
    if parts.password is None:
        return ""
    return f"{parts.username or ''}:{parts.password}@"


def sentinel_service_url(redis_url: str, master: str) -> str:
    """django-redis' Sentinel location: the master's name in place of the host."""
    return f"redis://{_credentials(redis_url)}{master}/{_database(redis_url)}"


def sentinel_broker_url(broker_url: str, sentinels: list[tuple[str, int]]) -> str:
    """kombu's Sentinel URL: one ``sentinel://`` address per Sentinel, separated by ``;``,
    each with the broker's credentials and database."""
    auth, number = _credentials(broker_url), _database(broker_url)
    return ";".join(f"sentinel://{auth}{host}:{port}/{number}" for host, port in sentinels)
