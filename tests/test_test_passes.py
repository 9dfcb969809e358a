"""The choice of which tests pass 2 (PostgreSQL) leaves out holds to real modules, and none of
them holds what depends on the database (tests/support/workers.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.workers import DATABASE_NEUTRAL

ROOT = Path(__file__).resolve().parent.parent
# What only a database of its own can show: locks, concurrent writers, counted queries.
DATABASE_BOUND = (
    "select_for_update",
    "CaptureQueriesContext",
    "num_queries",
    "NumQueries",
    "transaction=True",
)


@pytest.mark.parametrize("module", DATABASE_NEUTRAL)
def test_each_module_left_to_pass_1_exists_and_counts_no_query_nor_lock(module):
    text = (ROOT / module).read_text()
    assert [word for word in DATABASE_BOUND if word in text] == []
