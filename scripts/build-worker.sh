#!/usr/bin/env bash
# Builds the Worker bundle (build/worker/shim.mjs + wasm) with worker-build.
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
if [ "${SHOWTIME_PREBUILT:-}" = "1" ] && [ -f build/worker/shim.mjs ]; then
  exit 0
fi
# shellcheck source=scripts/toolchain.sh
source scripts/toolchain.sh
exec worker-build --release
