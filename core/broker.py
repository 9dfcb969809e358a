"""The Celery broker transports (settings.CELERY_BROKER_TRANSPORT): kombu's own for redis:// URLs
and for Sentinel, each with one mend that keeps a worker alive when Redis restarts."""

from __future__ import annotations

from contextlib import suppress
from queue import Empty

from kombu.transport import redis as kombu_redis


class _CloseGoesOn(kombu_redis.Channel):
    """kombu's Redis channel, whose close() goes on when Redis has gone away.

    A worker that loses Redis gives the connection up in two steps (celery's Consumer
    ``on_connection_error_after_connected``): ``collect()``, which closes the channels, then
    detaches the transport (kombu's ``Connection._do_close_transport``:
    ``Transport.client = None``), then ``close()``, which closes the channel that tasks come
    from once more. kombu's ``Channel.close`` first reads the reply of a BRPOP still waiting
    (a worker with a free process has one); on a dead connection the read raises, so the
    first close stops there and the channel stays open with its unacknowledged messages. The
    remote-control channel's close fails too, so ``collect()`` does not try this one again.
    The second close gets further: it drops the channel's connection pools, then restores the
    unacknowledged messages, which needs a new pool built from the detached transport's
    client (``_connparams``: ``conninfo.hostname`` with ``conninfo`` None). That
    AttributeError is no connection error, so the worker does not reconnect: it exits with
    "Unrecoverable error".

    Here a connection error from that read is ignored, so the first close goes on while the
    transport still knows its broker: the messages are given back, or that fails with a
    connection error, which the worker expects, and it reconnects. Drop this once neither
    kombu's close() stops at that read nor celery closes the collected connection again:
    tests/faults/test_worker_survives_redis.py fails without it. The releases it was checked
    against, and the private names it reads, are pinned by tests/core/test_checked_versions.py."""

    def close(self) -> None:
        # _in_poll and _brpop_read are kombu's own, missing from its stubs.
        if self._in_poll:  # type: ignore[attr-defined]
            ignored: tuple[type[BaseException], ...] = (Empty, *self.connection.connection_errors)
            with suppress(*ignored):
                self._brpop_read()  # type: ignore[attr-defined]  # clears _in_poll, however it ends
        super().close()


class RedisChannel(_CloseGoesOn):
    pass


class SentinelChannel(_CloseGoesOn, kombu_redis.SentinelChannel):
    """The same mend on kombu's Sentinel channel, whose close() is the Redis channel's."""


class RedisTransport(kombu_redis.Transport):
    """The broker transport for redis:// URLs (settings.CELERY_BROKER_TRANSPORT)."""

    Channel = RedisChannel


class SentinelTransport(kombu_redis.SentinelTransport):
    """The broker transport when REDIS_SENTINELS is set."""

    Channel = SentinelChannel
