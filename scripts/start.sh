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
SQUARE_PORT="${SQUARE_PORT:-8788}"
STATE_DIR=.wrangler/state
BASE="http://127.0.0.1:$PORT"
SQUARE="http://127.0.0.1:$SQUARE_PORT"

# Local secrets are made here, once each, and never committed (.gitignore).
random_hex() { od -An -tx1 -N"$1" /dev/urandom | tr -d ' \n'; }
ensure_secret() {
  if ! grep -q "^$1=" .dev.vars 2>/dev/null; then
    printf '%s="%s"\n' "$1" "$(random_hex 24)" >> .dev.vars
    echo "start: wrote a new local $1 to .dev.vars"
  fi
}
ensure_secret ADMIN_TOKEN
ensure_secret SESSION_SECRET
ensure_secret DOOR_TOKEN
ensure_secret SQUARE_ACCESS_TOKEN
ensure_secret SQUARE_WEBHOOK_SIGNATURE_KEY
if ! grep -q "^ORDER_LINK_KEYS=" .dev.vars; then
  printf 'ORDER_LINK_KEYS="k1:%s"\n' "$(random_hex 24)" >> .dev.vars
fi
# Ticket codes are signed with an Ed25519 private key (32 random bytes), so
# the door page can check them offline. A .dev.vars from before, with an
# HMAC key alone, gets an Ed25519 key put first: it signs from now on and
# the old key still checks the codes it made.
if ! grep -q "^TICKET_SIGNING_KEYS=" .dev.vars; then
  printf 'TICKET_SIGNING_KEYS="e1:ed25519:%s"\n' "$(random_hex 32)" >> .dev.vars
  echo "start: wrote a new local TICKET_SIGNING_KEYS to .dev.vars"
elif ! grep -q "^TICKET_SIGNING_KEYS=.*ed25519:" .dev.vars; then
  sed -i "s/^TICKET_SIGNING_KEYS=\"/TICKET_SIGNING_KEYS=\"e1:ed25519:$(random_hex 32),/" .dev.vars
  echo "start: put an Ed25519 ticket key first in .dev.vars"
fi
secret() { sed -n "s/^$1=\"\(.*\)\"$/\1/p" .dev.vars; }
ADMIN_TOKEN=$(secret ADMIN_TOKEN)

bash scripts/build-worker.sh
cargo build --release -q -p square-standin
CI=true wrangler d1 migrations apply DB --local --persist-to "$STATE_DIR"

# The Square stand-in plays Square on loopback: payments, refunds, signed
# webhooks to this Worker, and the Web Payments SDK for the card form.
mkdir -p .wrangler
target/release/square-standin --port "$SQUARE_PORT" \
  --access-token "$(secret SQUARE_ACCESS_TOKEN)" \
  --signature-key "$(secret SQUARE_WEBHOOK_SIGNATURE_KEY)" \
  --webhook-url "$BASE/webhooks/square" --notification-url "$BASE/webhooks/square" \
  --location-id LSTANDIN0001 --application-id sandbox-sq0idb-standin \
  > .wrangler/square-standin.log 2>&1 &
standin=$!

SHOWTIME_PREBUILT=1 wrangler dev --ip 127.0.0.1 --port "$PORT" --persist-to "$STATE_DIR" \
  --test-scheduled --show-interactive-dev-session=false \
  --var "SQUARE_BASE_URL:$SQUARE" --var "SQUARE_SDK_URL:$SQUARE/v1/square.js" \
  --var SQUARE_LOCATION_ID:LSTANDIN0001 --var SQUARE_APPLICATION_ID:sandbox-sq0idb-standin \
  --var "SQUARE_WEBHOOK_URL:$BASE/webhooks/square" --var "PUBLIC_URL:$BASE" \
  --var TAX_RATE_BPS:2000 --var TAX_NAME:VAT --var TAX_INCLUSIVE:true &
server=$!
trap 'kill $server $standin 2>/dev/null; wait $server $standin 2>/dev/null' EXIT INT TERM

for _ in $(seq 1 120); do
  curl -fsS "$BASE/api/health" >/dev/null 2>&1 && break
  kill -0 $server 2>/dev/null || { echo "start: wrangler dev stopped"; exit 1; }
  sleep 0.5
done

bash scripts/demo.sh "$BASE" "$ADMIN_TOKEN"

cat <<TXT

  Showtime is running. Open:  $BASE/
    The API:  $BASE/api/showings
    Square stand-in:  $SQUARE (test card 4111 1111 1111 1111)
    Admin:  $BASE/admin  (sign in with the admin token: $ADMIN_TOKEN)
    Door:  $BASE/door  (a showing's door PIN, or DOOR_TOKEN from .dev.vars)
    E-mail: nothing is delivered; each message sent is logged above with
      the paths of its text, HTML and attachments under .wrangler/tmp/email/
  Press Ctrl-C to stop.

TXT
wait $server
