"""POST/DELETE /api/push/subscriptions/, GET /api/push/key/ and GET/PATCH
/api/account/notifications/: a subscription is checked to the byte and kept once per endpoint;
a malformed or forged one is refused with 400 and changes nothing; nobody forgets another's."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from notifications.models import Preferences, PushSubscription
from tests.api.conftest import push_subscription

pytestmark = pytest.mark.django_db
URL = "/api/push/subscriptions/"
CHANNELS = "/api/account/notifications/"


@pytest.fixture
def vapid(settings) -> None:
    from notifications import push

    keys = push.make_vapid_keys()
    settings.VAPID_PRIVATE_KEY = keys["VAPID_PRIVATE_KEY"]
    settings.VAPID_PUBLIC_KEY = keys["VAPID_PUBLIC_KEY"]
    settings.VAPID_SUBJECT = "mailto:ops@example.com"
    settings.PUSH_ALLOW_INSECURE_ENDPOINTS = False


def test_a_subscription_is_kept_once_for_its_endpoint(api, alice):
    body = push_subscription("phone")
    assert api["alice"].post(URL, body, format="json").status_code == 201
    assert api["alice"].post(URL, body, format="json").status_code == 200
    (kept,) = PushSubscription.objects.all()
    assert (kept.user, kept.endpoint, kept.p256dh, kept.auth) == (
        alice,
        body["endpoint"],
        body["keys"]["p256dh"],
        body["keys"]["auth"],
    )


def test_the_same_browser_subscribed_by_another_account_moves_to_it(api, bob):
    body = push_subscription("shared")
    api["alice"].post(URL, body, format="json")
    assert api["bob"].post(URL, body, format="json").status_code == 200
    assert PushSubscription.objects.get().user == bob


def test_a_session_may_subscribe_with_its_csrf_token(client, alice):
    client.force_login(alice)
    client.handler.enforce_csrf_checks = True
    client.get("/accounts/profile/")
    token = client.cookies["csrftoken"].value
    response = client.post(
        URL, push_subscription("laptop"), content_type="application/json", HTTP_X_CSRFTOKEN=token
    )
    assert response.status_code == 201
    refused = client.post(URL, push_subscription("other"), content_type="application/json")
    assert refused.status_code == 403
    assert PushSubscription.objects.count() == 1


def test_nobody_signed_out_subscribes(api):
    assert api["anon"].post(URL, push_subscription("x"), format="json").status_code in (401, 403)
    assert not PushSubscription.objects.exists()


def _with(path: str, value: Any) -> dict[str, Any]:
    body = copy.deepcopy(push_subscription("bad"))
    *parents, last = path.split(".")
    target = body
    for part in parents:
        target = target[part]
    if value is _DROP:
        del target[last]
    else:
        target[last] = value
    return body


_DROP = object()
ON_CURVE = push_subscription("bad")["keys"]["p256dh"]
OFF_CURVE = "BA" + "A" * 85  # 0x04 followed by 64 zero bytes: no point of P-256

MALFORMED = {
    "no endpoint": _with("endpoint", _DROP),
    "an http endpoint": _with("endpoint", "http://push.example.com/x"),
    "a loopback endpoint": _with("endpoint", "https://127.0.0.1/x"),
    "a private endpoint": _with("endpoint", "https://10.1.2.3/x"),
    "a link-local endpoint": _with("endpoint", "https://[fe80::1]/x"),
    "a localhost endpoint": _with("endpoint", "https://localhost:8443/x"),
    "an endpoint with credentials": _with("endpoint", "https://me:pw@push.example.com/x"),
    "a javascript endpoint": _with("endpoint", "javascript:alert(1)"),
    "an endpoint too long": _with("endpoint", "https://push.example.com/" + "x" * 2000),
    "an endpoint not a string": _with("endpoint", 12),
    "no keys": _with("keys", _DROP),
    "keys not an object": _with("keys", "p256dh"),
    "no auth": _with("keys.auth", _DROP),
    "an extra key": _with("keys.extra", "x"),
    "an unknown field": _with("owner", "bob"),
    "p256dh not base64url": _with("keys.p256dh", ON_CURVE[:-2] + "+/"),
    "p256dh short": _with("keys.p256dh", ON_CURVE[:-4]),
    "p256dh compressed": _with("keys.p256dh", "Aw" + ON_CURVE[2:44]),
    "p256dh off the curve": _with("keys.p256dh", OFF_CURVE),
    "p256dh a number": _with("keys.p256dh", 4),
    "auth 15 bytes": _with("keys.auth", "AAAAAAAAAAAAAAAAAAAA"),
    "auth 17 bytes": _with("keys.auth", "AAAAAAAAAAAAAAAAAAAAAAA"),
    "auth not base64url": _with("keys.auth", "!!!!!!!!!!!!!!!!!!!!!!"),
    "a list": [push_subscription("bad")],
}


@pytest.mark.parametrize("body", MALFORMED.values(), ids=MALFORMED.keys())
def test_a_malformed_or_forged_subscription_is_refused_and_changes_nothing(api, alice, body, vapid):
    kept = push_subscription("kept")
    api["alice"].post(URL, kept, format="json")
    for method in ("post", "delete"):
        response = getattr(api["alice"], method)(URL, body, format="json")
        assert response.status_code == 400, response.content
        expected = "invalid" if isinstance(body, list) else "invalid_subscription"
        assert response.json()["code"] == expected
    assert list(PushSubscription.objects.values_list("endpoint", flat=True)) == [kept["endpoint"]]


def test_loopback_endpoints_are_allowed_only_when_the_settings_say(api, settings):
    body = _with("endpoint", "http://127.0.0.1:9/push")
    settings.PUSH_ALLOW_INSECURE_ENDPOINTS = False
    assert api["alice"].post(URL, body, format="json").status_code == 400
    settings.PUSH_ALLOW_INSECURE_ENDPOINTS = True
    assert api["alice"].post(URL, body, format="json").status_code == 201


def test_another_account_cannot_delete_my_subscription(api, alice):
    body = push_subscription("mine")
    api["alice"].post(URL, body, format="json")
    assert api["bob"].delete(URL, body, format="json").status_code == 404
    assert api["anon"].delete(URL, body, format="json").status_code in (401, 403)
    assert PushSubscription.objects.filter(user=alice).count() == 1
    assert api["alice"].delete(URL, body, format="json").status_code == 204
    assert not PushSubscription.objects.exists()


def test_the_public_key_is_given_to_everyone(api, settings, vapid):
    answer = api["anon"].get("/api/push/key/").json()
    assert answer == {"enabled": True, "public_key": settings.VAPID_PUBLIC_KEY}
    settings.VAPID_PRIVATE_KEY = ""
    assert api["anon"].get("/api/push/key/").json() == {"enabled": False, "public_key": ""}


def test_the_channels_default_to_push_then_email_and_a_get_writes_nothing(api, alice):
    Preferences.objects.filter(user=alice).delete()
    with CaptureQueriesContext(connection) as queries:
        response = api["alice"].get(CHANNELS)
    assert response.json() == dict.fromkeys(("turn", "challenge", "game_over", "reminder"), "push_then_email")
    assert not any(
        q["sql"].lstrip().upper().startswith(("INSERT", "UPDATE")) for q in queries.captured_queries
    )


def test_a_patch_sets_the_kinds_it_names(api, alice):
    response = api["alice"].patch(CHANNELS, {"turn": "push", "game_over": "email"}, format="json")
    assert response.status_code == 200
    assert response.json() == {
        "turn": "push",
        "challenge": "push_then_email",
        "game_over": "email",
        "reminder": "push_then_email",
    }
    assert api["alice"].get(CHANNELS).json()["turn"] == "push"
    assert api["bob"].get(CHANNELS).json()["turn"] == "push_then_email"


@pytest.mark.parametrize(
    "body",
    [
        {"turn": "pigeon"},
        {"digest": "push"},
        {"turn": None},
        {"turn": ["push"]},
        ["turn"],
        {"turn": "push", "x": 1},
    ],
)
def test_a_patch_with_an_unknown_kind_or_channel_is_refused_and_changes_nothing(api, alice, body):
    api["alice"].patch(CHANNELS, {"turn": "both"}, format="json")
    response = api["alice"].patch(CHANNELS, body, format="json")
    assert response.status_code == 400
    assert api["alice"].get(CHANNELS).json()["turn"] == "both"
