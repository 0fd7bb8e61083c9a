#!/usr/bin/env bash
# Runs every test from a fresh clone: set-up (skipped when already done),
# formatting and lints, the Worker build, a deploy dry run, then the native
# tests and the end-to-end tests against the real Worker under wrangler dev.
# Each phase is timed, and the times are printed slowest first at the end,
# with the slowest test binaries and tests, whether the run passed or not.
#
# `--fast` (`npm run test:fast`) is the quick loop: formatting, native
# lints and the native tests, with the desk simulation at fewer cases; no
# Worker build and no end-to-end test.
set -euo pipefail
cd "$(dirname "$0")/.."

fast=0
[ "${1:-}" = "--fast" ] && fast=1

timings="$(mktemp)"
# The JUnit report is read only if this run wrote it.
started_marker="$(mktemp)"
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }
run_started=$(now_ms)
report() {
  local status=$?
  echo
  echo "== times (slowest first)"
  sort -t$'\t' -k1,1nr "$timings" | awk -F'\t' '{ printf "%8.1f s  %s\n", $1 / 1000, $2 }'
  printf '%8.1f s  %s\n' "$(( $(now_ms) - run_started ))e-3" "the whole run"
  local junit=target/nextest/default/junit.xml
  if [ "$fast" = 0 ] && [ -f "$junit" ] && [ "$junit" -nt "$started_marker" ]; then
    node scripts/test-times.mjs "$junit"
  fi
  rm -f "$timings" "$started_marker"
  exit $status
}
trap report EXIT

# phase NAME COMMAND…: runs the command, noting how long it took.
phase() {
  local name="$1"
  shift
  echo
  echo "== $name"
  local started
  started=$(now_ms)
  local status=0
  "$@" || status=$?
  printf '%s\t%s\n' "$(( $(now_ms) - started ))" "$name" >> "$timings"
  return $status
}

install_chromium() {
  # The browser tests drive Debian's Chromium (a browser download by
  # Playwright is not possible offline).
  if [ ! -x /usr/bin/chromium ]; then
    echo "test: installing Chromium for the browser tests (apt)"
    if [ "$(id -u)" = 0 ]; then sudo=""; else sudo="sudo"; fi
    # Another install on the machine (a second clone's tests) may hold
    # apt's lock for a while: wait for it rather than fail.
    $sudo apt-get -o DPkg::Lock::Timeout=300 update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get -o DPkg::Lock::Timeout=300 install -y -qq chromium
  fi
}

phase "set-up (tools, npm packages)" bash scripts/setup.sh
source scripts/toolchain.sh
phase "formatting (cargo fmt --check)" cargo fmt --all -- --check
phase "lints, native (cargo clippy -D warnings)" \
  cargo clippy --workspace --all-targets -- -D warnings

# cargo-nextest runs the tests of every binary side by side (.config/
# nextest.toml); without it, cargo test runs one binary after another.
nextest=0
cargo nextest --version >/dev/null 2>&1 && nextest=1

if [ "$fast" = 1 ]; then
  export DESK_SIM_CASES="${DESK_SIM_CASES:-1000}"
  if [ "$nextest" = 1 ]; then
    phase "native tests (the desk simulation at $DESK_SIM_CASES cases)" \
      cargo nextest run --workspace --exclude e2e --no-fail-fast
  else
    phase "native tests (the desk simulation at $DESK_SIM_CASES cases)" \
      cargo test --workspace --exclude e2e --no-fail-fast
  fi
  exit 0
fi

phase "Chromium for the browser tests" install_chromium
phase "lints, wasm32 (cargo clippy -D warnings)" \
  cargo clippy -p showtime -p ledger -p desk -p mail -p queue -p uses --target wasm32-unknown-unknown -- -D warnings
phase "building the Worker" bash scripts/build-worker.sh
# npm run deploy-check on this repository's own wrangler.toml: the deploy
# bundle is built by its dry run, and its rules tested.
phase "bundling for deploy (npm run deploy-check, its tests)" \
  node --test scripts/deploy-check.test.mjs

# The end-to-end tests start wrangler and workerd; note which were running
# before so that anything they leave behind can be named and stopped. Only
# this checkout's own (its node_modules in the command line) count: another
# checkout's servers on the same machine are not ours to judge or stop.
servers() { pgrep -f "$PWD/node_modules/.*(wrangler|workerd)" | sort || true; }
before=$(servers)

status=0
phase "building the tests" cargo test --workspace --no-run || status=$?
if [ "$nextest" = 1 ]; then
  # The crates have no doctests, which nextest would not run.
  phase "tests, native and end to end (cargo nextest)" \
    cargo nextest run --workspace --no-fail-fast || status=$?
else
  phase "tests, native then end to end (cargo test)" \
    cargo test --workspace --no-fail-fast || status=$?
fi

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
