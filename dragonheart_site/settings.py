"""One settings module, driven by the environment (every variable is listed in .env.example).

With nothing set, the site runs on the embedded default: SQLite beside the code, the broker in
memory with a worker thread beside the server (`manage.py runserver`: core/embedded_worker.py),
email printed to the console, DEBUG on. Production sets DEBUG=0 and then must give
SECRET_KEY, DATABASE_URL (PostgreSQL), REDIS_URL and ALLOWED_HOSTS: outside debug there are no
defaults for secrets, and a process missing its database or Redis stops with a message instead
of running on its own (docs/deploy.md).
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

import django_stubs_ext
import environ
from csp.constants import NONE, SELF
from django.core.exceptions import ImproperlyConfigured
from rest_framework import serializers

from dragonheart_site import environment
from dragonheart_site.environment import next_database, sentinel_broker_url, sentinel_service_url

# Lets classes be written ModelAdmin[Game] and Serializer[dict] for the type checker.
django_stubs_ext.monkeypatch(extra_classes=[serializers.Serializer, serializers.ModelSerializer])

BASE_DIR = Path(__file__).resolve().parent.parent
env = environ.Env()

DEBUG = env.bool("DEBUG", default=True)
if DEBUG:
    SECRET_KEY = env.str("SECRET_KEY", default="insecure-local-development-key-only")
else:
    SECRET_KEY = env.str("SECRET_KEY")  # raises ImproperlyConfigured when missing
ALLOWED_HOSTS = env.list("ALLOWED_HOSTS", default=["localhost", "127.0.0.1", "[::1]", "testserver"])
CSRF_TRUSTED_ORIGINS = env.list("CSRF_TRUSTED_ORIGINS", default=[])
SITE_URL = env.str("SITE_URL", default="http://127.0.0.1:8000")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    # Before whitenoise: core's runserver (whitenoise's, with the background worker beside it
    # in the embedded default) must be the one manage.py finds; core's migrate takes a lock
    # first (core/management/commands). core has no models, templates or static files.
    "core",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django.contrib.humanize",  # times as people say them ("2 hours ago"), in every language
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_htmx",  # its script tag and HTTP helpers; no view reads request.htmx, so no middleware
    "accounts",
    "outbox",
    "ratings",
    "games",
    "players",
    "notifications",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # django-csp's header for CONTENT_SECURITY_POLICY below, built once: no view may change it
    # with django-csp's decorators or nonces (put csp.middleware.CSPMiddleware here for those).
    "core.middleware.CSPMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    # After sessions, before common: picks the language from the cookie set by set_language,
    # else from Accept-Language.
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    # Keeps a viewer's reads on the primary until the replica has their last write (a no-op
    # without DATABASE_REPLICA_URL).
    "core.replicas.NoteWritesMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # After every middleware that sets headers, so that its own answers (413, 411, a malformed
    # body) carry them too; none of those before it reads a body.
    "core.middleware.RequestBodyMiddleware",
    "core.middleware.DatabaseUnavailableMiddleware",
]

ROOT_URLCONF = "dragonheart_site.urls"
WSGI_APPLICATION = "dragonheart_site.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "games.context_processors.your_games",  # the header's count of games waiting
                "notifications.context_processors.push_key",  # the profile and game page offer push
            ],
        },
    },
]

# --- Database -------------------------------------------------------------------------------
# Three aliases (docs/deploy.md): "default" for every request and task, perhaps through
# PgBouncer; "direct" to the primary itself, for what a transaction pooler cannot carry
# (migrate's lock, the relay's LISTEN, long commands); "replica", only where a view asks for
# reads that may lag (core.replicas). Without a replica URL there is no "replica" alias and
# those reads go to "default".
DATABASE_URL = environment.required("DATABASE_URL", debug=DEBUG, default=f"sqlite:///{BASE_DIR}/db.sqlite3")
DATABASE_DIRECT_URL = env.str("DATABASE_DIRECT_URL", default="") or DATABASE_URL
DATABASE_REPLICA_URL = env.str("DATABASE_REPLICA_URL", default="")
# Behind PgBouncer in transaction mode (PG_PREPARED_STATEMENTS=0) the next transaction may run
# on another server connection: no statements prepared on one, no server-side cursor left
# open on one (.iterator() would look for it on the next), and a connection checked before it
# is reused, since the pooler may have been restarted under it.
POOLED = not env.bool("PG_PREPARED_STATEMENTS", default=True)


def _database(url: str, *, pooled: bool) -> dict[str, Any]:
    config: dict[str, Any] = environ.Env.db_url_config(url)
    if config["ENGINE"] == "django.db.backends.sqlite3":
        # IMMEDIATE transactions take the write lock up front, so concurrent plays queue
        # behind the busy timeout instead of failing with "database is locked" when a reader
        # upgrades; WAL lets pages read while a play is being written.
        config["OPTIONS"] = {
            "transaction_mode": "IMMEDIATE",
            "timeout": 20,
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        }
        # A file, not memory, so tests of concurrent requests share one database across
        # threads; one per process, so two test runs side by side never share it.
        test_name = Path(tempfile.gettempdir()) / f"dragonheart-test-{os.getpid()}.sqlite3"
        config["TEST"] = {"NAME": str(test_name)}
        return config
    config["CONN_MAX_AGE"] = env.int("CONN_MAX_AGE", default=60)
    # A health check is a "SELECT 1" round trip before every request's first query: a third
    # of the time of opening a game on a direct connection. Without it, the first request on
    # a connection the server dropped fails (503, see api_errors) and Django discards it.
    config["CONN_HEALTH_CHECKS"] = env.bool("CONN_HEALTH_CHECKS", default=pooled)
    # Keepalives: a server that vanishes without closing the socket (a host lost, a
    # failover) is noticed within about a minute instead of the kernel's two hours.
    options: dict[str, Any] = {
        "connect_timeout": env.int("DATABASE_CONNECT_TIMEOUT", default=5),
        "keepalives": 1,
        "keepalives_idle": 30,
        "keepalives_interval": 10,
        "keepalives_count": 3,
    }
    if pooled:
        config["DISABLE_SERVER_SIDE_CURSORS"] = True
    else:
        # Parameters sent apart from the SQL, and a statement run five times on a connection
        # prepared there: PostgreSQL parses and plans a play's statements once per
        # connection instead of on every play, which halved its CPU per play here
        # (benchmarks/api_load.py).
        options |= {"server_side_binding": True, "prepare_threshold": 5}
    config["OPTIONS"] = options
    return config


DATABASES = {"default": _database(DATABASE_URL, pooled=POOLED)}
# The direct alias is the same database: tests give it the default's test database.
DATABASES["direct"] = {
    **_database(DATABASE_DIRECT_URL, pooled=POOLED and DATABASE_DIRECT_URL == DATABASE_URL),
    "TEST": {"MIRROR": "default"},
}
if DATABASE_REPLICA_URL:
    DATABASES["replica"] = {**_database(DATABASE_REPLICA_URL, pooled=False), "TEST": {"MIRROR": "default"}}
DATABASE_ROUTERS = ["core.replicas.ReplicaRouter"]
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- Redis: cache and broker ----------------------------------------------------------------
# REDIS_URL is the cache's database; the broker's is REDIS_BROKER_URL, by default the same server's
# next database, so that the two are apart: the server must never evict the broker's keys
# (docs/deploy.md: maxmemory-policy volatile-lru or noeviction; every cache key expires).
# With REDIS_SENTINELS every Redis client finds the master through Sentinel, and only
# REDIS_URL's password and database numbers count.
REDIS_URL = environment.required("REDIS_URL", debug=DEBUG, default="")
REDIS_SENTINELS = [environment.host_port(item) for item in env.list("REDIS_SENTINELS", default=[])]
REDIS_SENTINEL_MASTER = env.str("REDIS_SENTINEL_MASTER", default="")
if REDIS_SENTINELS and not REDIS_SENTINEL_MASTER:
    raise ImproperlyConfigured("REDIS_SENTINELS is set but REDIS_SENTINEL_MASTER is not: name the master.")
# Every Redis client gives up on a server that does not answer, instead of waiting on a socket
# that a vanished host never closes: a request fails (503) and a worker reconnects.
REDIS_SOCKET_TIMEOUT = env.float("REDIS_SOCKET_TIMEOUT", default=5.0)
REDIS_CONNECT_TIMEOUT = env.float("REDIS_CONNECT_TIMEOUT", default=2.0)
REDIS_BROKER_URL = env.str("REDIS_BROKER_URL", default="") or (next_database(REDIS_URL) if REDIS_URL else "")

if REDIS_URL:
    # django-redis keeps one Redis client per server for the life of the process (Django's own
    # backend built a new one, and redis-py's table of response callbacks, on every call).
    # IGNORE_EXCEPTIONS stays off: a cache that cannot answer must not read as empty (the
    # login lockout would count no failures). Callers with a way round catch redis' errors
    # themselves (the throttles' count_hit); the API answers the rest with 503
    # cache_unavailable (core.api_errors).
    _cache_options: dict[str, Any] = {
        "IGNORE_EXCEPTIONS": False,
        "SOCKET_TIMEOUT": REDIS_SOCKET_TIMEOUT,
        "SOCKET_CONNECT_TIMEOUT": REDIS_CONNECT_TIMEOUT,
    }
    _cache_location = REDIS_URL
    if REDIS_SENTINELS:
        # The default client on the master alone: django-redis' SentinelClient would read
        # from replicas, and a throttle or lockout must count what was just written.
        _cache_options |= {
            "CONNECTION_FACTORY": "django_redis.pool.SentinelConnectionFactory",
            "SENTINELS": REDIS_SENTINELS,
        }
        _cache_location = sentinel_service_url(REDIS_URL, REDIS_SENTINEL_MASTER)
    CACHES = {
        "default": {
            "BACKEND": "django_redis.cache.RedisCache",
            "LOCATION": _cache_location,
            "OPTIONS": _cache_options,
            # Every key expires (the broker's database relies on it, see above).
            "TIMEOUT": 300,
        }
    }
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

# A play must never wait on a broker that is down: publish once, fail fast, and let the beat
# sweeps (outbox, bot turns) queue what was lost. The socket timeouts and kombu's health
# checks let a worker notice a broker gone silent (a frozen master, a lost host).
CELERY_BROKER_TRANSPORT_OPTIONS: dict[str, Any] = {
    "max_retries": 1,
    "interval_start": 0,
    "interval_step": 0.2,
    "socket_timeout": REDIS_SOCKET_TIMEOUT,
    "socket_connect_timeout": REDIS_CONNECT_TIMEOUT,
    "socket_keepalive": True,
    "health_check_interval": 10,
}
if REDIS_SENTINELS:
    # kombu's Sentinel transport asks the Sentinels for the master at every (re)connection,
    # and its connections turn a READONLY answer from a demoted master into a connection
    # error, so a worker reconnects to the new master instead of exiting.
    CELERY_BROKER_URL = sentinel_broker_url(REDIS_BROKER_URL, REDIS_SENTINELS)
    CELERY_BROKER_TRANSPORT = "core.broker:SentinelTransport"
    CELERY_BROKER_TRANSPORT_OPTIONS["master_name"] = REDIS_SENTINEL_MASTER
else:
    # Without Redis (the embedded default) the broker is kombu's in-memory transport: its
    # messages pass only between threads of one process, so `manage.py runserver` runs the
    # workers and beat in threads beside the server (core/embedded_worker.py). Tasks are queued
    # and run with their countdowns there as on Redis; no other process can take them.
    CELERY_BROKER_URL = REDIS_BROKER_URL or "memory://localhost//"
    if not REDIS_BROKER_URL:
        # The in-memory queues are polled (kombu's default: every second): a bot that answers
        # after its delay, not a second later.
        CELERY_BROKER_TRANSPORT_OPTIONS["polling_interval"] = 0.1
    # kombu's Redis transport with a channel that lets a worker survive Redis going away while
    # it holds a task (core/broker.py says how). Only for redis:// : naming a transport
    # overrides the URL's scheme, and rediss:// needs kombu's own handling.
    if REDIS_BROKER_URL.startswith("redis://"):
        CELERY_BROKER_TRANSPORT = "core.broker:RedisTransport"
CELERY_RESULT_BACKEND = None
# Off: every task goes through the broker and runs in a worker, on its countdown (a bot's
# "thinking", the end of a held email's hold). On (the tests' unit runs, tests/conftest.py), a
# task runs at once in the caller's thread, its countdown ignored.
CELERY_TASK_ALWAYS_EAGER = env.bool("CELERY_TASK_ALWAYS_EAGER", default=False)
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_TASK_PUBLISH_RETRY = False
# The computer's review of a finished game takes a worker for a minute or more: it has a queue
# (and workers) of its own, so that no bot move or email waits behind one. Everything else
# goes to Celery's default queue, "celery". A worker started without -Q takes "celery" only.
CELERY_TASK_ROUTES = {"games.tasks.review_game": {"queue": "reviews"}}
# On: plays only write their outbox rows, and `manage.py relay_outbox` (PostgreSQL) queues the
# deliveries as the rows' transactions commit. Off: each write queues its own on commit.
OUTBOX_RELAY = env.bool("OUTBOX_RELAY", default=False)
# The Celery task that delivers one outbox row: the outbox (below games) queues it by this name
# instead of importing the notifications app (above games), as Django names its email backend.
OUTBOX_DELIVERY_TASK = "notifications.tasks.send_notification"
BOT_MOVE_DELAY_SECONDS = env.float("BOT_MOVE_DELAY_SECONDS", default=2.0)
# Determinizations per turn of the computer's review of a finished game (engine/review.py's
# REVIEW_BUDGET; the tests use fewer).
REVIEW_ITERATIONS = env.int("REVIEW_ITERATIONS", default=120)
# --- Live streams (games/streams.py) ---------------------------------------------------------
# A heartbeat whenever this long passes with nothing sent (the contract: at most 15 s).
STREAM_HEARTBEAT_SECONDS = env.float("STREAM_HEARTBEAT_SECONDS", default=10.0)
# An account's events are kept this long; a stream resumed from an older cursor starts over.
STREAM_EVENTS_KEPT_DAYS = env.int("STREAM_EVENTS_KEPT_DAYS", default=7)
# Without PostgreSQL's NOTIFY (SQLite, the embedded default) the streams' listener looks for new
# events this often while a stream is open: the streams' latency there.
STREAM_POLL_SECONDS = env.float("STREAM_POLL_SECONDS", default=0.25)

CELERY_BEAT_SCHEDULE = {
    "sweep-bot-turns": {"task": "games.tasks.sweep_bot_turns", "schedule": 60.0},
    "sweep-outbox": {"task": "notifications.tasks.sweep_outbox", "schedule": 60.0},
    "sweep-clocks": {"task": "games.tasks.sweep_clocks", "schedule": 60.0},
    "sweep-reviews": {"task": "games.tasks.sweep_reviews", "schedule": 10 * 60.0},
    "send-digests": {"task": "notifications.tasks.send_digests", "schedule": 15 * 60.0},
    "prune-stream-events": {"task": "games.tasks.prune_stream_events", "schedule": 60 * 60.0},
}

# --- Email ----------------------------------------------------------------------------------
EMAIL_BACKEND = env.str("EMAIL_BACKEND", default="django.core.mail.backends.console.EmailBackend")
EMAIL_HOST = env.str("EMAIL_HOST", default="localhost")
EMAIL_PORT = env.int("EMAIL_PORT", default=25)
# Seconds each step of an SMTP exchange may take. Well under the outbox claim's two minutes
# (notifications.services.CLAIM_TIMEOUT): a stalled server fails the send, which releases the
# claim and retries, instead of holding a worker until another one takes the claim over and
# the email goes out twice.
EMAIL_TIMEOUT = env.int("EMAIL_TIMEOUT", default=20)
DEFAULT_FROM_EMAIL = env.str("DEFAULT_FROM_EMAIL", default="Dragonheart <noreply@dragonheart.invalid>")

# --- Auth, i18n, static ---------------------------------------------------------------------
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "home"

LANGUAGE_CODE = "en"
# Native names, as the switcher shows them (it reads Django's name_local, the same names).
LANGUAGES = [
    ("en", "English"),
    ("de", "Deutsch"),
    ("es", "Español"),
    ("fr", "Français"),
    ("uk", "Українська"),
]
# The compiled catalogues (.mo) are committed, so running the site needs no gettext tools.
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
# Where collectstatic writes (whitenoise serves it). The benchmarks collect into a directory of
# their own: whitenoise indexes this one whenever its middleware starts, which the tests do
# with every settings change, so a full one left in the checkout slows the suite down.
STATIC_ROOT = Path(env.str("STATIC_ROOT", default=str(BASE_DIR / "staticfiles")))
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"
        if DEBUG
        else "whitenoise.storage.CompressedManifestStaticFilesStorage"
    },
}

# --- Security (production) ------------------------------------------------------------------
if not DEBUG:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_SSL_REDIRECT = env.bool("SECURE_SSL_REDIRECT", default=True)
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = env.int("SECURE_HSTS_SECONDS", default=60 * 60 * 24 * 365)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
SECURE_CROSS_ORIGIN_OPENER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
# Only the site's own files: no inline script, style or event handler (templates and static/js
# keep it so, tests/security checks it in a browser), no eval, no framing. data: images are
# the icons inside Swagger UI's stylesheet.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "img-src": [SELF, "data:"],
        "object-src": [NONE],
        "base-uri": [SELF],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    }
}

# --- Request bodies -------------------------------------------------------------------------
# The largest body a request may have, checked before any of it is read by
# core.middleware.RequestBodyMiddleware (a JSON 413 on the API, a plain one on pages). The largest
# legitimate API body, a sign-up with every field at its longest and every character
# \u-escaped, is a few kilobytes (tests/api/test_bodies.py sends it); a play is a few hundred
# bytes, and the pages' forms are as small. Django's default, 2.5 MB, would let any request
# make a worker read and parse far more than any call can need.
REQUEST_BODY_MAX_BYTES = 16 * 1024
# Replies to turn emails come from the mail provider's inbound webhook as whole emails; that
# path alone (INBOUND_WEBHOOK_PREFIX) may send up to this much, and Django's own check, the
# last guard behind the middleware, is set to it.
INBOUND_MAIL_MAX_BYTES = 10 * 1024 * 1024
INBOUND_WEBHOOK_PREFIX = "/inbound/"
DATA_UPLOAD_MAX_MEMORY_SIZE = INBOUND_MAIL_MAX_BYTES

# --- REST API -------------------------------------------------------------------------------
_renderers = ["core.renderers.JSONRenderer"]
if DEBUG:
    _renderers.append("rest_framework.renderers.BrowsableAPIRenderer")
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "accounts.authentication.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    # A personal token may call only what its scopes allow (accounts.permissions); a session
    # anything.
    "DEFAULT_PERMISSION_CLASSES": [
        "rest_framework.permissions.IsAuthenticated",
        "accounts.permissions.TokenScopes",
    ],
    "DEFAULT_RENDERER_CLASSES": _renderers,
    "DEFAULT_PARSER_CLASSES": ["core.parsers.JSONParser"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "core.api_errors.exception_handler",
    # The client's address, for the throttles keyed on it (sign-up, token creation) and the
    # login page's lockout (core.throttling.client_address): how many proxies in
    # front of gunicorn append to X-Forwarded-For. 0 trusts no header and takes REMOTE_ADDR.
    # N takes the N-th address from the right, the one the outermost proxy saw: what a client
    # writes into the header itself lies to the left of it. More than the proxies there are
    # would take the client's own words again; fewer, a proxy's address for every client.
    "NUM_PROXIES": env.int("NUM_PROXIES", default=0),
    "DEFAULT_THROTTLE_CLASSES": ["core.throttling.WindowScopedRateThrottle"],
    "DEFAULT_THROTTLE_RATES": {
        "signup": env.str("THROTTLE_SIGNUP", default="20/hour"),
        "tokens": env.str("THROTTLE_TOKENS", default="30/hour"),
        "plays": env.str("THROTTLE_PLAYS", default="120/minute"),
    },
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Dragonheart by mail API",
    "DESCRIPTION": "Play Dragonheart (Drachenherz) asynchronously. Errors are "
    '`{"code": "...", "detail": "..."}`; card ids and rules are those of the game record format.',
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    # No badge fetched from the public validator: it would send it our schema's address.
    "SWAGGER_UI_SETTINGS": {"deepLinking": True, "validatorUrl": None},
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    # The four kinds of notice share one set of channels (notifications/api.py).
    "ENUM_NAME_OVERRIDES": {"NotificationChannelEnum": "notifications.models.Channel"},
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "accounts.permissions.document_token_scopes",
        "core.api_errors.document_error_responses",
    ],
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env.str("LOG_LEVEL", default="INFO")},
    # Never SQL, whatever LOG_LEVEL says: with DEBUG on, Django logs every query with its
    # parameters, and those carry the cached game state (every hand and pile) and token digests.
    "loggers": {"django.db.backends": {"level": "INFO"}},
}

# Ratings (Glicko-2): one game is one rating period, and a player's deviation grows by the
# volatility for each RATING_PERIOD_DAYS without a rated game; the leaderboard lists players with
# at least five rated games in the last ESTABLISHED_DAYS whose rating is no longer provisional.
RATING_PERIOD_DAYS = env.int("RATING_PERIOD_DAYS", default=7)
ESTABLISHED_DAYS = env.int("ESTABLISHED_DAYS", default=90)

# Presence (accounts/presence.py): a player whose game page or lobby answered them within the
# window, whatever its length, is at the table. A "your turn" email to them is held until
# EMAIL_HOLD_SECONDS after their last request, and its delivery queued with a countdown to that
# moment (outbox.services.hold): it goes then if they have gone and the turn is still theirs,
# else it is held again.
PRESENCE_WINDOW_SECONDS = env.int("PRESENCE_WINDOW_SECONDS", default=120)
EMAIL_HOLD_SECONDS = env.int("EMAIL_HOLD_SECONDS", default=300)

# Web Push (notifications/push.py): the VAPID key pair that signs every push (make one with
# `manage.py vapid_keys`): the base64url raw 32-byte P-256 private key, the base64url
# uncompressed public point (the browsers' applicationServerKey) and a mailto: or https: URL
# for the push services to reach the operator. Without the keys push is off. A subscription's
# endpoint must be https:// and public, unless PUSH_ALLOW_INSECURE_ENDPOINTS (tests, local
# runs: http:// and loopback). A push is kept by the push service PUSH_TTL_SECONDS at most.
VAPID_PRIVATE_KEY = env.str("VAPID_PRIVATE_KEY", default="")
VAPID_PUBLIC_KEY = env.str("VAPID_PUBLIC_KEY", default="")
VAPID_SUBJECT = env.str("VAPID_SUBJECT", default="")
PUSH_ALLOW_INSECURE_ENDPOINTS = env.bool("PUSH_ALLOW_INSECURE_ENDPOINTS", default=False)
PUSH_TTL_SECONDS = env.int("PUSH_TTL_SECONDS", default=86400)

# Play by reply (notifications/inbound.py): turn emails get a Reply-To at this domain, whose
# mail reaches `manage.py inbound_smtp` or the provider's inbound webhook (anymail). Empty:
# no Reply-To, and replies are not read.
INBOUND_EMAIL_DOMAIN = env.str("INBOUND_EMAIL_DOMAIN", default="")
INBOUND_REPLIES_PER_HOUR = env.int("INBOUND_REPLIES_PER_HOUR", default=30)

# The provider's inbound webhook (anymail; e.g. /inbound/postmark/inbound/), on only with its
# secret, which the provider sends as HTTP basic auth ("user:password").
ANYMAIL = {"WEBHOOK_SECRET": env.str("ANYMAIL_WEBHOOK_SECRET", default="")}
