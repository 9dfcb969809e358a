"""A push service of the tests' own, and browsers that subscribe to it.

The service is a small HTTP server on a free loopback port that records each push (its path,
headers and body) and answers what the test tells it (201 by default; 404, 410, 500…). A
browser holds a P-256 key pair and an auth secret made here, subscribes with them, and decrypts
each push it received as a browser would (http_ece, the receiving side of RFC 8291), after
checking the VAPID signature (RFC 8292) against the site's public key."""

from __future__ import annotations

import base64
import json
import os
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import http_ece
import pytest
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature


def b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


@dataclass(frozen=True)
class Received:
    path: str
    headers: dict[str, str]
    body: bytes


@dataclass
class PushService:
    """Start with ``start()``, stop with ``close()`` (the fixture does both)."""

    received: list[Received] = field(default_factory=list)
    answers: dict[str, int] = field(default_factory=dict)  # path → status (201 if absent)
    server: ThreadingHTTPServer | None = None

    def start(self) -> PushService:
        service = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                service.received.append(
                    Received(self.path, {k.lower(): v for k, v in self.headers.items()}, body)
                )
                self.send_response(service.answers.get(self.path, 201))
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, format: str, *args: Any) -> None:
                pass  # quiet

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def close(self) -> None:
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()

    def endpoint(self, name: str) -> str:
        assert self.server is not None
        return f"http://127.0.0.1:{self.server.server_address[1]}/push/{name}"

    def to(self, browser: Browser) -> list[Received]:
        return [r for r in self.received if browser.endpoint.endswith(r.path)]


@dataclass
class Browser:
    """A browser's push subscription, its keys made here."""

    endpoint: str
    key: ec.EllipticCurvePrivateKey = field(default_factory=lambda: ec.generate_private_key(ec.SECP256R1()))
    auth: bytes = field(default_factory=lambda: os.urandom(16))

    @property
    def p256dh(self) -> str:
        point = self.key.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
        return b64url(point)

    def subscription(self) -> dict[str, Any]:
        """The JSON a browser's PushSubscription.toJSON() gives."""
        return {
            "endpoint": self.endpoint,
            "expirationTime": None,
            "keys": {"p256dh": self.p256dh, "auth": b64url(self.auth)},
        }

    def read(self, push: Received, vapid_public_key: str) -> dict[str, Any]:
        """The payload of a push to this browser, decrypted, once its VAPID signature and
        headers are checked."""
        assert push.headers["content-encoding"] == "aes128gcm"
        assert int(push.headers["ttl"]) > 0
        assert push.headers["urgency"] in ("very-low", "low", "normal", "high")
        check_vapid(push.headers["authorization"], vapid_public_key, self.endpoint)
        plain = http_ece.decrypt(push.body, private_key=self.key, auth_secret=self.auth, version="aes128gcm")
        payload: dict[str, Any] = json.loads(plain)
        return payload


def check_vapid(authorization: str, public_key: str, endpoint: str) -> None:
    """``vapid t=<JWT>, k=<key>``: the key is the site's, the JWT is signed with it (ES256) for
    the endpoint's origin, with a subject."""
    scheme, _, params = authorization.partition(" ")
    assert scheme.lower() == "vapid", authorization
    parts = dict(part.strip().split("=", 1) for part in params.split(","))
    assert parts["k"] == public_key
    header, claims, signature = parts["t"].split(".")
    raw = unb64url(signature)
    point = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), unb64url(public_key))
    der = encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
    try:
        point.verify(der, f"{header}.{claims}".encode(), ec.ECDSA(hashes.SHA256()))
    except InvalidSignature:
        raise AssertionError("the VAPID signature does not verify") from None
    body = json.loads(unb64url(claims))
    assert endpoint.startswith(body["aud"]), body
    assert body["sub"].startswith(("mailto:", "https:")), body


# --- Fixtures (import them into a test module) ------------------------------------------------

_KEYS: dict[str, str] = {}


@pytest.fixture
def vapid(settings: Any) -> dict[str, str]:
    """The site's VAPID keys (one pair for the run), and loopback endpoints allowed."""
    from notifications import push

    if not _KEYS:
        _KEYS.update(push.make_vapid_keys())
    settings.VAPID_PRIVATE_KEY = _KEYS["VAPID_PRIVATE_KEY"]
    settings.VAPID_PUBLIC_KEY = _KEYS["VAPID_PUBLIC_KEY"]
    settings.VAPID_SUBJECT = "mailto:ops@example.com"
    settings.PUSH_ALLOW_INSECURE_ENDPOINTS = True
    return dict(_KEYS)


@pytest.fixture
def push_service(vapid: dict[str, str]) -> Iterator[PushService]:
    service = PushService().start()
    yield service
    service.close()
