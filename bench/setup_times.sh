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
  printf '%-36s %7.1f s\n' "make run: first page served" "$(seconds_since "$start")"
  kill -TERM -- "-$server" 2>/dev/null || true
  wait "$server" 2>/dev/null || true
}

echo "$(nproc) cores, load average $(cut -d" " -f1-3 /proc/loadavg), $(python3 --version)"
phase "Debian packages (system-packages)" make system-packages
phase "Python packages (.venv/.installed)" make .venv/.installed
phase "model data (.venv/.models)" make .venv/.models
printf '%-36s %7.1f s\n' "make setup in all" "$TOTAL"
first_page
rm -rf "$RUN_DATA"
