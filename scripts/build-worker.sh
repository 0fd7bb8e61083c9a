#!/usr/bin/env bash
# Builds the Worker: the Rust crate compiled to Wasm, then wasm-bindgen's
# JavaScript glue for it in build/ (index.js and index_bg.wasm). The entry the
# runtime loads is src/entry.mjs, which wrangler bundles with that glue.
# wrangler runs this before `dev` and `deploy`. The test harness builds once
# and then starts many dev servers with SHOWTIME_PREBUILT=1 to skip it.
set -euo pipefail
cd "$(dirname "$0")/.."
# The door page's QR decoder (for browsers without BarcodeDetector) is
# served from the npm package, copied next to the other static files.
if [ -f node_modules/jsqr/dist/jsQR.js ]; then
  mkdir -p public/vendor
  cp node_modules/jsqr/dist/jsQR.js public/vendor/jsQR.js
fi
if [ "${SHOWTIME_PREBUILT:-}" = "1" ] && [ -f build/index.js ]; then
  exit 0
fi
# shellcheck source=scripts/toolchain.sh
source scripts/toolchain.sh
# The same build worker-build makes: `WASM_BINDGEN_USE_JS_SYS` has
# wasm-bindgen's macros await promises through js-sys, as workers-rs expects.
WASM_BINDGEN_USE_JS_SYS=1 cargo build --lib --release --target wasm32-unknown-unknown -p showtime
# `--experimental-reset-state-function` and `--force-enable-abort-handler` are
# what lets src/entry.mjs start a fresh Wasm instance after a panic.
staging="build/.staging-$$"
trap 'rm -rf "$staging"' EXIT
rm -rf "$staging"
wasm-bindgen "${CARGO_TARGET_DIR:-target}/wasm32-unknown-unknown/release/showtime.wasm" \
  --out-dir "$staging" --out-name index --target module --no-typescript \
  --experimental-reset-state-function --force-enable-abort-handler
# wasm-bindgen imports the module in its source phase (`import source`),
# which wrangler's bundler does not read; a plain import of a .wasm file
# gives the same WebAssembly.Module there.
sed -i 's/^import source \(.*\.wasm"\);$/import \1;/' "$staging/index.js"
grep -q '^import wasmModule from "./index_bg.wasm";$' "$staging/index.js" || {
  echo "build-worker: wasm-bindgen's import of the Wasm module changed; see this script" >&2
  exit 1
}
# Move the new files in with index.js last: a dev server that sees the new
# index.js finds the Wasm and snippets it goes with.
mkdir -p build
rm -rf build/snippets build/worker build/package.json
mv "$staging/snippets" build/snippets
mv "$staging/index_bg.wasm" build/index_bg.wasm
mv "$staging/index.js" build/index.js
