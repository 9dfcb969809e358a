"""core.replicas without a replica configured (the embedded default and the test settings): every
read stays on the primary and a view that may lag runs once, as written. The replica itself is
tried in tests/cluster/test_replica_reads.py."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse

from core import replicas


def test_wal_positions_compare_as_numbers_not_as_text():
    assert replicas.lsn("16/B374D848") > replicas.lsn("9/FFFFFFFF")
    assert replicas.lsn("0/10") > replicas.lsn("0/F")


def test_without_a_replica_every_read_goes_to_the_primary():
    assert not replicas.configured()
    assert replicas.replica_for(None) is None
    assert replicas.replica_for(7) is None
    assert replicas.ReplicaRouter().db_for_read(object) is None  # Django's default: the primary


def test_a_view_that_may_lag_runs_once_on_the_primary_without_a_replica():
    runs: list[str | None] = []

    @replicas.reads_may_lag
    def view(request: HttpRequest) -> HttpResponse:
        runs.append(replicas.ReplicaRouter().db_for_read(object))
        replicas.require_primary()  # says nothing outside the replica
        return HttpResponse("ok")

    assert view(HttpRequest()).content == b"ok"
    assert runs == [None]


def test_a_write_is_never_routed_to_the_replica():
    assert replicas.ReplicaRouter().db_for_write(object) == "default"
