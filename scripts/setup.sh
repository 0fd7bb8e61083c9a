#!/usr/bin/env bash
# Installs everything building and testing need on a machine that has rustup,
# Node and npm, and skips each step that is already done, so a second run
# takes seconds. Nothing here downloads from GitHub: the wasm-bindgen CLI
# comes from crates.io, and the Worker is built without wasm-opt
# (scripts/build-worker.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/toolchain.sh

say() { echo "setup: $*"; }

if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  say "adding the wasm32-unknown-unknown target"
  rustup target add wasm32-unknown-unknown
fi

installed_version() { "$1" --version 2>/dev/null | awk '{print $NF}'; }

if [ "$(installed_version "$WASM_BINDGEN_BIN")" != "$WASM_BINDGEN_VERSION" ]; then
  say "installing wasm-bindgen-cli $WASM_BINDGEN_VERSION (a few minutes, once)"
  # No --locked: the crates index mirror can lag a patch behind the lock file.
  cargo install wasm-bindgen-cli --version "=$WASM_BINDGEN_VERSION" --root "$WASM_BINDGEN_ROOT" --force
fi

# npm ci only when package-lock.json changed since the last install.
stamp=node_modules/.showtime-lock-sha
want="$(sha256sum package-lock.json | cut -d' ' -f1)"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  say "installing npm packages"
  npm ci --no-audit --no-fund
  echo "$want" > "$stamp"
fi
say "ready"
