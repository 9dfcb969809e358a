"""The one-statement write refuses models it would silently get wrong (games/event_log/checks.py)."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from django.core.management.base import SystemCheckError
from django.db import models
from django.db.models.functions import Now
from django.db.models.signals import post_save, pre_save
from django.test.utils import isolate_apps

from games.event_log.checks import refusals, written_models
from games.models import GameEvent


def test_it_finds_nothing_to_refuse_in_the_models_as_they_are():
    assert refusals(written_models()) == []


def test_manage_py_check_runs_it():
    def receiver(**kwargs):
        pass

    post_save.connect(receiver, sender=GameEvent)
    try:
        with pytest.raises(SystemCheckError, match=r"games\.E002"):
            call_command("check")
    finally:
        post_save.disconnect(receiver, sender=GameEvent)


@pytest.mark.parametrize("signal", [pre_save, post_save])
def test_it_refuses_a_save_receiver(signal):
    def receiver(**kwargs):
        pass

    signal.connect(receiver, sender=GameEvent)
    try:
        assert [e.id for e in refusals([GameEvent])] == ["games.E002"]
    finally:
        signal.disconnect(receiver, sender=GameEvent)


@isolate_apps("games")
def test_it_refuses_a_database_default():
    class Stamped(models.Model):
        at = models.DateTimeField(db_default=Now())

        class Meta:
            app_label = "games"

    assert [e.id for e in refusals([Stamped])] == ["games.E001"]


@isolate_apps("games")
def test_it_refuses_a_generated_field():
    class Doubled(models.Model):
        n = models.IntegerField()
        twice = models.GeneratedField(
            expression=models.F("n") * 2, output_field=models.IntegerField(), db_persist=True
        )

        class Meta:
            app_label = "games"

    assert [e.id for e in refusals([Doubled])] == ["games.E001"]
