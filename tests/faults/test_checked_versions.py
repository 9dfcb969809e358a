"""The broker transport of dragonheart_site/celery.py works around a bug in the way kombu and
celery close a connection when Redis goes away, by overriding a kombu channel method and
reading two of its private names. It was checked against these releases: an upgrade fails
here and asks for the check again (tests/faults/test_worker_survives_redis.py without the
override: if it passes, the override can go)."""

from __future__ import annotations

from importlib.metadata import version

from kombu.transport import redis as kombu_redis

CHECKED = {"kombu": "5.7.0", "celery": "5.7.0", "redis": "8.1.0"}


def test_the_transport_override_was_checked_against_the_installed_releases():
    assert {name: version(name) for name in CHECKED} == CHECKED


def test_the_private_names_the_override_reads_are_still_there():
    assert callable(getattr(kombu_redis.Channel, "_brpop_read", None))
    assert hasattr(kombu_redis.Channel, "_in_poll")
