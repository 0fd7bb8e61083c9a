# Sourced by the other scripts: where the build tools live and which versions
# they must be. Versions come from Cargo.lock so the wasm-bindgen CLI always
# equals the wasm-bindgen crate the Worker links (they refuse to mix).
# shellcheck shell=bash
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
lock_version() {
  awk -v name="$1" '$0 == "name = \"" name "\"" { getline; gsub(/version = |"/, ""); print; exit }' "$ROOT/Cargo.lock"
}
WASM_BINDGEN_VERSION="$(lock_version wasm-bindgen)"
# Tools are installed per version under one cache shared by every clone on
# the machine, so a second clone (or CI) reuses them.
TOOLS_DIR="${SHOWTIME_TOOLS_DIR:-$HOME/.cache/showtime-tools}"
WASM_BINDGEN_ROOT="$TOOLS_DIR/wasm-bindgen-$WASM_BINDGEN_VERSION"
export WASM_BINDGEN_BIN="$WASM_BINDGEN_ROOT/bin/wasm-bindgen"
# node_modules/.bin first: it holds wrangler and the Node 22 that wrangler needs.
export PATH="$ROOT/node_modules/.bin:$WASM_BINDGEN_ROOT/bin:$HOME/.cargo/bin:$PATH"
export WRANGLER_SEND_METRICS=false
