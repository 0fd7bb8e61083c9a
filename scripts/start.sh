#!/usr/bin/env bash
# Runs the whole product locally: builds the Worker, applies the D1
# migrations to a local database, starts the Worker (with its Durable
# Objects and D1) under wrangler dev, creates demo showings the first time,
# and prints the address to open. Ctrl-C stops everything.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
source scripts/toolchain.sh

PORT="${PORT:-8787}"
STATE_DIR=.wrangler/state
BASE="http://127.0.0.1:$PORT"

# Local secrets are made here, once each, and never committed (.gitignore).
ensure_secret() {
  if ! grep -q "^$1=" .dev.vars 2>/dev/null; then
    printf '%s="%s"\n' "$1" "$(od -An -tx1 -N24 /dev/urandom | tr -d ' \n')" >> .dev.vars
    echo "start: wrote a new local $1 to .dev.vars"
  fi
}
ensure_secret ADMIN_TOKEN
ensure_secret SESSION_SECRET
ADMIN_TOKEN=$(sed -n 's/^ADMIN_TOKEN="\(.*\)"$/\1/p' .dev.vars)

bash scripts/build-worker.sh
CI=true wrangler d1 migrations apply DB --local --persist-to "$STATE_DIR"

SHOWTIME_PREBUILT=1 wrangler dev --ip 127.0.0.1 --port "$PORT" --persist-to "$STATE_DIR" \
  --test-scheduled --show-interactive-dev-session=false &
server=$!
trap 'kill $server 2>/dev/null; wait $server 2>/dev/null' EXIT INT TERM

for _ in $(seq 1 120); do
  curl -fsS "$BASE/api/health" >/dev/null 2>&1 && break
  kill -0 $server 2>/dev/null || { echo "start: wrangler dev stopped"; exit 1; }
  sleep 0.5
done

bash scripts/demo.sh "$BASE" "$ADMIN_TOKEN"

cat <<TXT

  Showtime is running.
    Showings:  $BASE/api/showings
    Admin token (for the admin API): in .dev.vars
  Press Ctrl-C to stop.

TXT
wait $server
