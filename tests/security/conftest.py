from __future__ import annotations

import copy
from collections.abc import Iterator

import pytest

from tests.support.world import World, world_kept


@pytest.fixture(scope="module")
def _module_world(request, django_db_setup, django_db_blocker) -> Iterator[World]:
    with django_db_blocker.unblock(), world_kept(request.module.__name__) as world:
        yield world


@pytest.fixture
def world(_module_world: World, db: None) -> World:
    """The security world (tests/support/world.py), built once a module: every test here acts on
    it as a request would and is rolled back, so none sees another's writes; and each gets its
    own copy of the rows as Python objects, which a login changes (``last_login``) and a
    password-reset token is made from."""
    return copy.deepcopy(_module_world)
