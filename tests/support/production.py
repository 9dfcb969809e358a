"""The production settings, loaded as production loads them: a separate Python process with the
environment of .env.example's production block (DEBUG off, a strong SECRET_KEY, PostgreSQL,
Redis, the site's host). Nothing connects to the database or Redis."""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
HOST = "dragonheart.example.com"
# The settings the security middleware, the cookies and the CSP read.
SECURITY_SETTINGS = [
    "DEBUG",
    "MIDDLEWARE",
    "ALLOWED_HOSTS",
    "SECURE_PROXY_SSL_HEADER",
    "SECURE_SSL_REDIRECT",
    "SECURE_HSTS_SECONDS",
    "SECURE_HSTS_INCLUDE_SUBDOMAINS",
    "SECURE_HSTS_PRELOAD",
    "SECURE_CONTENT_TYPE_NOSNIFF",
    "SECURE_REFERRER_POLICY",
    "SECURE_CROSS_ORIGIN_OPENER_POLICY",
    "X_FRAME_OPTIONS",
    "CONTENT_SECURITY_POLICY",
    "SESSION_COOKIE_SECURE",
    "SESSION_COOKIE_HTTPONLY",
    "SESSION_COOKIE_SAMESITE",
    "CSRF_COOKIE_SECURE",
    "CSRF_COOKIE_SAMESITE",
    "CSRF_TRUSTED_ORIGINS",
    "LOGGING",
]


def production_env(**overrides: str) -> dict[str, str]:
    """The environment of a production server, with a fresh strong key (never stored)."""
    keep = {name: os.environ[name] for name in ("PATH", "HOME", "LANG") if name in os.environ}
    return {
        **keep,
        "DJANGO_SETTINGS_MODULE": "dragonheart_site.settings",
        "DEBUG": "0",
        "SECRET_KEY": secrets.token_urlsafe(50),
        "ALLOWED_HOSTS": HOST,
        "CSRF_TRUSTED_ORIGINS": f"https://{HOST}",
        "SITE_URL": f"https://{HOST}",
        "DATABASE_URL": "postgres://dragonheart:password@db.invalid:5432/dragonheart",
        "REDIS_URL": "redis://redis.invalid:6379/0",
        "EMAIL_BACKEND": "django.core.mail.backends.smtp.EmailBackend",
        **overrides,
    }


def run(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )


def production_settings(**overrides: str) -> dict[str, Any]:
    """SECURITY_SETTINGS as the production process sees them (tuples come back as lists)."""
    script = (
        "import json, django; django.setup(); from django.conf import settings; "
        f"print(json.dumps({{name: getattr(settings, name) for name in {SECURITY_SETTINGS!r}}}))"
    )
    done = run(["-c", script], production_env(**overrides))
    assert done.returncode == 0, done.stderr
    values: dict[str, Any] = json.loads(done.stdout)
    return values
