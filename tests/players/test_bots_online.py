"""GET /api/bots/online/ lists the bot accounts whose account stream said, within the last 20
seconds, that it is open (accounts.bots.mark_streaming): a mark in the cache, as a player's
presence is, never a row (a stream is a GET), and none again while this process's mark is
under 5 seconds old."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from accounts import bots
from accounts.models import BotAccount

pytestmark = pytest.mark.django_db
URL = "/api/bots/online/"


def _mark(user):
    return bots.online_bots(now=timezone.now()).get(user.pk)


def test_a_bot_with_a_stream_open_is_listed_with_its_rating(api, robo):
    bots.mark_streaming(robo.pk)
    response = api["anon"].get(URL)
    assert response.status_code == 200
    [listed] = response.json()["results"]
    assert listed["username"] == "robo"
    assert listed["is_bot"] is True
    assert listed["rating"]["rating"] == 1500
    assert listed["rating"]["provisional"] is True


def test_a_bot_that_never_streamed_is_not_listed(api, robo):
    assert api["anon"].get(URL).json() == {"results": []}


def test_a_bot_stays_listed_for_20_seconds_after_its_last_mark(robo):
    marked = timezone.now()
    bots.mark_streaming(robo.pk, now=marked)
    assert bots.online_bot_ids(now=marked + timedelta(seconds=19)) == [robo.pk]
    assert bots.online_bot_ids(now=marked + timedelta(seconds=21)) == []


def test_a_heartbeat_keeps_it_listed(robo):
    opened = timezone.now()
    bots.mark_streaming(robo.pk, now=opened)
    bots.mark_streaming(robo.pk, now=opened + timedelta(seconds=15))
    assert bots.online_bot_ids(now=opened + timedelta(seconds=30)) == [robo.pk]


def test_a_stream_closed_long_ago_leaves_the_list(api, robo):
    bots.mark_streaming(robo.pk, now=timezone.now() - timedelta(seconds=21))
    bots.mark_stream_closed(robo.pk)
    assert api["anon"].get(URL).json() == {"results": []}


def test_a_person_is_never_listed_even_if_marked(api, alice, robo):
    bots.mark_streaming(alice.pk)
    bots.mark_streaming(robo.pk)
    names = [b["username"] for b in api["anon"].get(URL).json()["results"]]
    assert names == ["robo"]
    assert not BotAccount.objects.filter(user=alice).exists()


def test_a_mark_writes_no_row(robo):
    with CaptureQueriesContext(connection) as queries:
        bots.mark_streaming(robo.pk)
    assert len(queries) == 0
    assert _mark(robo) is not None


def test_a_mark_under_5_seconds_old_is_not_written_again_by_the_same_process(robo):
    first = timezone.now() - timedelta(seconds=4)
    bots.mark_streaming(robo.pk, now=first)
    bots.mark_streaming(robo.pk, now=first + timedelta(seconds=4))
    assert _mark(robo) == first


def test_a_mark_5_seconds_old_is_moved_on(robo):
    first = timezone.now() - timedelta(seconds=6)
    bots.mark_streaming(robo.pk, now=first)
    bots.mark_streaming(robo.pk, now=first + timedelta(seconds=6))
    assert _mark(robo) == first + timedelta(seconds=6)


def test_the_bots_page_shows_who_is_online(client, robo):
    bots.mark_streaming(robo.pk)
    html = client.get("/bots/").content.decode()
    assert '<a href="/players/robo/">robo</a>' in html
    assert "No bot is online now." not in html


def test_the_bots_page_says_when_none_is_online(client, robo):
    assert "No bot is online now." in client.get("/bots/").content.decode()
