"""The VAPID key pair: `manage.py vapid_keys` makes one the settings take, the system check
refuses a half or mismatched one; and which push endpoints a worker may post to."""

from __future__ import annotations

import io

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from django.core.management import CommandError, call_command

from notifications import checks, push
from tests.notifications.push_service import unb64url


def _made(*args: str) -> dict[str, str]:
    out = io.StringIO()
    call_command("vapid_keys", *args, stdout=out)
    lines = out.getvalue().splitlines()
    assert len(lines) == 3
    return dict(line.split("=", 1) for line in lines)


def test_the_command_prints_a_pair_and_a_subject_for_an_env_file():
    keys = _made("--subject", "mailto:ops@example.com")
    assert set(keys) == {"VAPID_PRIVATE_KEY", "VAPID_PUBLIC_KEY", "VAPID_SUBJECT"}
    assert keys["VAPID_SUBJECT"] == "mailto:ops@example.com"
    private = unb64url(keys["VAPID_PRIVATE_KEY"])
    public = unb64url(keys["VAPID_PUBLIC_KEY"])
    assert (len(private), len(public), public[0]) == (32, 65, 4)
    derived = ec.derive_private_key(int.from_bytes(private, "big"), ec.SECP256R1()).public_key()
    assert (
        derived.public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
        == public
    )
    assert "=" not in keys["VAPID_PRIVATE_KEY"] + keys["VAPID_PUBLIC_KEY"]  # base64url, unpadded


def test_two_runs_make_two_pairs():
    assert _made()["VAPID_PRIVATE_KEY"] != _made()["VAPID_PRIVATE_KEY"]


def test_the_subject_must_be_mailto_or_https():
    with pytest.raises(CommandError):
        call_command("vapid_keys", "--subject", "ops@example.com", stdout=io.StringIO())


def test_the_check_takes_a_pair_made_by_the_command_and_none(settings):
    settings.VAPID_PRIVATE_KEY = settings.VAPID_PUBLIC_KEY = settings.VAPID_SUBJECT = ""
    assert checks.vapid_keys_make_a_pair() == []
    keys = _made("--subject", "https://example.com/contact")
    for name, value in keys.items():
        setattr(settings, name, value)
    assert checks.vapid_keys_make_a_pair() == []
    assert push.enabled()


@pytest.mark.parametrize("broken", ["half", "mismatched", "not a key", "bad subject"])
def test_the_check_refuses_a_half_or_mismatched_pair(settings, broken):
    keys = _made()
    for name, value in keys.items():
        setattr(settings, name, value)
    if broken == "half":
        settings.VAPID_PUBLIC_KEY = ""
    elif broken == "mismatched":
        settings.VAPID_PUBLIC_KEY = _made()["VAPID_PUBLIC_KEY"]
    elif broken == "not a key":
        settings.VAPID_PRIVATE_KEY = "c2hvcnQ"
    else:
        settings.VAPID_SUBJECT = "ops@example.com"
    (error,) = checks.vapid_keys_make_a_pair()
    assert error.id == "notifications.E002"


@pytest.mark.parametrize(
    ("url", "allowed"),
    [
        ("https://fcm.googleapis.com/fcm/send/abc", True),
        ("https://updates.push.services.mozilla.com/wpush/v2/abc", True),
        ("https://web.push.apple.com/abc", True),
        ("https://8.8.8.8/x", True),
        ("http://fcm.googleapis.com/fcm/send/abc", False),
        ("https://127.0.0.1/x", False),
        ("https://[::1]/x", False),
        ("https://10.0.0.8/x", False),
        ("https://172.16.5.4/x", False),
        ("https://192.168.1.1/x", False),
        ("https://169.254.169.254/latest/meta-data/", False),
        ("https://0.0.0.0/x", False),
        ("https://localhost/x", False),
        ("https://db.internal/x", False),
        ("https://printer.local/x", False),
        ("https://user:pw@fcm.googleapis.com/x", False),
        ("ftp://fcm.googleapis.com/x", False),
        ("https:///x", False),
    ],
)
def test_endpoints_must_be_https_on_a_public_address(settings, url, allowed):
    settings.PUSH_ALLOW_INSECURE_ENDPOINTS = False
    assert (push.endpoint_problem(url) == "") is allowed


def test_local_runs_may_allow_http_and_loopback(settings):
    settings.PUSH_ALLOW_INSECURE_ENDPOINTS = True
    assert push.endpoint_problem("http://127.0.0.1:8123/push/x") == ""
    assert push.endpoint_problem("ftp://127.0.0.1/x") != ""
