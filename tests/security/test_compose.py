"""The deployments as written keep the promises docs/deploy.md makes of them: docker-compose.yml
(one machine), docker-compose.cluster.yml (many) and the Dockerfile, read as files. Docker is not
here to run `docker compose config`; .ci/run validates both compose files against the compose
schema, and this reads what a schema cannot: who waits for whom, which process gets the
signals, what the load balancer checks, which requests it sends to the stream service, and
where every process finds PostgreSQL and Redis."""

from __future__ import annotations

import json
import re
import runpy
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
import yaml
from django.conf import settings
from django.urls import Resolver404, resolve
from gunicorn.config import Config
from gunicorn.util import load_class
from uvicorn_worker import UvicornWorker  # type: ignore[import-untyped]

from tests.support.production import ROOT

SINGLE = ROOT / "docker-compose.yml"
CLUSTER = ROOT / "docker-compose.cluster.yml"
HAPROXY = ROOT / "deploy" / "haproxy" / "haproxy.cfg"
REDIS_CONF = ROOT / "deploy" / "redis" / "redis.conf"
# The readiness route (CONTRACT: 200 only when the node reaches its database and Redis and is
# not draining); liveness stays /api/health/.
READY = "/api/health/ready/"
SHELLS = {"sh", "bash", "/bin/sh", "/bin/bash"}
# Redis policies that never evict a key without a TTL (the broker's keys have none).
BROKER_SAFE_POLICIES = {"noeviction", "volatile-lru", "volatile-lfu", "volatile-random", "volatile-ttl"}
# The contract's longest silence on a stream (issue 27: a heartbeat at least every 15 s).
STREAM_SILENCE_SECONDS = 15
STREAM_VIEWS = {"api-stream", "api-game-stream"}
# Paths the load balancer must tell apart: the streams' and their near neighbours.
GAME = "Ab-_12cd34EF"
PATHS = [
    "/api/stream/",
    f"/api/games/{GAME}/stream/",
    "/api/stream",
    "/api/streams/",
    "/api/games/",
    f"/api/games/{GAME}/",
    f"/api/games/{GAME}/events/",
    f"/api/games/{GAME}/stream/more/",
    "/api/games//stream/",
    f"/games/{GAME}/stream/",
    f"/api/games/{GAME}/plays/",
    "/api/health/ready/",
    "/",
]

Service = dict[str, Any]


def _services(path: Path) -> dict[str, Service]:
    services: dict[str, Service] = yaml.safe_load(path.read_text())["services"]
    return services


def _app_services(path: Path) -> dict[str, Service]:
    """The services that run the site's image (web, workers, beats, relays, inbound, migrate)."""
    return {name: s for name, s in _services(path).items() if s.get("image") == "dragonheart"}


def _starts_its_process(command: object) -> bool:
    """An exec-form list whose first word is the process itself, or a shell whose script ends
    by exec-ing it: either way the process is PID 1 and SIGTERM reaches it."""
    if not isinstance(command, list) or not command:
        return False
    if command[0] not in SHELLS:
        return True
    last_step = re.split(r"&&|;|\n", command[-1])[-1].strip()
    return last_step.startswith("exec ")


def _named(services: dict[str, Service], *words: str) -> list[str]:
    """The services whose command holds these words, in this order, side by side."""
    found = []
    for name, service in services.items():
        command = service.get("command", [])
        if any(command[i : i + len(words)] == list(words) for i in range(len(command))):
            found.append(name)
    return found


def _seconds(duration: str) -> float:
    """A compose duration ("45s", "2m", "1m30s") in seconds."""
    units = {"h": 3600, "m": 60, "s": 1, "ms": 0.001}
    parts = re.findall(r"(\d+(?:\.\d+)?)(ms|h|m|s)", duration)
    assert parts, duration
    assert "".join(n + u for n, u in parts) == duration, duration
    return sum(float(n) * units[u] for n, u in parts)


def _haproxy_sections(text: str) -> dict[str, list[list[str]]]:
    """Each section's header ("backend web") and its lines, split into words, comments left out."""
    sections: dict[str, list[list[str]]] = {}
    current = ""
    for line in text.splitlines():
        words = line.split("#", 1)[0].split()
        if not words:
            continue
        if not line[0].isspace():
            current = " ".join(words)
            sections[current] = []
        else:
            sections[current].append(words)
    return sections


def _host(url: str) -> str:
    return urlsplit(url).hostname or ""


def _haproxy_config(path: Path) -> Path:
    """The file the compose file's HAProxy reads: its ``-f``, or the image's default, in the
    directory mounted over the image's."""
    service = _services(path)["haproxy"]
    source, target = str(service["volumes"][0]).split(":")[:2]
    command = service.get("command", [])
    inside = command[command.index("-f") + 1] if "-f" in command else f"{target}/haproxy.cfg"
    assert inside.startswith(f"{target}/"), inside
    return ROOT / source / inside.removeprefix(f"{target}/")


def _backend_for(sections: dict[str, list[list[str]]], path: str) -> str:
    """The backend ``frontend http`` sends a GET of ``path`` to. Reads only the forms these
    files use (``acl NAME path|path_reg VALUE``, ``use_backend NAME if ACL``): any other
    fails here, to be taught to this test."""
    frontend = sections["frontend http"]
    acls: dict[str, bool] = {}
    for words in frontend:
        if words[0] == "acl":
            name, kind, value = words[1:]
            assert kind in ("path", "path_reg"), words
            hit = path == value if kind == "path" else re.search(value, path) is not None
            acls[name] = acls.get(name, False) or hit
    for words in frontend:
        if words[0] == "use_backend":
            backend, condition = words[1], words[2:]
            assert condition[0] == "if", words
            assert len(condition) == 2, words
            if acls[condition[1]]:
                return backend
    return next(words[1] for words in frontend if words[0] == "default_backend")


def _is_stream_view(path: str) -> bool:
    try:
        return resolve(path).url_name in STREAM_VIEWS
    except Resolver404:
        return False


@pytest.mark.parametrize("path", [SINGLE, CLUSTER], ids=["one-machine", "cluster"])
def test_every_command_starts_its_process_so_that_signals_reach_it(path):
    commands = {name: s["command"] for name, s in _services(path).items() if "command" in s}

    assert {name: c for name, c in commands.items() if not _starts_its_process(c)} == {}
    assert set(_app_services(path)) <= set(commands)


def test_the_exec_check_catches_a_shell_that_keeps_its_process_as_a_child():
    assert not _starts_its_process(["sh", "-c", "python manage.py migrate && gunicorn dragonheart_site.wsgi"])
    assert not _starts_its_process("gunicorn dragonheart_site.wsgi")
    assert _starts_its_process(["sh", "-c", "cp a b; exec redis-server b"])


def test_the_images_command_is_exec_form():
    lines = (ROOT / "Dockerfile").read_text().splitlines()
    cmds = [line.removeprefix("CMD").strip() for line in lines if line.startswith("CMD")]

    assert len(cmds) == 1
    assert json.loads(cmds[0])[0] == "gunicorn"
    assert not any(line.startswith("ENTRYPOINT") for line in lines)


@pytest.mark.parametrize("path", [SINGLE, CLUSTER], ids=["one-machine", "cluster"])
def test_migrate_runs_once_and_every_other_app_service_waits_for_it(path):
    apps = _app_services(path)
    migrate = apps.pop("migrate")

    assert migrate["command"] == ["python", "manage.py", "migrate", "--noinput"]
    assert migrate["restart"] == "no"
    for name, service in apps.items():
        assert service["depends_on"]["migrate"] == {"condition": "service_completed_successfully"}, name
        assert "migrate" not in service["command"], name


@pytest.mark.parametrize("path", [SINGLE, CLUSTER], ids=["one-machine", "cluster"])
def test_the_web_nodes_are_healthy_only_when_ready_and_stop_after_their_drain(path):
    apps = _app_services(path)
    webs = _named(apps, "gunicorn")
    gunicorn = runpy.run_path(str(ROOT / "gunicorn.conf.py"))
    graceful = gunicorn.get("graceful_timeout", Config().graceful_timeout)

    assert webs
    for name in webs:
        service = apps[name]
        drain = float(service["environment"]["DRAIN_SECONDS"])
        assert READY in " ".join(service["healthcheck"]["test"]), name
        assert _seconds(service["stop_grace_period"]) > drain + graceful, name


@pytest.mark.parametrize("path", [SINGLE, CLUSTER], ids=["one-machine", "cluster"])
def test_reviews_have_workers_of_their_own_and_workers_outlast_an_smtp_timeout(path):
    apps = _app_services(path)
    default, reviews = _named(apps, "-Q", "celery"), _named(apps, "-Q", "reviews")

    assert default
    assert reviews
    assert not set(default) & set(reviews)
    for name in default + reviews:
        assert _seconds(apps[name]["stop_grace_period"]) >= 2 * settings.EMAIL_TIMEOUT, name


def test_the_cluster_runs_two_or_more_of_every_background_process():
    apps = _app_services(CLUSTER)

    assert len(_named(apps, "-Q", "celery")) >= 2
    assert len(_named(apps, "-Q", "reviews")) >= 1
    assert len(_named(apps, "beat")) >= 2
    assert len(_named(apps, "relay_outbox")) >= 2
    assert len(_named(apps, "inbound_smtp")) >= 2


def test_the_cluster_has_three_web_nodes_behind_the_load_balancer_checked_on_readiness():
    services = _services(CLUSTER)
    webs = _named(_app_services(CLUSTER), "gunicorn", "dragonheart_site.wsgi")
    sections = _haproxy_sections(HAPROXY.read_text())
    backend = sections["backend web"]
    servers = [words for words in backend if words[0] == "server"]
    check = next(words for words in backend if words[:2] == ["http-check", "send"])

    assert len(webs) == 3
    assert sorted(words[2] for words in servers) == sorted(f"{name}:8000" for name in webs)
    assert all("check" in words for words in servers)
    assert ["option", "httpchk"] in backend
    assert check[check.index("uri") + 1] == READY
    host = check[check.index("Host") + 1]
    assert all(host in services[name]["environment"]["ALLOWED_HOSTS"].split(",") for name in webs)
    assert "./deploy/haproxy:/usr/local/etc/haproxy:ro" in services["haproxy"]["volumes"]


def test_the_load_balancer_retries_elsewhere_and_tells_the_nodes_the_clients_address():
    sections = _haproxy_sections(HAPROXY.read_text())
    lines = sections["frontend http"] + sections["backend web"]

    assert ["option", "forwardfor"] in lines
    assert ["option", "redispatch"] in lines
    assert ["retry-on", "conn-failure", "empty-response", "response-timeout"] in lines
    # One proxy appends the address: the nodes trust exactly one.
    assert {s["environment"]["NUM_PROXIES"] for s in _app_services(CLUSTER).values()} == {"1"}


def test_every_cluster_process_finds_postgresql_and_redis_by_the_contract():
    services = _services(CLUSTER)
    sentinels = {name for name, s in services.items() if "--sentinel" in " ".join(s.get("command", []))}

    assert len(sentinels) == 3
    for name, service in _app_services(CLUSTER).items():
        env = service["environment"]
        assert _host(env["DATABASE_DIRECT_URL"]) == "db", name
        assert _host(env["DATABASE_REPLICA_URL"]) == "db-replica", name
        assert {entry.split(":")[0] for entry in env["REDIS_SENTINELS"].split(",")} == sentinels, name
        assert env["REDIS_SENTINEL_MASTER"], name
        assert env["REDIS_URL"], name
        if name != "migrate":  # migrate's advisory lock needs a session: the primary itself
            assert _host(env["DATABASE_URL"]) == "pgbouncer", name
            assert env["PG_PREPARED_STATEMENTS"] == "0", name
    assert {"db", "db-replica", "pgbouncer", "redis", "redis-replica"} <= set(services)


def test_the_brokers_redis_never_evicts_a_queued_task():
    single = _services(SINGLE)["redis"]["command"]
    lines = [line for line in REDIS_CONF.read_text().splitlines() if line and not line.startswith("#")]
    cluster = dict(line.split(None, 1) for line in lines)

    assert single[single.index("--maxmemory-policy") + 1] in BROKER_SAFE_POLICIES
    assert cluster["maxmemory-policy"] in BROKER_SAFE_POLICIES


@pytest.mark.parametrize("path", [SINGLE, CLUSTER], ids=lambda p: p.name)
def test_every_process_of_the_site_gets_the_push_keys_the_operator_gives(path):
    """Workers send the pushes and web nodes hand browsers the public key: all must see them."""
    for name, service in _app_services(path).items():
        environment = service.get("environment", {})
        for key in ("VAPID_PRIVATE_KEY", "VAPID_PUBLIC_KEY", "VAPID_SUBJECT"):
            assert environment.get(key) == f"${{{key}:-}}", f"{path.name}: {name} lacks {key}"


# --- The stream service ---------------------------------------------------------------------


@pytest.mark.parametrize("path", [SINGLE, CLUSTER], ids=["one-machine", "cluster"])
def test_the_streams_have_a_service_on_uvicorn_workers_with_the_sites_environment(path):
    apps = _app_services(path)
    webs = _named(apps, "gunicorn", "dragonheart_site.wsgi")
    streams = _named(apps, "gunicorn", "dragonheart_site.asgi")

    assert streams
    assert len(streams) >= (2 if path == CLUSTER else 1)
    for name in streams:
        service = apps[name]
        [worker] = [w.removeprefix("--worker-class=") for w in service["command"] if "worker-class" in w]
        assert issubclass(load_class(worker), UvicornWorker), name
        assert service["environment"] == apps[webs[0]]["environment"], name
        # A descriptor a stream: thousands of them, not the default 1,024.
        assert service["ulimits"]["nofile"]["soft"] >= 10_000, name
    # web keeps gunicorn.conf.py's sync workers.
    assert not any("worker-class" in " ".join(apps[name]["command"]) for name in webs)


@pytest.mark.parametrize("path", [SINGLE, CLUSTER], ids=["one-machine", "cluster"])
def test_the_load_balancer_sends_the_streams_and_only_them_to_the_stream_nodes(path):
    sections = _haproxy_sections(_haproxy_config(path).read_text())
    apps = _app_services(path)
    streams = _named(apps, "gunicorn", "dragonheart_site.asgi")
    webs = _named(apps, "gunicorn", "dragonheart_site.wsgi")

    routed = {p: _backend_for(sections, p) for p in PATHS}
    to_streams = {p for p, backend in routed.items() if backend == "stream"}
    assert to_streams == {p for p in PATHS if _is_stream_view(p)}
    assert set(routed.values()) == {"stream", "web"}
    for backend, names in (("stream", streams), ("web", webs)):
        servers = [words[2] for words in sections[f"backend {backend}"] if words[0] == "server"]
        assert sorted(servers) == sorted(f"{name}:8000" for name in names), backend


@pytest.mark.parametrize("path", [SINGLE, CLUSTER], ids=["one-machine", "cluster"])
def test_the_load_balancer_holds_a_quiet_stream_open_and_passes_each_event_at_once(path):
    sections = _haproxy_sections(_haproxy_config(path).read_text())
    backend = sections["backend stream"]
    lines = sections["defaults"] + sections["frontend http"] + backend

    def timeout(kind: str) -> float:
        values = [w[2] for w in lines if w[:2] == ["timeout", kind]]
        return _seconds(values[-1])  # the backend's own, where it has one, is read last

    quietest = max(STREAM_SILENCE_SECONDS, settings.STREAM_HEARTBEAT_SECONDS)
    for kind in ("client", "server", "tunnel"):
        assert timeout(kind) > quietest, kind
    # Without it HAProxy holds each small chunk back, waiting to fill a packet.
    assert ["option", "http-no-delay"] in backend
    assert ["option", "http-buffer-request"] not in lines
    assert ["compression"] not in [w[:1] for w in lines]


@pytest.mark.parametrize("path", [SINGLE, CLUSTER], ids=["one-machine", "cluster"])
def test_the_load_balancer_may_open_the_descriptors_its_connections_need(path):
    """HAProxy refuses to start when it cannot raise its limit to about two descriptors a
    connection (its maxconn), and every open stream is one connection."""
    service = _services(path)["haproxy"]
    sections = _haproxy_sections(_haproxy_config(path).read_text())
    [maxconn] = [int(w[1]) for w in sections["global"] if w[0] == "maxconn"]

    assert service["ulimits"]["nofile"]["hard"] >= 2 * maxconn + 1024


def test_on_one_machine_haproxy_is_the_front_door_and_the_site_trusts_it_alone():
    services = _services(SINGLE)
    published = {name: s["ports"] for name, s in services.items() if "ports" in s}

    assert published["haproxy"] == ["8000:8000"]
    assert not {"web", "stream"} & set(published)
    assert ["option", "forwardfor"] in _haproxy_sections(_haproxy_config(SINGLE).read_text())["frontend http"]
    assert {s["environment"]["NUM_PROXIES"] for s in _app_services(SINGLE).values()} == {"1"}
