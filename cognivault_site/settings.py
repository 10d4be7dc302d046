"""CogniVault settings: one file, every knob read from the environment with a laptop default.

docs/configuration.md lists every environment variable read here.
"""

import contextlib
import os
import secrets
import tempfile
from pathlib import Path

import dj_database_url
from redis.connection import parse_url

from cognivault_site.data_dir import keep_private
from cognivault_site.network import machine_hosts

BASE_DIR = Path(__file__).resolve().parent.parent


def env_str(name: str, default: str) -> str:
    return os.environ.get(name, default)


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_int(name: str, default: int) -> int:
    value = os.environ.get(name)
    return int(value) if value else default


def env_list(name: str, default: list[str]) -> list[str]:
    value = os.environ.get(name)
    if value is None:
        return default
    return [item.strip() for item in value.split(",") if item.strip()]


def env_path(name: str, default: Path) -> Path:
    return Path(os.environ.get(name) or default).expanduser().resolve()


def read_or_create_secret_key(data_dir: Path) -> str:
    """A per-install key, generated on first run and kept under DATA_DIR (never committed)."""
    key_file = data_dir / "secret_key"
    if not key_file.exists():
        data_dir.mkdir(parents=True, exist_ok=True)
        # Written whole under another name (mode 0600), then linked into place: a process starting
        # at the same moment finds no key or the whole of one, never an empty file.
        fd, written = tempfile.mkstemp(dir=data_dir)
        try:
            with os.fdopen(fd, "w") as handle:
                handle.write(secrets.token_urlsafe(64))
            # Where another process's key is in place already, everyone uses that one.
            with contextlib.suppress(FileExistsError):
                os.link(written, key_file)
        finally:
            os.unlink(written)
    return key_file.read_text().strip()


# --- Where everything lives -----------------------------------------------------------------

DATA_DIR = env_path("DATA_DIR", BASE_DIR / "var")
# Every process loads these settings first: what it writes under DATA_DIR is its account's alone.
keep_private(DATA_DIR)

SECRET_KEY = os.environ.get("SECRET_KEY") or read_or_create_secret_key(DATA_DIR)
DEBUG = env_bool("DEBUG", False)

HOST = env_str("HOST", "0.0.0.0")
PORT = env_int("PORT", 8000)
HTTPS_PORT = env_int("HTTPS_PORT", 8443)
# daphne processes sharing PORT and HTTPS_PORT (cognivault_site/serve.py): one per core this
# process may use, where the kernel spreads connections among them (Linux); one elsewhere
# (docs/deployment.md#more-than-one-web-process).
WEB_PROCESSES = env_int(
    "WEB_PROCESSES", len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1
)

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", machine_hosts())
CSRF_TRUSTED_ORIGINS = env_list(
    "CSRF_TRUSTED_ORIGINS",
    [
        f"{scheme}://{host}:{port}"
        for host in ALLOWED_HOSTS
        for scheme, port in (("http", PORT), ("https", HTTPS_PORT))
    ],
)

# --- Django -----------------------------------------------------------------------------------

# Not daphne's app (which only swaps runserver for daphne's): it imports daphne's server, which
# makes Twisted's event loop in every process at setup, before the web launcher forks
# (cognivault_site/serve.py).
INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django_htmx",
    "template_partials",
    # Serves Swagger UI for /api/v1/docs from its own static files instead of public CDNs.
    "ninja",
    "csp",
    "channels",
    "axes",
    "apps.accounts",
    "apps.classes",
    "apps.chat",
    "apps.vault",
    "apps.study",
    "apps.progress",
    "apps.llm",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # Another machine on plain HTTP goes to HTTPS_PORT; cookies are Secure over TLS.
    "cognivault_site.middleware.LanHttpsMiddleware",
    "csp.middleware.CSPMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    # Under /api/: a method a route does not take answers JSON like every other error.
    "cognivault_site.errors.JsonErrorsMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # The time zone the browser reports (a `tz` cookie), so pages show local times.
    "apps.progress.middleware.LocalTimeZoneMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "apps.accounts.middleware.HtmxLoginRedirectMiddleware",
    "apps.accounts.middleware.RememberSectionMiddleware",
    # RateLimited (apps/accounts/ratelimits.py) from a page becomes a 429 with a message.
    "apps.accounts.ratelimits.RateLimitMiddleware",
    # Last, as django-axes asks: it turns lockouts into a clear page.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "cognivault_site.urls"
ASGI_APPLICATION = "cognivault_site.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            # {% partialdef %} in every template without a {% load %}.
            "builtins": ["template_partials.templatetags.partials"],
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "apps.llm.context_processors.egress",
            ],
        },
    },
]

# SQLite in WAL mode with a busy timeout and IMMEDIATE transactions: a classroom of
# concurrent writers queues for the write lock instead of failing with "database is locked".
DATABASES = {
    "default": {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": DATA_DIR / "cognivault.sqlite3",
        "OPTIONS": {
            "timeout": 20,
            "transaction_mode": "IMMEDIATE",
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        },
    }
}
# PostgreSQL's connections come from a pool in each process (Django's, psycopg_pool): daphne runs
# each request in a context of its own, where a connection kept for later was never used again
# and a school's pages left hundreds open until PostgreSQL refused more (docs/deployment.md).
DATABASE_POOL_SIZE = env_int("DATABASE_POOL_SIZE", 20)
if os.environ.get("DATABASE_URL"):
    DATABASES["default"] = dj_database_url.parse(os.environ["DATABASE_URL"])
    if DATABASES["default"]["ENGINE"].endswith("postgresql"):
        pool = {"min_size": 2, "max_size": DATABASE_POOL_SIZE, "timeout": 30}
        DATABASES["default"]["OPTIONS"] = {"pool": pool}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_USER_MODEL = "accounts.User"
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
    # Login cards (apps/accounts/login_cards.py): after axes, so its lockout applies to them too.
    "apps.accounts.login_cards.BadgeBackend",
]
# Django's hashers: the first makes new hashes (Argon2id at OWASP's minimum cost), the rest
# verify stored ones, which Django hashes again with the first at the next login; ours run
# below the pages' priority (apps/accounts/hashers.py).
PASSWORD_HASHERS = [
    "apps.accounts.hashers.LowPriorityArgon2PasswordHasher",
    "apps.accounts.hashers.LowPriorityPBKDF2PasswordHasher",
    "django.contrib.auth.hashers.PBKDF2SHA1PasswordHasher",
    "django.contrib.auth.hashers.BCryptSHA256PasswordHasher",
    "django.contrib.auth.hashers.ScryptPasswordHasher",
]
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]
LOGIN_URL = "accounts:login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "accounts:login"

# Five wrong passwords for one account from one address lock that account on that address for 15
# minutes: a student guessing at `teacher` never locks the teacher out of
# their own machine. Twenty from one address, for any accounts, lock the address.
AXES_FAILURE_LIMIT = env_int("AXES_FAILURE_LIMIT", 5)
AXES_ADDRESS_FAILURE_LIMIT = env_int("AXES_ADDRESS_FAILURE_LIMIT", 20)
AXES_COOLOFF_TIME = 0.25  # hours
# A try while locked out does not start the 15 minutes again: a classmate's guess every few
# minutes cannot keep an account locked, and the lockout ends when its 429 says.
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_HANDLER = "apps.accounts.lockout.PairLockoutHandler"
# A login resets only its own pair's failures (the handler's filter), never the address's others.
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_CALLABLE = "apps.accounts.views.locked_out"
# What axes records of a failed login leaves out: a login card's signed key among them.
AXES_SENSITIVE_PARAMETERS = ["username", "ip_address", "badge"]

LANGUAGE_CODE = "en"
TIME_ZONE = env_str("TIME_ZONE", "UTC")
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
# Static files are served by WhiteNoise straight from static/ and the apps: no collectstatic.
WHITENOISE_USE_FINDERS = True

# --- Security (LAN profile) -------------------------------------------------------------------

SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"
CSRF_COOKIE_SAMESITE = "Lax"
# A failed CSRF check under /api/ answers JSON like every other API error.
CSRF_FAILURE_VIEW = "cognivault_site.errors.csrf_failure"
X_FRAME_OPTIONS = "DENY"
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
# The classroom uses https://<lan-ip>:HTTPS_PORT with a self-signed certificate: plain HTTP
# from another machine is redirected there (cognivault_site/middleware.py), while this
# machine's own browser may stay on http://localhost:PORT. So the redirect and the cookies'
# Secure flag are decided per request by that middleware, not by Django's global switches,
# and HSTS stays off: a self-signed LAN certificate must never be pinned by browsers.
HTTPS_REDIRECT = env_bool("HTTPS_REDIRECT", True)
# SECURE_COOKIES=true makes every cookie HTTPS-only, e.g. behind a real TLS proxy.
SESSION_COOKIE_SECURE = env_bool("SECURE_COOKIES", False)
CSRF_COOKIE_SECURE = SESSION_COOKIE_SECURE
SILENCED_SYSTEM_CHECKS = [
    # HSTS: see above.
    "security.W004",
    # SSL redirect: LanHttpsMiddleware redirects other machines; localhost stays plain.
    "security.W008",
    # Django's own Redis cache: atomic add/incr, which is all django-ratelimit needs.
    "django_ratelimit.W001",
]
if not SESSION_COOKIE_SECURE:
    SILENCED_SYSTEM_CHECKS += [
        # LanHttpsMiddleware marks them Secure on every response sent over TLS.
        "security.W012",
        "security.W016",
    ]

# Content-Security-Policy on every response (django-csp): scripts only from this server, no
# inline script, no plugins, no framing. Styles may be inline (style attributes, htmx's
# indicator style); images may be data: URLs (the QR code, exported previews).
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'", "'unsafe-inline'"],
        "img-src": ["'self'", "data:", "blob:"],
        "connect-src": ["'self'"],
        "object-src": ["'none'"],
        "base-uri": ["'self'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'none'"],
    }
}

# --- Jobs and realtime -----------------------------------------------------------------------

REDIS_URL = env_str("REDIS_URL", "redis://127.0.0.1:6379/0")

CELERY_BROKER_URL = REDIS_URL
CELERY_RESULT_BACKEND = REDIS_URL
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_RESULT_EXPIRES = 24 * 3600
# Every queue, with the tasks sent to it (any other task goes to Celery's default, `celery`), in
# one place: the routing below, the health check (degraded while a queue has no worker consuming
# it: a question on `chat` would wait forever) and the recoveries a starting worker runs for the
# queues it serves read it, and tests/test_worker_queues.py checks the `-Q` lists of the Procfile
# and compose.yaml against it. Chat answers wait on the model, not the CPU: their own queue,
# served by a thread-pool worker (`-Q chat,study --pool=threads`), so ingestion never holds a
# chat up; study generation waits on the same model, on its own queue served by that worker too.
WORKER_QUEUES = {
    # Ingestion, class passwords, the files attached in the chat, the recordings to transcribe,
    # the pages the reader draws and the index's merges (any task not routed elsewhere): the jobs
    # worker.
    "celery": ["apps.chat.tasks.read_attachment", "apps.chat.tasks.transcribe_recording"],
    "chat": ["apps.chat.tasks.*"],  # chat answers
    "study": ["apps.study.tasks.*"],  # study generation
}
CELERY_TASK_ROUTES = {
    task: {"queue": queue} for queue, tasks in WORKER_QUEUES.items() for task in tasks
}

# The cache holds the rate-limit counters, the rendered document pickers (apps/vault/forms.py)
# and each person's study figures (apps/progress/activity.py), shared by every web process.
CACHES = {
    # Django's Redis cache, its connections kept between requests (cognivault_site/cache.py).
    "default": {"BACKEND": "cognivault_site.cache.SharedPoolRedisCache", "LOCATION": REDIS_URL}
}

# What the chat workers push reaches the web processes through Redis pub/sub: a web process
# subscribes its sockets' groups and Redis streams every push to it on one connection, where
# the list-based layer took four round trips a message and let a school's frames wait a minute
# (docs/architecture.md). A push nobody subscribes to is gone, as with the lists: a page that
# (re)connects starts from the saved answer. Pub/sub channels belong to the whole Redis server,
# not to one database, so the prefix carries the database's number: installs (and test apps) on
# other databases of the same server never hear each other's pushes.
REDIS_DATABASE = parse_url(REDIS_URL).get("db", 0)
CHANNEL_LAYERS = {
    "default": {
        "BACKEND": "channels_redis.pubsub.RedisPubSubChannelLayer",
        "CONFIG": {"hosts": [REDIS_URL], "prefix": f"cognivault-{REDIS_DATABASE}"},
    }
}

# --- Models ------------------------------------------------------------------------------------

# apps/llm/gateway.py and its backends (apps/llm/backends/) are the only code that talks to a
# model. `auto` uses Ollama when it answers and has the model, else the embedded CPU models;
# chat and embeddings are chosen separately because the vector space must not change under an
# index.
OLLAMA_HOST = env_str("OLLAMA_HOST", "http://localhost:11434")
LLM_BACKEND = env_str("LLM_BACKEND", "auto")
EMBEDDING_BACKEND = env_str("EMBEDDING_BACKEND", "auto")
LLM_MODEL = env_str("LLM_MODEL", "gemma4:e4b")
EMBEDDING_MODEL = env_str("EMBEDDING_MODEL", "embeddinggemma")
OLLAMA_TIMEOUT = env_int("OLLAMA_TIMEOUT", 120)  # seconds without a byte from Ollama
OLLAMA_CONNECT_TIMEOUT = env_int("OLLAMA_CONNECT_TIMEOUT", 3)
OLLAMA_RETRIES = env_int("OLLAMA_RETRIES", 2)  # for connection errors, with backoff
OLLAMA_BACKOFF_SECONDS = 0.5
OLLAMA_KEEP_ALIVE = env_str("OLLAMA_KEEP_ALIVE", "10m")
LLM_RECHECK_SECONDS = env_int("LLM_RECHECK_SECONDS", 30)
LLM_THREADS = env_int("LLM_THREADS", 0)  # 0: 2 threads, or 1 when the machine is busy
LLM_EMBEDDED_CONTEXT = env_int("LLM_EMBEDDED_CONTEXT", 8192)
LLM_MAX_TOKENS = env_int("LLM_MAX_TOKENS", 1024)
LLM_TIMEOUT = env_int("LLM_TIMEOUT", 300)  # waiting for the embedded model to be free
EMBEDDING_BATCH_SIZE = env_int("EMBEDDING_BATCH_SIZE", 32)
SPEECH_ENABLED = env_bool("SPEECH_ENABLED", True)
WHISPER_LANGUAGE = env_str("WHISPER_LANGUAGE", "")  # empty: detect the language
WHISPER_BEAM_SIZE = env_int("WHISPER_BEAM_SIZE", 1)
EGRESS_RECORD = env_bool("EGRESS_RECORD", True)

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "filters": {"refusals": {"()": "cognivault_site.logs.RefusalsInOneLine"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
    # faiss announces at INFO which CPU build it loaded, in every process.
    "loggers": {
        "axes": {"level": "WARNING"},
        "faiss": {"level": "WARNING"},
        "django.request": {"filters": ["refusals"]},
    },
}

# --- Progress ---------------------------------------------------------------------------------

# A chat message more than this many seconds after the last one opens a new study session.
STUDY_SESSION_IDLE_GAP_SECONDS = env_int("STUDY_SESSION_IDLE_GAP_SECONDS", 900)

# --- Class sets ---------------------------------------------------------------------------------

# Minutes after a quiz's due date in which an attempt started before it may still be submitted.
CLASS_SET_GRACE_MINUTES = env_int("CLASS_SET_GRACE_MINUTES", 10)

# --- Quotas and rate limits ---------------------------------------------------------------------

# Bytes a student may keep in vault documents, chat attachments and study items together (the
# items' text counted in characters); teachers have none.
STUDENT_QUOTA_MB = env_int("STUDENT_QUOTA_MB", 1024)
# django-ratelimit rates per person ("30/m", "100/h"); an empty value turns the limit off.
RATE_LIMIT_UPLOADS = env_str("RATE_LIMIT_UPLOADS", "30/m")
RATE_LIMIT_URL_IMPORTS = env_str("RATE_LIMIT_URL_IMPORTS", "10/m")
RATE_LIMIT_GENERATION = env_str("RATE_LIMIT_GENERATION", "10/m")
# A student's fair share of the workers (docs/classroom.md#a-fair-share-of-the-machine):
# questions (asked, edited or regenerated), chat attachments read (a failed read counts too),
# recordings transcribed and re-ingestions started, and how many of their answers and
# transcriptions may be under way at once.
RATE_LIMIT_CHAT_QUESTIONS = env_str("RATE_LIMIT_CHAT_QUESTIONS", "20/m")
RATE_LIMIT_ATTACHMENTS = env_str("RATE_LIMIT_ATTACHMENTS", "30/h")
RATE_LIMIT_TRANSCRIPTIONS = env_str("RATE_LIMIT_TRANSCRIPTIONS", "30/h")
RATE_LIMIT_REINGEST = env_str("RATE_LIMIT_REINGEST", "10/h")
# Pages (or whole texts) a person has a worker draw for the reader; one drawn already is free.
RATE_LIMIT_PAGES_DRAWN = env_str("RATE_LIMIT_PAGES_DRAWN", "60/m")
CHAT_ANSWERS_IN_PROGRESS = env_int("CHAT_ANSWERS_IN_PROGRESS", 1)
CHAT_TRANSCRIPTIONS_IN_PROGRESS = env_int("CHAT_TRANSCRIPTIONS_IN_PROGRESS", 1)
# Login card scans per address (the card's page and its Log in button count one each).
RATE_LIMIT_BADGES = env_str("RATE_LIMIT_BADGES", "30/m")
# Class codes a student tries (apps/classes/rosters.py): a code is 7 of 31 characters, and
# guessing one is this slow.
RATE_LIMIT_CLASS_JOINS = env_str("RATE_LIMIT_CLASS_JOINS", "10/h")
# A signed-in caller asking a refused route again before Retry-After waits this long for the
# refusal (at most until Retry-After), at the door (cognivault_site/door.py): a script looping on
# it asks about once a second instead of as fast as the server answers.
SLOW_REFUSAL_SECONDS = 1.0
# Chat attachments never sent with a question are deleted after this many hours.
CHAT_UNSENT_ATTACHMENT_HOURS = env_int("CHAT_UNSENT_ATTACHMENT_HOURS", 24)
# How long /api/v1/health reuses its Redis, worker and model checks.
HEALTH_CACHE_SECONDS = env_int("HEALTH_CACHE_SECONDS", 5)

# --- Request bodies ---------------------------------------------------------------------------

# What a request may send, decided by the web server at its headers (cognivault_site/bodies.py):
# MAX_BODY_MB on any route; on the routes that take files (UPLOAD_ROUTES, as their URL patterns;
# tests/test_upload_routes.py checks that every route reading a file is listed) up to
# MAX_UPLOAD_MB, for someone signed in only, with at most UPLOADS_PER_ADDRESS such bodies from one
# address and UPLOADS_AT_ONCE in all on their way at once, in each web process.
MAX_BODY_MB = env_int("MAX_BODY_MB", 1)
MAX_UPLOAD_MB = env_int("MAX_UPLOAD_MB", 500)
UPLOADS_PER_ADDRESS = env_int("UPLOADS_PER_ADDRESS", 2)
UPLOADS_AT_ONCE = env_int("UPLOADS_AT_ONCE", 8)
UPLOAD_ROUTES = [
    "vault/upload/",
    "api/v1/vault/documents",
    "chat/<int:thread_id>/attachments/",
    "api/v1/chat/transcribe",
    "study/decks/import/",
    "classes/import/",
    "api/v1/classes/import",
    "api/v1/study/decks/import",
    "study/quizzes/import/",
    "api/v1/study/quizzes/import",
]

# --- Vault ------------------------------------------------------------------------------------

MAX_FILES_PER_UPLOAD = 100
DATA_UPLOAD_MAX_NUMBER_FILES = MAX_FILES_PER_UPLOAD
# Every file is read in a child process that is killed after this long or beyond this memory.
EXTRACT_TIMEOUT_SECONDS = env_int("EXTRACT_TIMEOUT_SECONDS", 900)
EXTRACT_MEMORY_MB = env_int("EXTRACT_MEMORY_MB", 3072)
# A model that is down: retries after 10, 20, 40, 80, 160 s, then the run fails with the reason.
EMBED_MAX_RETRIES = env_int("EMBED_MAX_RETRIES", 5)
EMBED_RETRY_SECONDS = env_int("EMBED_RETRY_SECONDS", 10)
# A run whose worker has not reported for this long is resumed by another worker.
INGEST_STALE_SECONDS = env_int("INGEST_STALE_SECONDS", 90)
# The reader's drawn pages and texts on disk, at most this much; the oldest go first.
READER_CACHE_MB = env_int("READER_CACHE_MB", 1024)

# --- Retrieval ---------------------------------------------------------------------------------

# Dense hits below this cosine similarity are dropped before fusion (they are noise).
RETRIEVAL_MIN_SIMILARITY = float(env_str("RETRIEVAL_MIN_SIMILARITY", "0.1"))

# --- Chat ---------------------------------------------------------------------------------------

CHAT_MAX_ATTACHMENT_MB = env_int("CHAT_MAX_ATTACHMENT_MB", 20)
CHAT_MAX_AUDIO_MB = env_int("CHAT_MAX_AUDIO_MB", 10)
CHAT_MAX_AUDIO_SECONDS = env_int("CHAT_MAX_AUDIO_SECONDS", 120)
# How long POST /api/v1/chat/transcribe waits for the jobs worker's text before it answers 503
# (202 with the transcription to ask for, to a client that asked with ?wait=; docs/api.md).
CHAT_TRANSCRIBE_WAIT_SECONDS = env_int("CHAT_TRANSCRIBE_WAIT_SECONDS", 180)
# A model silent for this long gets a "waiting for the model" note instead of a frozen page.
CHAT_WAITING_SECONDS = env_int("CHAT_WAITING_SECONDS", 8)
# Answers are written by Celery workers on the `chat` queue (see the Procfile). A worker saves
# the partial answer with a heartbeat at least every 2 s; an answer silent for this long had its
# worker die under it and is marked interrupted.
CHAT_STALE_SECONDS = env_int("CHAT_STALE_SECONDS", 30)
# Study generation (quizzes, workshops and lessons, decks, mindmaps) runs on the `study` queue;
# its worker beats every few seconds while the model works. A generation silent for this long
# had its worker die under it and is marked failed ("interrupted"), with a retry.
STUDY_STALE_SECONDS = env_int("STUDY_STALE_SECONDS", 30)
# Tests get a file database rather than SQLite's shared-cache memory one: answers are written
# from worker threads, and only a file database waits on the busy timeout instead of failing
# with "table is locked". One per test run, outside DATA_DIR.
if DATABASES["default"]["ENGINE"].endswith("sqlite3"):
    DATABASES["default"]["TEST"] = {
        "NAME": str(Path(tempfile.gettempdir()) / f"cognivault-test-{os.getpid()}.sqlite3")
    }
