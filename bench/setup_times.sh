#!/usr/bin/env bash
# How long a fresh `make setup` takes, phase by phase, and how long `make run` then takes to
# serve its first page. Run it from the root of a fresh clone (it creates .venv there):
#
#   bash bench/setup_times.sh                          # the package caches as they are
#   UV_NO_CACHE=1 PIP_NO_CACHE_DIR=1 bash bench/setup_times.sh   # nothing from a cache
#   bash bench/setup_times.sh run 3                    # only `make run`'s first page, 3 times
#
# Each `make run` uses a fresh data folder, its own ports and Redis, and stops what it started.
# It counts from `make run` to the first 200 of `/` (its redirects followed). The `run` form
# takes the setup as done: it passes make `-o` for the setup's steps, so it never installs.
set -euo pipefail

PORT=${PORT:-8765}
HTTPS_PORT=${HTTPS_PORT:-8766}
REDIS_PORT=${REDIS_PORT:-8767}
RUN_DATA=$(mktemp -d)
TOTAL=0

seconds_since() { echo "$(date +%s.%N) - $1" | bc; }

# Wall time, and the CPU time of the phase's processes: on a busy machine the wall time grows,
# the CPU time hardly does.
phase() {
  local name=$1 times real user sys
  shift
  TIMEFORMAT='%R %U %S'
  times=$({ time "$@" >"$RUN_DATA/phase.log" 2>&1; } 2>&1) \
    || { cat "$RUN_DATA/phase.log"; echo "$name failed"; exit 1; }
  read -r real user sys <<<"$times"
  TOTAL=$(echo "$TOTAL + $real" | bc)
  printf '%-36s %7.1f s  (CPU %.1f s)\n' "$name" "$real" "$(echo "$user + $sys" | bc)"
}

first_page() {
  local start server
  rm -rf "$RUN_DATA/data"
  start=$(date +%s.%N)
  # Its own session, so that stopping it stops honcho, Redis and the workers together.
  setsid make "$@" run PORT="$PORT" HTTPS_PORT="$HTTPS_PORT" DATA_DIR="$RUN_DATA/data" \
    REDIS_URL="redis://127.0.0.1:$REDIS_PORT/0" >"$RUN_DATA/run.log" 2>&1 &
  server=$!
  until [ "$(curl -sL -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/")" = 200 ]; do
    if ! kill -0 "$server" 2>/dev/null; then cat "$RUN_DATA/run.log"; echo "make run stopped"; exit 1; fi
    if (($(echo "$(seconds_since "$start") > 300" | bc))); then echo "no page after 300 s"; break; fi
    sleep 0.5
  done
  printf '%-36s %7.1f s\n' "make run: first page served" "$(seconds_since "$start")"
  kill -TERM -- "-$server" 2>/dev/null || true
  wait "$server" 2>/dev/null || true
  # The next run starts when nothing listens on the ports any more.
  for port in "$PORT" "$HTTPS_PORT" "$REDIS_PORT"; do
    while (: <"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do sleep 0.5; done
  done
}

echo "$(nproc) cores, load average $(cut -d" " -f1-3 /proc/loadavg), $(python3 --version)"
if [ "${1:-}" = run ]; then
  for _ in $(seq "${2:-1}"); do
    first_page -o system-packages -o .venv/.installed -o .venv/.models -o node_modules/.installed
  done
  rm -rf "$RUN_DATA"
  exit 0
fi
phase "Debian packages (system-packages)" make system-packages
phase "Python packages (.venv/.installed)" make .venv/.installed
phase "model data (.venv/.models)" make .venv/.models
phase "axe-core (node_modules)" make node_modules/.installed
printf '%-36s %7.1f s\n' "make setup in all" "$TOTAL"
first_page
rm -rf "$RUN_DATA"
