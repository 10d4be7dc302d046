#!/usr/bin/env bash
# How long a fresh `make setup` takes, phase by phase, and how long `make run` then takes to
# serve its first page. Run it from the root of a fresh clone (it creates .venv there):
#
#   bash bench/setup_times.sh                          # pip's cache as it is
#   PIP_NO_CACHE_DIR=1 bash bench/setup_times.sh       # nothing from pip's cache
#
# The `make run` phase uses its own data folder, ports and Redis, and stops what it started.
set -euo pipefail

PORT=${PORT:-8765}
HTTPS_PORT=${HTTPS_PORT:-8766}
REDIS_PORT=${REDIS_PORT:-8767}
RUN_DATA=$(mktemp -d)
TOTAL=0

seconds_since() { echo "$(date +%s.%N) - $1" | bc; }

phase() {
  local name=$1 start elapsed log="$RUN_DATA/phase.log"
  shift
  start=$(date +%s.%N)
  "$@" >"$log" 2>&1 || { cat "$log"; echo "$name failed"; exit 1; }
  elapsed=$(seconds_since "$start")
  TOTAL=$(echo "$TOTAL + $elapsed" | bc)
  printf '%-34s %7.1f s\n' "$name" "$elapsed"
}

first_page() {
  local start server
  start=$(date +%s.%N)
  # Its own session, so that stopping it stops honcho, Redis and the workers together.
  setsid make run PORT="$PORT" HTTPS_PORT="$HTTPS_PORT" DATA_DIR="$RUN_DATA/data" \
    REDIS_URL="redis://127.0.0.1:$REDIS_PORT/0" >"$RUN_DATA/run.log" 2>&1 &
  server=$!
  until curl -sf -o /dev/null "http://127.0.0.1:$PORT/"; do
    if ! kill -0 "$server" 2>/dev/null; then cat "$RUN_DATA/run.log"; echo "make run stopped"; exit 1; fi
    if (($(echo "$(seconds_since "$start") > 300" | bc))); then echo "no page after 300 s"; break; fi
    sleep 0.5
  done
  printf '%-34s %7.1f s\n' "make run: first page served" "$(seconds_since "$start")"
  kill -TERM -- "-$server" 2>/dev/null || true
  wait "$server" 2>/dev/null || true
}

echo "$(nproc) cores, $(python3 --version), pip cache: ${PIP_NO_CACHE_DIR:+off}${PIP_NO_CACHE_DIR:-on}"
phase "Debian packages (system-packages)" make system-packages
phase "Python packages (.venv/.installed)" make .venv/.installed
phase "model data (.venv/.models)" make .venv/.models
printf '%-34s %7.1f s\n' "make setup in all" "$TOTAL"
first_page
rm -rf "$RUN_DATA"
