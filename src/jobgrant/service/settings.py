"""Django settings, read from the environment and validated (12-factor, as in healthchecks).

JOBGRANT_ENV               development (default) | test | production
JOBGRANT_DATABASE_URL      sqlite:///path (default var/jobgrant.sqlite3) or postgresql://user@host:port/db
JOBGRANT_PROXY_SSL_HEADER  behind a TLS-terminating proxy: the header it sets to "https" (e.g.
                           X-Forwarded-Proto); never set it unless only the proxy reaches us
JOBGRANT_USE_X_FORWARDED_HOST  true: the host is the proxy's X-Forwarded-Host (default: Host)
JOBGRANT_SECRET_KEY        required in production; development generates one in var/
JOBGRANT_SIN_KEYS          key-id:base64-32-bytes[,...] for SIN encryption (the first encrypts)
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
                           (see notifications/delivery_actions.py)
JOBGRANT_RECEIPTS_MAX_FILES  receipts per claim (default 20)
JOBGRANT_RECEIPT_MAX_BYTES   bytes per receipt (default 10485760, 10 MB)
JOBGRANT_RECEIPTS_STORAGE  file (default: var/receipts/) | s3 (django-storages' S3 backend,
                           any S3-compatible store), then JOBGRANT_RECEIPTS_S3_BUCKET (required),
                           JOBGRANT_RECEIPTS_S3_ENDPOINT_URL, JOBGRANT_RECEIPTS_S3_REGION and the
                           usual AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY (boto3 reads them)
JOBGRANT_DEMO_MAIL         1: serve /demo/mail/, the messages of the outbox (make run; never in
                           production)
"""

from __future__ import annotations

import base64
import os
import secrets
from pathlib import Path
from urllib.parse import unquote, urlparse

from django.core.exceptions import ImproperlyConfigured

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
DEBUG = False
ALLOWED_HOSTS = (
    os.environ.get("JOBGRANT_ALLOWED_HOSTS", "").split(",")
    if PRODUCTION
    else ["127.0.0.1", "localhost", "testserver", "[::1]"]
)
JOBGRANT_POLICY = os.environ.get("JOBGRANT_POLICY", "cjg-2013")


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
        }
    if parsed.scheme in {"postgres", "postgresql"}:
        return {
            "ENGINE": "django.db.backends.postgresql",
            "NAME": parsed.path.lstrip("/") or "jobgrant",
            "USER": unquote(parsed.username or ""),
            "PASSWORD": unquote(parsed.password or ""),
            "HOST": parsed.hostname or "",
            "PORT": str(parsed.port or ""),
            "CONN_MAX_AGE": 60,
            "CONN_HEALTH_CHECKS": True,
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
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
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
AUTH_USER_MODEL = "accounts.User"
PASSWORD_HASHERS = ["django.contrib.auth.hashers.Argon2PasswordHasher"]
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]
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
JOBGRANT_DEMO_MAIL = os.environ.get("JOBGRANT_DEMO_MAIL", "").lower() in {"1", "true", "yes"}
if JOBGRANT_DEMO_MAIL and PRODUCTION:
    raise ImproperlyConfigured("JOBGRANT_DEMO_MAIL shows every message: never in production")
TASKS = {
    "default": {"BACKEND": "django_tasks_db.DatabaseBackend", "QUEUES": ["default"]},
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    # The participant link's token never reaches a log (service/log_redaction.py).
    "filters": {"link_tokens": {"()": "jobgrant.service.log_redaction.RedactLinkTokens"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "filters": ["link_tokens"]}},
    "root": {"handlers": ["console"], "level": "WARNING"},
    "loggers": {
        # What the worker did with each message (id, kind, attempt, outcome; never the body).
        "jobgrant.notifications": {"level": "INFO"},
        **{
            name: {"filters": ["link_tokens"]}
            for name in ("django.request", "django.server", "django.security")
        },
    },
}
AUTHENTICATION_BACKENDS = ["jobgrant.service.accounts.backends.JobgrantBackend"]
if ENVIRONMENT == "test":
    # Still Argon2, at the smallest cost, so that the test suite does not spend its time hashing.
    PASSWORD_HASHERS = ["jobgrant.service.accounts.hashers.QuickArgon2PasswordHasher"]
