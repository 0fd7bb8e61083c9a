#!/usr/bin/env bash
# Builds the Worker bundle (build/worker/shim.mjs + wasm) with worker-build.
# wrangler runs this before `dev` and `deploy`. The test harness builds once
# and then starts many dev servers with SHOWTIME_PREBUILT=1 to skip it.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${SHOWTIME_PREBUILT:-}" = "1" ] && [ -f build/worker/shim.mjs ]; then
  exit 0
fi
# shellcheck source=scripts/toolchain.sh
source scripts/toolchain.sh
exec worker-build --release
