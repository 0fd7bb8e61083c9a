#!/usr/bin/env bash
# The whole-stack benchmark (issue #8): builds the Worker, then starts it
# under wrangler dev (a fresh stack per run) and measures the floors, holds,
# venue sizes, viewers and checkouts; see BENCHMARKS.md. Not part of
# `npm test`. Arguments go to the benchmark, e.g.
#   npm run bench -- --runs 1 --measure-secs 5 --only floors
# BENCH_LEDGER=1 also runs the ledger micro-benchmarks (cargo bench -p ledger).
# The report is printed and written to target/bench/report.md.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
source scripts/toolchain.sh
bash scripts/build-worker.sh
cargo build --release -q -p showtime-bench
if [ "${BENCH_LEDGER:-}" = "1" ]; then
  cargo bench -p ledger -- --warm-up-time 1 --measurement-time 3
fi
# CARGO_TARGET_DIR, when set, is where cargo put the binary.
exec "${CARGO_TARGET_DIR:-target}/release/showtime-bench" "$@"
