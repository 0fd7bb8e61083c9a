// Where the runtime thread's time goes for one kind of request: a V8 CPU
// profile of the Worker and its objects (one isolate under `wrangler dev`),
// taken through wrangler's inspector while this script sends the requests.
//
//   npm run bench -- --serve 200        # prints addresses and inspector ports
//   node --experimental-websocket bench/profile.mjs --inspector PORT --target URL --what hold \
//        --showings ID,ID,... [--requests 3000] [--clients 20] [--out FILE]
//
// --what: hold | worker-half | noop (the product; one seat of a 60-seat
// showing from --showings, the next seat each time, as `npm run bench`
// sends them), join (a new buyer joining the line of the first of
// --showings: the `queued` one `--serve` prints) or book | js-noop (the reference; a fresh showing name made
// from --prefix). Prints the busy time of the thread per request, split by
// where it went, and writes the profile (Chrome DevTools opens it);
// `--from FILE --requests N` summarises a profile written before.
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

const { values: opt } = parseArgs({
  options: {
    inspector: { type: 'string' },
    target: { type: 'string' },
    what: { type: 'string', default: 'hold' },
    showings: { type: 'string', default: '' },
    prefix: { type: 'string', default: `p${Date.now() % 100000}-` },
    requests: { type: 'string', default: '3000' },
    clients: { type: 'string', default: '20' },
    out: { type: 'string', default: 'target/bench/profile.cpuprofile' },
    top: { type: 'string', default: '25' },
    // Summarise a profile written before, of --requests requests.
    from: { type: 'string' },
  },
});
if (!opt.from && (!opt.inspector || !opt.target)) {
  console.error('usage: node bench/profile.mjs --inspector PORT --target URL --what hold|worker-half|noop|join|book|js-noop [--showings ID,...]');
  process.exit(2);
}
const SEATS = 60;
const requests = Number(opt.requests);
const showings = opt.showings.split(',').filter(Boolean);
const paths = {
  hold: (sid) => `/api/showings/${sid}/holds`,
  'worker-half': (sid) => `/api/bench/showings/${sid}/hold-worker`,
  noop: (sid) => `/api/bench/showings/${sid}/noop`,
};

// The i-th request: its path and body.
function request(i) {
  const showing = Math.floor(i / SEATS);
  const seat = `A${(i % SEATS) + 1}`;
  if (opt.what === 'book' || opt.what === 'js-noop') {
    const kind = opt.what === 'book' ? 'book' : 'noop';
    return [`/${kind}/${opt.prefix}${showing}`, { seat }];
  }
  if (opt.what === 'join') return [`/api/showings/${showings[0]}/queue`, {}];
  if (!paths[opt.what]) throw new Error(`--what ${opt.what}: not a request this script knows`);
  if (showing >= showings.length) throw new Error(`--showings: ${requests} requests need ${Math.ceil(requests / SEATS)} showings`);
  return [paths[opt.what](showings[showing]), { seats: [seat] }];
}

const statuses = {};
let seconds = 0;
let profile;
if (opt.from) {
  profile = JSON.parse(readFileSync(opt.from, 'utf8'));
  statuses.unknown = requests;
} else {
  profile = await measure();
  writeFileSync(opt.out, JSON.stringify(profile));
}

async function measure() {
  // The inspector: wrangler's proxy of it only takes a DevTools origin.
  const targets = await (await fetch(`http://127.0.0.1:${opt.inspector}/json`)).json();
  const ws = new WebSocket(targets[0].webSocketDebuggerUrl, {
    headers: { Origin: 'https://devtools.devprod.cloudflare.dev' },
  });
  // The proxy forwards some messages as binary frames.
  ws.binaryType = 'arraybuffer';
  const text = (data) => (typeof data === 'string' ? data : new TextDecoder().decode(data));
  const pending = new Map();
  let nextId = 0;
  ws.onmessage = (m) => {
    const msg = JSON.parse(text(m.data));
    const waiter = pending.get(msg.id);
    if (!waiter) return;
    pending.delete(msg.id);
    if (msg.error) waiter.reject(new Error(JSON.stringify(msg.error)));
    else waiter.resolve(msg.result);
  };
  const send = (method, params = {}) =>
    new Promise((resolve, reject) => {
      const id = ++nextId;
      pending.set(id, { resolve, reject });
      ws.send(JSON.stringify({ id, method, params }));
    });
  await new Promise((resolve, reject) => {
    ws.onopen = resolve;
    ws.onerror = () => reject(new Error('the inspector refused the connection'));
  });

  await send('Profiler.enable');
  await send('Profiler.setSamplingInterval', { interval: 100 });
  await send('Profiler.start');
  const started = performance.now();
  let next = 0;
  async function client() {
    while (next < requests) {
      const [path, body] = request(next++);
      const resp = await fetch(opt.target + path, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      await resp.arrayBuffer();
      statuses[resp.status] = (statuses[resp.status] ?? 0) + 1;
    }
  }
  await Promise.all(Array.from({ length: Number(opt.clients) }, client));
  seconds = (performance.now() - started) / 1000;
  const { profile: taken } = await send('Profiler.stop');
  ws.close();
  return taken;
}

// Sampled time per node, and each node's parent.
const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const sampled = new Map();
profile.samples.forEach((id, i) => sampled.set(id, (sampled.get(id) ?? 0) + profile.timeDeltas[i]));
const name = (n) => n.callFrame.functionName || '(anonymous)';
const stack = (id) => {
  const names = [];
  for (let at = id; at !== undefined; at = parent.get(at)) names.push(name(nodes.get(at)));
  return names;
};

// What a sample was doing: by its innermost frame, and for Wasm by the
// innermost frame that names a part of the product.
const isWasm = (n) => n.callFrame.url.startsWith('wasm://');
const isNative = (n) => n.callFrame.url === '';
const RUST = [
  ['serde (JSON)', /serde/],
  ['HMAC and SHA-256', /sha2::|hmac::|hkdf::/],
  ['seat decision (desk, ledger)', /^(desk|ledger)::/],
  ['routing', /matchit::|worker::router::/],
];
function kindOf(id) {
  const leaf = nodes.get(id);
  const own = name(leaf);
  if (own === '(idle)') return 'idle';
  if (own === '(garbage collector)') return 'garbage collection';
  if (own === '(program)') return 'runtime, outside JavaScript and Wasm';
  if (isNative(leaf)) return own === 'exec' ? 'SQLite statements' : 'runtime APIs called from JavaScript';
  if (!isWasm(leaf)) return 'JavaScript (for the product: its glue and wrappers)';
  for (let at = id; at !== undefined; at = parent.get(at)) {
    const frame = nodes.get(at);
    if (!isWasm(frame)) break;
    const found = RUST.find(([, pattern]) => pattern.test(name(frame)));
    if (found) return found[0];
  }
  return 'other Rust (worker crate, wasm-bindgen, allocator)';
}
const SIDES = [
  ['the object', (s) => s.some((f) => /DurableObject>::fetch|showtime_fetch|^(book|noop|write)$/.test(f))],
  ['the Worker', (s) => s.some((f) => /showtime::routes::|^fetch$/.test(f))],
];
// After its first await, a Rust handler runs from a microtask that polls
// its task, and the frames that name the handler are often inlined away.
// Each handler's task is its own instance of wasm-bindgen's
// `future_to_promise` closure, so the side of a continuation is the side
// that the other samples of the same instance name.
const TASK = /future_to_promise::\{\{closure\}\}::\{\{closure\}\}::(h[0-9a-f]{16})/;
const taskOf = (frames) => frames.map((f) => TASK.exec(f)?.[1]).find(Boolean);
const votes = new Map();
for (const [id, us] of sampled) {
  const frames = stack(id);
  const task = taskOf(frames);
  const side = SIDES.find(([, test]) => test(frames))?.[0];
  if (!task || !side) continue;
  const v = votes.get(task) ?? new Map();
  v.set(side, (v.get(side) ?? 0) + us);
  votes.set(task, v);
}
const taskSide = new Map([...votes].map(([t, v]) => [t, [...v].sort((a, b) => b[1] - a[1])[0][0]]));
const sideOf = (frames) =>
  SIDES.find(([, test]) => test(frames))?.[0] ?? taskSide.get(taskOf(frames)) ?? 'neither (runtime entry, promise wake-ups, other)';
const byKind = new Map();
const bySide = new Map();
const bySelf = new Map();
let total = 0;
for (const [id, us] of sampled) {
  total += us;
  const frames = stack(id);
  const kind = kindOf(id);
  byKind.set(kind, (byKind.get(kind) ?? 0) + us);
  if (kind !== 'idle') {
    const side = sideOf(frames);
    bySide.set(side, (bySide.get(side) ?? 0) + us);
  }
  const own = name(nodes.get(id));
  bySelf.set(own, (bySelf.get(own) ?? 0) + us);
}
const done = Object.values(statuses).reduce((a, b) => a + b, 0);
const busy = total - (byKind.get('idle') ?? 0);
const perRequest = (us) => (us / done).toFixed(0).padStart(6);
const share = (us) => ((100 * us) / total).toFixed(1).padStart(5);
if (!opt.from) console.log(`${opt.what}: ${done} requests in ${seconds.toFixed(1)} s (${(done / seconds).toFixed(0)}/s), answers ${JSON.stringify(statuses)}`);
console.log(`profile: ${(total / 1e6).toFixed(1)} s sampled, thread busy ${((100 * busy) / total).toFixed(1)} %, ${perRequest(busy).trim()} µs busy per request`);
console.log('\nby what it was doing (µs per request, share of all samples):');
for (const [k, us] of [...byKind].sort((a, b) => b[1] - a[1])) console.log(`${perRequest(us)} µs ${share(us)} %  ${k}`);
console.log('\nby side, busy samples only:');
for (const [k, us] of [...bySide].sort((a, b) => b[1] - a[1])) console.log(`${perRequest(us)} µs ${share(us)} %  ${k}`);
console.log(`\nfunctions by own time (top ${opt.top}):`);
for (const [k, us] of [...bySelf].sort((a, b) => b[1] - a[1]).slice(0, Number(opt.top))) console.log(`${perRequest(us)} µs ${share(us)} %  ${k.slice(0, 140)}`);
if (!opt.from) console.log(`\nprofile written to ${opt.out}`);
process.exit(0);
