"""Django settings, read from the environment and validated (12-factor, as in healthchecks).

JOBGRANT_ENV               development (default) | test | production
JOBGRANT_DATABASE_URL      sqlite:///path (default var/jobgrant.sqlite3) or postgresql://user@host:port/db
JOBGRANT_PROXY_SSL_HEADER  behind a TLS-terminating proxy: the header it sets to "https" (e.g.
                           X-Forwarded-Proto); never set it unless only the proxy reaches us
JOBGRANT_USE_X_FORWARDED_HOST  true: the host is the proxy's X-Forwarded-Host (default: Host)
JOBGRANT_SECRET_KEY        required in production; development generates one in var/
JOBGRANT_SIN_KEYS          key-id:base64-32-bytes[,...] for SIN encryption (the first encrypts;
                           `jobgrant sin rekey` re-encrypts every SIN under it)
JOBGRANT_SIN_INDEX_KEY     base64-32-bytes: the SIN blind index's HMAC key, which never rotates
                           with the encryption keys (a rotated index would let a SIN register
                           twice); required in production
JOBGRANT_EVALUATION_KEYS   key-id:base64-32-bytes[,...] keying the pseudonyms of the evaluation
                           export (the first keys; optional: without it the export is refused)
JOBGRANT_OTP_KEYS          key-id:base64-32-bytes[,...] sealing the authenticator apps' seeds (the
                           first seals; `jobgrant otp rekey` seals every seed under it)
JOBGRANT_ALLOWED_HOSTS     comma-separated (production)
JOBGRANT_POLICY            the rules policy new programs use (default cjg-2013)
JOBGRANT_BASE_URL          the service's public address, for links in messages (default
                           http://127.0.0.1:8000)
JOBGRANT_EMAIL_BACKEND     smtp (production default) | file (development default: var/mail/) |
                           console | locmem, or a dotted backend path
EMAIL_HOST, EMAIL_PORT, EMAIL_HOST_USER, EMAIL_HOST_PASSWORD, EMAIL_USE_TLS, EMAIL_USE_SSL,
EMAIL_TIMEOUT, DEFAULT_FROM_EMAIL   the SMTP server messages are delivered to (Django's names)
JOBGRANT_MESSAGE_*         the worker's delivery: MAX_ATTEMPTS, BACKOFF_SECONDS,
                           BACKOFF_CAP_SECONDS, LEASE_SECONDS, SWEEP_SECONDS
                           (see notifications/delivery_actions.py); BODY_DAYS (30): how long a
                           sent message's body is kept (docs/security.md)
JOBGRANT_DELIVERY          smtp (default: Django's email backend) | notify (GC Notify's API)
JOBGRANT_NOTIFY_*          with notify: BASE_URL (default https://api.notification.canada.ca),
                           API_KEY (name-serviceid-secret), TEMPLATES (JSON, or @file: {"en":
                           id, "fr": id, "<kind>.<en|fr>": id}), TIMEOUT_SECONDS (10),
                           RATE_PER_MINUTE (1000, GC Notify's limit), WORKERS (1: the worker
                           processes sharing it), LISTING_LAG_SECONDS (30) (notify_config.py)
JOBGRANT_RECEIPTS_MAX_FILES  receipts per claim (default 20)
JOBGRANT_RECEIPT_MAX_BYTES   bytes per receipt (default 10485760, 10 MB)
JOBGRANT_RECEIPTS_STORAGE  file (default: var/receipts/) | s3 (django-storages' S3 backend,
                           any S3-compatible store), then JOBGRANT_RECEIPTS_S3_BUCKET (required),
                           JOBGRANT_RECEIPTS_S3_ENDPOINT_URL, JOBGRANT_RECEIPTS_S3_REGION and the
                           usual AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY (boto3 reads them)
JOBGRANT_BUILD_DIR         what is built once per content of the sources and reused: the static
                           files collected, a migrated SQLite database (default: the checkout's
                           var/build/; none in production: see _build_dir below)
JOBGRANT_DEMO_MAIL         1: serve /demo/mail/, the messages of the outbox (make run; never in
                           production)
JOBGRANT_CLIENT_IP_PROXIES behind a proxy: how many proxies append to X-Forwarded-For (default 0:
                           the address is REMOTE_ADDR); lockouts and rate limits count per address
JOBGRANT_CACHE_URL         the cache the rate limits count in, shared by every server: db (default,
                           a table in the database) or redis://host:port/n
JOBGRANT_PASSWORD_RESET_ANSWER_SECONDS  the least time the reset page takes (0.25)
JOBGRANT_RATE_<NAME>       a rate limit, e.g. JOBGRANT_RATE_SIGN_IN=20/m (accounts/limits.py)
JOBGRANT_METRICS_PORT      a server's metrics listener (Prometheus), apart from the service's
                           port; JOBGRANT_WORKER_METRICS_PORT a worker's; both on
                           JOBGRANT_METRICS_HOST (default 127.0.0.1) (observability/endpoint.py)
"""

from __future__ import annotations

import base64
import os
import secrets
from pathlib import Path
from urllib.parse import unquote, urlparse

from django.core.exceptions import ImproperlyConfigured
from whitenoise.compress import Compressor

BASE_DIR = Path(__file__).resolve().parents[3]
VAR_DIR = Path(os.environ.get("JOBGRANT_VAR_DIR", BASE_DIR / "var"))
ENVIRONMENT = os.environ.get("JOBGRANT_ENV", "development")
if ENVIRONMENT not in {"development", "test", "production"}:
    raise ImproperlyConfigured("JOBGRANT_ENV must be development, test or production")
PRODUCTION = ENVIRONMENT == "production"


def _development_secret(name: str, make: str) -> str:
    """A secret kept in var/ so that development restarts keep sessions and encrypted data."""
    VAR_DIR.mkdir(parents=True, exist_ok=True)
    path = VAR_DIR / name
    if not path.exists():
        path.write_text(make)
        path.chmod(0o600)
    return path.read_text().strip()


def _secret(variable: str, file_name: str, make: str) -> str:
    value = os.environ.get(variable)
    if value:
        return value
    if PRODUCTION:
        raise ImproperlyConfigured(f"{variable} is required in production")
    return _development_secret(file_name, make)


SECRET_KEY = _secret("JOBGRANT_SECRET_KEY", "secret-key", secrets.token_urlsafe(50))
SIN_KEYS = _secret(
    "JOBGRANT_SIN_KEYS",
    "sin-keys",
    "k1:" + base64.b64encode(secrets.token_bytes(32)).decode(),
)
SIN_INDEX_KEY = _secret(
    "JOBGRANT_SIN_INDEX_KEY", "sin-index-key", base64.b64encode(secrets.token_bytes(32)).decode()
)
OTP_KEYS = _secret(
    "JOBGRANT_OTP_KEYS",
    "otp-keys",
    "k1:" + base64.b64encode(secrets.token_bytes(32)).decode(),
)
# The evaluation export's pseudonyms (outcomes/evaluation_export.py): a key ring, the first key
# keys. Optional in production: without it the export is refused, nothing else changes.
EVALUATION_KEYS = os.environ.get("JOBGRANT_EVALUATION_KEYS") or (
    ""
    if PRODUCTION
    else _development_secret(
        "evaluation-keys", "e1:" + base64.b64encode(secrets.token_bytes(32)).decode()
    )
)
DEBUG = False
ALLOWED_HOSTS = (
    os.environ.get("JOBGRANT_ALLOWED_HOSTS", "").split(",")
    if PRODUCTION
    else ["127.0.0.1", "localhost", "testserver", "[::1]"]
)
JOBGRANT_POLICY = os.environ.get("JOBGRANT_POLICY", "cjg-2013")


#: Parameters bound by PostgreSQL, and a statement a connection has run five times prepared
#: (psycopg's default threshold): parsed and planned once (ADR 0056, postgresql/base.py).
_PREPARED = {"server_side_binding": True, "prepare_threshold": 5}


def database_from_url(url: str) -> dict[str, object]:
    """A Django DATABASES entry from sqlite:///path or postgresql://user:pw@host:port/name."""
    parsed = urlparse(url)
    if parsed.scheme == "sqlite":
        path = unquote(parsed.path) or str(VAR_DIR / "jobgrant.sqlite3")
        return {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": path,
            # BEGIN IMMEDIATE: a writer takes the lock when its transaction starts, so two
            # approvals never both read the old budget; WAL + synchronous=FULL for durability.
            "OPTIONS": {
                "transaction_mode": "IMMEDIATE",
                "timeout": 30,
                "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;"
                " PRAGMA foreign_keys=ON;",
            },
            "TEST": {"NAME": str(VAR_DIR / "test-jobgrant.sqlite3")},
            # Each worker keeps its connection, as on PostgreSQL: opened for every request, its
            # functions registered and its PRAGMAs run again, it cost Schemathesis' run (5,426
            # requests to a 2-worker server) 74.7 s of CPU against 69.5 s kept.
            "CONN_MAX_AGE": 60,
        }
    if parsed.scheme in {"postgres", "postgresql"}:
        return {
            "ENGINE": "jobgrant.service.postgresql",
            "NAME": parsed.path.lstrip("/") or "jobgrant",
            "USER": unquote(parsed.username or ""),
            "PASSWORD": unquote(parsed.password or ""),
            "HOST": parsed.hostname or "",
            "PORT": str(parsed.port or ""),
            "CONN_MAX_AGE": 60,
            "CONN_HEALTH_CHECKS": True,
            "OPTIONS": _PREPARED if os.environ.get("JOBGRANT_DATABASE_PREPARE", "1") == "1" else {},
        }
    raise ImproperlyConfigured("JOBGRANT_DATABASE_URL must start with sqlite:// or postgresql://")


VAR_DIR.mkdir(parents=True, exist_ok=True)
DATABASES = {
    "default": database_from_url(
        os.environ.get("JOBGRANT_DATABASE_URL", f"sqlite:///{VAR_DIR / 'jobgrant.sqlite3'}")
    )
}

INSTALLED_APPS = [
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.staticfiles",
    "django_otp",
    "django_otp.plugins.otp_totp",
    "django_otp.plugins.otp_static",
    "axes",
    "django_ratelimit",
    "csp",
    "ninja",  # serves its Swagger UI from our static files, not from a CDN
    "jobgrant.service.accounts",
    "jobgrant.service.registry",
    "jobgrant.service.grants",
    "jobgrant.service.ledger",
    "jobgrant.service.notifications",
    "jobgrant.service.analysis",
    "django_tasks",
    "django_tasks_db",
    "jobgrant.service.audit",
    "jobgrant.service.api",
    "jobgrant.service.web",
]
MIDDLEWARE = [
    # First: the request id is bound before anything logs, and every answer is timed and counted
    # (observability/; docs/deployment.md, "Metrics" and "Logs").
    "jobgrant.service.observability.request_id.RequestIdMiddleware",
    "jobgrant.service.observability.metrics.RequestMetricsMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "jobgrant.service.security_headers.SecurityHeaders",  # Permissions-Policy, API no-store
    "csp.middleware.CSPMiddleware",  # Content-Security-Policy (below)
    "jobgrant.service.api.body_limit.ApiBodyLimit",  # 413 problem+json before any body is read
    "jobgrant.service.static_serving.StaticFilesMiddleware",  # WhiteNoise, its walk kept
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django_otp.middleware.OTPMiddleware",
    # After the user is known: end a session past its idle or absolute limit, then send a
    # signed-in person who still owes a second factor to that step (accounts/sessions.py).
    "jobgrant.service.accounts.sessions.SessionLimitsMiddleware",
    "jobgrant.service.accounts.second_factor.SecondFactorMiddleware",
    "jobgrant.service.api.refusal_audit.AuditApiRefusals",  # every API refusal audited
    # The field errors an employer's or a trainee's refused form showed (the burden meter).
    "jobgrant.service.web.field_errors.FieldErrorsMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # Last, so that it sees the sign-in's answer: a locked-out attempt becomes the lockout page.
    "axes.middleware.AxesMiddleware",
]
ROOT_URLCONF = "jobgrant.service.urls"
WSGI_APPLICATION = "jobgrant.service.wsgi.application"
TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "jobgrant.service.web.context.page",
            ]
        },
    }
]
# Django's, with its select boxes written in Python (the same HTML; web/form_renderer.py).
FORM_RENDERER = "jobgrant.service.web.form_renderer.QuickSelects"
AUTH_USER_MODEL = "accounts.User"
PASSWORD_HASHERS = ["django.contrib.auth.hashers.Argon2PasswordHasher"]
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {
        "NAME": "django.contrib.auth.password_validation.MinimumLengthValidator",
        "OPTIONS": {"min_length": 12},
    },
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
    # The passwords of a leaked list (zxcvbn's, from Mark Burnett's 10 million): see ADR 0019.
    {"NAME": "jobgrant.service.accounts.passwords.BreachedPasswordValidator"},
]
# A reset link works for an hour, once, and not after the password changed (people/account_links).
PASSWORD_RESET_TIMEOUT = 3600
LANGUAGE_CODE = "en"
LOCALE_PATHS = [Path(__file__).parent / "web" / "locale"]
LOGIN_URL = "web:sign-in"
LOGIN_REDIRECT_URL = "web:home"
LANGUAGES = [("en", "English"), ("fr", "Français")]
USE_I18N = True
TIME_ZONE = "America/Toronto"
USE_TZ = True
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
STATIC_URL = "static/"
STATIC_ROOT = VAR_DIR / "static"
STATIC_ROOT.mkdir(exist_ok=True)  # whitenoise warns about a missing root before collectstatic


def _build_dir() -> Path | None:
    """What is built once per content of the sources and reused by every process started from
    this checkout: the collected static files (static/, static_files.py) and a freshly migrated
    database (migrated/, migrated_template.py). By default the checkout's var/build/, shared by
    the servers and test processes that run on var directories of their own; none in
    production (each host collects its static files once per release; PostgreSQL is migrated
    once per release) unless JOBGRANT_BUILD_DIR names one."""
    if os.environ.get("JOBGRANT_BUILD_DIR"):
        return Path(os.environ["JOBGRANT_BUILD_DIR"])
    return None if PRODUCTION else BASE_DIR / "var" / "build"


JOBGRANT_BUILD_DIR = _build_dir()
# Source maps (Swagger UI's and ReDoc's, 5 MB) are read only by a browser's developer tools:
# compressing them took half of collectstatic's time (Brotli at its highest level).
WHITENOISE_SKIP_COMPRESS_EXTENSIONS = (*Compressor.SKIP_COMPRESS_EXTENSIONS, "map")
STORAGES: dict[str, dict[str, object]] = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}
# Claim receipts (grants.receipt_files): outside the database, never served as static files.
JOBGRANT_RECEIPTS_MAX_FILES = int(os.environ.get("JOBGRANT_RECEIPTS_MAX_FILES", "20"))
JOBGRANT_RECEIPT_MAX_BYTES = int(
    os.environ.get("JOBGRANT_RECEIPT_MAX_BYTES", str(10 * 1024 * 1024))
)
_receipts_storage = os.environ.get("JOBGRANT_RECEIPTS_STORAGE", "file")
if _receipts_storage == "s3":
    _bucket = os.environ.get("JOBGRANT_RECEIPTS_S3_BUCKET", "")
    if not _bucket:
        raise ImproperlyConfigured("JOBGRANT_RECEIPTS_S3_BUCKET is required with s3 receipts")
    STORAGES["receipts"] = {
        "BACKEND": "storages.backends.s3.S3Storage",
        "OPTIONS": {
            "bucket_name": _bucket,
            "endpoint_url": os.environ.get("JOBGRANT_RECEIPTS_S3_ENDPOINT_URL") or None,
            "region_name": os.environ.get("JOBGRANT_RECEIPTS_S3_REGION") or None,
            "default_acl": "private",
            "querystring_auth": True,
            "file_overwrite": False,
        },
    }
elif _receipts_storage == "file":
    STORAGES["receipts"] = {
        "BACKEND": "django.core.files.storage.FileSystemStorage",
        "OPTIONS": {"location": str(VAR_DIR / "receipts"), "base_url": None},
    }
else:
    raise ImproperlyConfigured("JOBGRANT_RECEIPTS_STORAGE must be file or s3")
if ENVIRONMENT == "test":
    STORAGES["staticfiles"] = {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}
    WHITENOISE_USE_FINDERS = True

# Behind a reverse proxy that terminates TLS (docs/deployment.md), the request reaches gunicorn
# over plain HTTP: the proxy's header says it was HTTPS, so that secure cookies, HSTS and the
# CSRF origin check see the scheme the browser used. Trusted only when named, since a client
# that reaches gunicorn directly could send the header itself.
_proxy_ssl_header = os.environ.get("JOBGRANT_PROXY_SSL_HEADER", "").strip()
if _proxy_ssl_header:
    SECURE_PROXY_SSL_HEADER = ("HTTP_" + _proxy_ssl_header.upper().replace("-", "_"), "https")
USE_X_FORWARDED_HOST = os.environ.get("JOBGRANT_USE_X_FORWARDED_HOST", "").lower() in {
    "1",
    "true",
    "yes",
}

SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"
SESSION_COOKIE_SECURE = PRODUCTION
CSRF_COOKIE_SECURE = PRODUCTION
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
# Scripts, fonts and images from this origin only: no inline script anywhere (templates load
# static files; tests/service/hardening/test_headers.py holds them to it, and the browser tests
# fail on any violation). Styles: this origin, and inline styles, which GC Design System's
# runtime (Stencil) injects as it renders its components; our own templates have none (the same
# test), and a style cannot run a script.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'", "'unsafe-inline'"],
        "img-src": ["'self'", "data:"],
        "font-src": ["'self'"],
        "connect-src": ["'self'"],
        "object-src": ["'none'"],
        "base-uri": ["'none'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'none'"],
    }
}
if PRODUCTION:
    SECURE_HSTS_SECONDS = 31_536_000
    SESSION_COOKIE_NAME = "__Host-sessionid"
    CSRF_COOKIE_NAME = "__Host-csrftoken"

# --- Messages (the outbox and `jobgrant worker`) -----------------------------------------------
JOBGRANT_BASE_URL = os.environ.get("JOBGRANT_BASE_URL", "http://127.0.0.1:8000")
_EMAIL_BACKENDS = {
    name: f"django.core.mail.backends.{name.replace('file', 'filebased')}.EmailBackend"
    for name in ("smtp", "file", "console", "locmem")
}
_email_backend = os.environ.get("JOBGRANT_EMAIL_BACKEND") or ("smtp" if PRODUCTION else "file")
EMAIL_BACKEND = _EMAIL_BACKENDS.get(_email_backend, _email_backend)
EMAIL_FILE_PATH = os.environ.get("JOBGRANT_MAIL_DIR", str(VAR_DIR / "mail"))
if _email_backend == "file":  # the place the pages name exists before the first message
    Path(EMAIL_FILE_PATH).mkdir(parents=True, exist_ok=True)
EMAIL_HOST = os.environ.get("EMAIL_HOST", "localhost")
EMAIL_PORT = int(os.environ.get("EMAIL_PORT", "25"))
EMAIL_HOST_USER = os.environ.get("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = os.environ.get("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = os.environ.get("EMAIL_USE_TLS", "").lower() in {"1", "true", "yes"}
EMAIL_USE_SSL = os.environ.get("EMAIL_USE_SSL", "").lower() in {"1", "true", "yes"}
EMAIL_TIMEOUT = int(os.environ.get("EMAIL_TIMEOUT", "20"))
DEFAULT_FROM_EMAIL = os.environ.get(
    "DEFAULT_FROM_EMAIL", "Canada Job Grant <no-reply@jobgrant.localhost>"
)
JOBGRANT_MESSAGE_MAX_ATTEMPTS = int(os.environ.get("JOBGRANT_MESSAGE_MAX_ATTEMPTS", "8"))
JOBGRANT_MESSAGE_BACKOFF_SECONDS = float(os.environ.get("JOBGRANT_MESSAGE_BACKOFF_SECONDS", "30"))
JOBGRANT_MESSAGE_BACKOFF_CAP_SECONDS = float(
    os.environ.get("JOBGRANT_MESSAGE_BACKOFF_CAP_SECONDS", "3600")
)
# Longer than an SMTP conversation can last (EMAIL_TIMEOUT), so a live worker never loses its row.
JOBGRANT_MESSAGE_LEASE_SECONDS = float(os.environ.get("JOBGRANT_MESSAGE_LEASE_SECONDS", "120"))
JOBGRANT_MESSAGE_SWEEP_SECONDS = float(os.environ.get("JOBGRANT_MESSAGE_SWEEP_SECONDS", "15"))
# The least time the password reset page takes to answer, known address or not (a known one
# costs a link and a message, some milliseconds; the floor hides the difference).
JOBGRANT_PASSWORD_RESET_ANSWER_SECONDS = float(
    os.environ.get("JOBGRANT_PASSWORD_RESET_ANSWER_SECONDS", "0.25")
)
# How long the outbox keeps a sent message's body (its links already redacted at sending):
# then the worker empties it (delivery_actions.prune_sent_bodies); the row itself stays.
JOBGRANT_MESSAGE_BODY_DAYS = int(os.environ.get("JOBGRANT_MESSAGE_BODY_DAYS", "30"))
# How the worker delivers a row: smtp (Django's email backend above) or notify (GC Notify's API,
# notifications/notify_delivery.py; the JOBGRANT_NOTIFY_* values are checked when Django starts,
# by notifications/notify_config.py, so a worker or a server with a bad one does not start).
JOBGRANT_DELIVERY = os.environ.get("JOBGRANT_DELIVERY", "smtp")
if JOBGRANT_DELIVERY not in {"smtp", "notify"}:
    raise ImproperlyConfigured(
        f"JOBGRANT_DELIVERY must be smtp or notify, not {JOBGRANT_DELIVERY!r}"
    )
JOBGRANT_NOTIFY_BASE_URL = os.environ.get(
    "JOBGRANT_NOTIFY_BASE_URL", "https://api.notification.canada.ca"
)
JOBGRANT_NOTIFY_API_KEY = os.environ.get("JOBGRANT_NOTIFY_API_KEY", "")
JOBGRANT_NOTIFY_TEMPLATES = os.environ.get("JOBGRANT_NOTIFY_TEMPLATES", "")
JOBGRANT_NOTIFY_TIMEOUT_SECONDS = os.environ.get("JOBGRANT_NOTIFY_TIMEOUT_SECONDS", "10")
# GC Notify: "Your GC Notify service is limited to doing 1,000 API requests per minute", on a
# rolling average, per API key type (https://documentation.notification.canada.ca/en/limits.html).
JOBGRANT_NOTIFY_RATE_PER_MINUTE = os.environ.get("JOBGRANT_NOTIFY_RATE_PER_MINUTE", "1000")
# How many `jobgrant worker` processes share that limit: each keeps to its share (ADR 0025).
JOBGRANT_NOTIFY_WORKERS = os.environ.get("JOBGRANT_NOTIFY_WORKERS", "1")
# The least wait before re-trying a send whose outcome is unknown (a 5xx, a timeout): time for a
# notification Notify accepted to appear when it is looked up by its reference.
JOBGRANT_NOTIFY_LISTING_LAG_SECONDS = os.environ.get("JOBGRANT_NOTIFY_LISTING_LAG_SECONDS", "30")
JOBGRANT_DEMO_MAIL = os.environ.get("JOBGRANT_DEMO_MAIL", "").lower() in {"1", "true", "yes"}
if JOBGRANT_DEMO_MAIL and PRODUCTION:
    raise ImproperlyConfigured("JOBGRANT_DEMO_MAIL shows every message: never in production")
TASKS = {
    "default": {"BACKEND": "django_tasks_db.DatabaseBackend", "QUEUES": ["default"]},
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    # JSON lines with the request id (observability/logs.py); the participant link's token never
    # reaches a log (service/log_redaction.py).
    "filters": {
        "link_tokens": {"()": "jobgrant.service.log_redaction.RedactLinkTokens"},
        "request_id": {"()": "jobgrant.service.observability.request_id.RequestIdFilter"},
    },
    "formatters": {"json": {"()": "jobgrant.service.observability.logs.JsonLines"}},
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "filters": ["request_id", "link_tokens"],
            "formatter": "json",
        }
    },
    "root": {"handlers": ["console"], "level": "WARNING"},
    "loggers": {
        # What the worker did with each message (id, kind, attempt, outcome; never the body).
        "jobgrant.notifications": {"level": "INFO"},
        # Lockouts and rate limits: our own line for each (accounts/lockout.py, limits.py);
        # django-axes' lines repeat them with the username and address masked.
        "jobgrant.security": {"level": "WARNING"},
        "axes": {"level": "ERROR"},
        **{
            name: {"filters": ["link_tokens"]}
            for name in ("django.request", "django.server", "django.security")
        },
    },
}
# django-axes first: it refuses a locked-out account or address before any password is checked.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "jobgrant.service.accounts.backends.JobgrantBackend",
]

# --- Sign-in, lockout, rate limits, sessions (ADR 0019) ----------------------------------------
# Lockout: 10 failures for one username (from anywhere) or from one address (for any username)
# lock that username or address for 15 minutes; a failure during the lockout starts it again.
AXES_FAILURE_LIMIT = 10
AXES_COOLOFF_TIME = 0.25  # hours: 15 minutes
AXES_LOCKOUT_PARAMETERS = ["username", "ip_address"]
AXES_RESET_ON_SUCCESS = True  # the right password clears the count (before any lockout)
AXES_LOCKOUT_CALLABLE = "jobgrant.service.accounts.lockout.lockout_response"
AXES_CLIENT_IP_CALLABLE = "jobgrant.service.accounts.limits.client_ip"
AXES_USERNAME_CALLABLE = "jobgrant.service.accounts.lockout.username_of"
AXES_VERBOSE = False  # our own log line and audit entry say it (accounts/lockout.py)
AXES_ENABLE_ADMIN = False
AXES_DISABLE_ACCESS_LOG = True  # successful sign-ins are not axes' business: only failures count
JOBGRANT_CLIENT_IP_PROXIES = int(os.environ.get("JOBGRANT_CLIENT_IP_PROXIES", "0"))

_cache_url = os.environ.get("JOBGRANT_CACHE_URL", "db")
CACHES = {
    "default": (
        {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": _cache_url}
        if _cache_url.startswith(("redis://", "rediss://"))
        else {
            "BACKEND": "django.core.cache.backends.db.DatabaseCache",
            "LOCATION": "jobgrant_cache",
            # Past MAX_ENTRIES rows a write first deletes the expired ones, then, by Django's
            # default, a third of the live ones (the first keys in order): the rate limits',
            # lockouts' and second-factor codes' counts, forgotten as soon as 300 were live at
            # once. Culling 1/10**9 of them deletes none: only expired entries go. Every write
            # counts the rows, so the table is kept near MAX_ENTRIES; far past it, use Redis.
            "OPTIONS": {"MAX_ENTRIES": 2000, "CULL_FREQUENCY": 10**9},
        }
    )
}
# The database cache is what every server already shares (docs/deployment.md); its increment is
# a read and a write, so two servers counting the same request at the same instant may count it
# once: the limits below are exact on Redis, and at worst a few requests generous on the database.
SILENCED_SYSTEM_CHECKS = ["django_ratelimit.E003", "django_ratelimit.W001"]
RATELIMIT_USE_CACHE = "default"
JOBGRANT_RATES = {
    name: os.environ.get(f"JOBGRANT_RATE_{name.upper()}", default)
    for name, default in {
        "sign_in": "20/m",  # sign-in form posts per address
        "token": "20/m",  # POST /api/v1/auth/token per address
        "password_reset": "5/h",  # reset requests per address, and per email address
        "register": "10/h",  # registrations per address
        "submit": "30/h",  # applications created or submitted per user (page or API)
        "second_factor": "10/m",  # codes typed per account and address
    }.items()
}
PRODUCTION_RATES = dict(JOBGRANT_RATES)  # the figures outside the test suite (see below)

# Sessions: staff 30 minutes idle, 12 hours in all; employers 2 hours idle, 12 hours in all.
SESSION_COOKIE_AGE = 12 * 3600
SESSION_STAFF_IDLE_SECONDS = 30 * 60
SESSION_EMPLOYER_IDLE_SECONDS = 2 * 3600
SESSION_ABSOLUTE_SECONDS = 12 * 3600
# API tokens: 30 days unless the client asks for fewer (at most 90).
API_TOKEN_DEFAULT_DAYS = 30
API_TOKEN_MAX_DAYS = 90
OTP_TOTP_ISSUER = "Canada Job Grant"
# No drift learning: a code is accepted for its 30-second step and one either side, once.
OTP_TOTP_SYNC = False
# Wrong codes are counted per account and address, and per account and browser, not per account
# alone (accounts/second_factor_limits.py): django-otp's throttling, one count per device whose
# wait doubles at each failure, let anyone with the password keep the owner out. It is off.
OTP_TOTP_THROTTLE_FACTOR = 0
OTP_STATIC_THROTTLE_FACTOR = 0
SECOND_FACTOR_WINDOW_MINUTES = 15
SECOND_FACTOR_FAILURE_LIMIT = 10  # per account and address, and per account and browser
SECOND_FACTOR_ACCOUNT_LIMIT = 30  # per account: the backstop, for browsers that never passed it
if ENVIRONMENT == "test":
    # Still Argon2, at the smallest cost, so that the test suite does not spend its time hashing.
    PASSWORD_HASHERS = ["jobgrant.service.accounts.hashers.QuickArgon2PasswordHasher"]
    # The suite signs the same people in hundreds of times a minute from 127.0.0.1; the tests
    # of the limits themselves (tests/service/accounts/test_rate_limits.py) put the production
    # figures back. The lockout (django-axes) keeps its production figures everywhere.
    JOBGRANT_RATES = dict.fromkeys(JOBGRANT_RATES, "100000/m")

# The KPIs' stored cells (outcomes/snapshots.py, ADR 0032): the worker refreshes a snapshot once
# it is older than this many minutes, so the figures a page shows are at most about this old
# (plus the refresh's own time) while a worker runs; the page says as of when.
JOBGRANT_KPI_REFRESH_MINUTES = float(os.environ.get("JOBGRANT_KPI_REFRESH_MINUTES", "15"))
