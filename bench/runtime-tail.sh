#!/usr/bin/env bash
# The runtime's own latency tail under overload (bench/HISTORY.md, "The
# multi-second stalls"): workerd alone, with nothing of `wrangler dev`
# around it, serving
#   1. a Worker that answers at once (no object),
#   2. the reference (bench/reference/src/index.js) with its SQLite-backed
#      objects on the disk, through its no-op floor,
# and, beside them, Node's own HTTP server answering the same JSON. Each is
# driven by wrk (one thread) at 50 and 200 connections, and the script
# prints wrk's latency distribution. Needs wrk (Debian: apt-get install
# wrk). Not part of `npm test`.
#
#   bash bench/runtime-tail.sh          # SECS=8 seconds a point by default
set -euo pipefail
cd "$(dirname "$0")/.."
command -v wrk >/dev/null || {
  echo "runtime-tail: needs wrk (Debian: apt-get install wrk)" >&2
  exit 1
}
bash scripts/setup.sh >/dev/null
WORKERD=$PWD/node_modules/.bin/workerd
NODE=$PWD/node_modules/.bin/node
SECS=${SECS:-8}
PORT=${PORT:-28787} # this port and the next two must be free

dir=$(mktemp -d)
cleanup() {
  kill $(jobs -p) 2>/dev/null || true
  rm -rf "$dir"
}
trap cleanup EXIT
cp bench/reference/src/index.js "$dir/reference.js"
mkdir "$dir/state"
printf 'wrk.method = "POST"\n' >"$dir/post.lua"
cat >"$dir/answer.js" <<'EOF'
export default {
  async fetch() {
    return Response.json({ ok: true, at: Date.now() });
  },
};
EOF
cat >"$dir/node-answer.cjs" <<'EOF'
require('node:http')
  .createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ ok: true, at: Date.now() }));
    });
  })
  .listen(Number(process.argv[2]), '127.0.0.1');
EOF
cat >"$dir/config.capnp" <<EOF
using Workerd = import "/workerd/workerd.capnp";

const config :Workerd.Config = (
  services = [
    (name = "answer", worker = .answer),
    (name = "reference", worker = .reference),
    (name = "state", disk = (path = "$dir/state", writable = true)),
  ],
  sockets = [
    (name = "answer", address = "127.0.0.1:$PORT", http = (), service = "answer"),
    (name = "reference", address = "127.0.0.1:$((PORT + 1))", http = (), service = "reference"),
  ],
);

const answer :Workerd.Worker = (
  modules = [ (name = "answer.js", esModule = embed "answer.js") ],
  compatibilityDate = "2025-11-01",
);

const reference :Workerd.Worker = (
  modules = [ (name = "reference.js", esModule = embed "reference.js") ],
  compatibilityDate = "2025-11-01",
  durableObjectNamespaces = [
    (className = "Showing", uniqueKey = "runtime-tail-showing", enableSql = true),
  ],
  durableObjectStorage = (localDisk = "state"),
  bindings = [ (name = "SHOWING", durableObjectNamespace = "Showing") ],
);
EOF
"$WORKERD" serve "$dir/config.capnp" --experimental >"$dir/workerd.log" 2>&1 &
"$NODE" "$dir/node-answer.cjs" $((PORT + 2)) &
for _ in $(seq 50); do
  curl -sf -X POST "http://127.0.0.1:$((PORT + 1))/noop/up" >/dev/null &&
    curl -sf "http://127.0.0.1:$((PORT + 2))/" >/dev/null && break
  sleep 0.2
done

point() { # name, connections, url
  echo "== $1, $2 connections"
  wrk -t1 -c"$2" -d"${SECS}s" --latency -s "$dir/post.lua" "$3" |
    grep -E "Requests/sec|^ +(50|90|99)%|Latency "
}
echo "$("$WORKERD" --version), wrk $(wrk -v 2>&1 | head -1 | cut -d' ' -f2), $(nproc) cores, $(date -u '+%F %H:%M') UTC"
for c in 50 200; do
  point "workerd, a Worker that answers at once" "$c" "http://127.0.0.1:$PORT/"
  point "workerd, the reference's no-op object" "$c" "http://127.0.0.1:$((PORT + 1))/noop/tail-$c"
  point "Node's HTTP server" "$c" "http://127.0.0.1:$((PORT + 2))/"
done
