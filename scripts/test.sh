#!/usr/bin/env bash
# Runs every test from a fresh clone: set-up (skipped when already done),
# formatting and lints, the Worker build, a deploy dry run, then the native
# tests and the end-to-end tests against the real Worker under wrangler dev.
set -euo pipefail
cd "$(dirname "$0")/.."

started=$(date +%s)
bash scripts/setup.sh
source scripts/toolchain.sh
# The browser tests drive Debian's Chromium (a browser download by
# Playwright is not possible offline).
if [ ! -x /usr/bin/chromium ]; then
  echo "test: installing Chromium for the browser tests (apt)"
  if [ "$(id -u)" = 0 ]; then sudo=""; else sudo="sudo"; fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium
fi
echo "test: set-up took $(( $(date +%s) - started ))s"

step() { echo; echo "== $*"; }

step "formatting (cargo fmt --check)"
cargo fmt --all -- --check

step "lints (cargo clippy -D warnings, native and wasm32)"
cargo clippy --workspace --all-targets -- -D warnings
cargo clippy -p showtime -p ledger -p desk -p mail --target wasm32-unknown-unknown -- -D warnings

step "building the Worker"
bash scripts/build-worker.sh

step "bundling for deploy (wrangler deploy --dry-run)"
SHOWTIME_PREBUILT=1 wrangler deploy --dry-run --outdir target/dry-run

# The end-to-end tests start wrangler and workerd; note which were running
# before so that anything they leave behind can be named and stopped. Only
# this checkout's own (its node_modules in the command line) count: another
# checkout's servers on the same machine are not ours to judge or stop.
servers() { pgrep -f "$PWD/node_modules/.*(wrangler|workerd)" | sort || true; }
before=$(servers)

step "tests (native, then end to end through wrangler dev)"
status=0
cargo test --workspace --no-fail-fast || status=$?

sleep 1
leftover=$(comm -13 <(echo "$before") <(servers) | grep -v "^$$\$" || true)
if [ -n "$leftover" ]; then
  echo "test: these wrangler/workerd processes outlived the tests:"
  ps -o pid,args -p $(echo "$leftover" | tr '\n' ',' | sed 's/,$//') || true
  kill $leftover 2>/dev/null || true
  status=1
else
  echo "test: no wrangler or workerd process outlived the tests"
fi
exit $status
