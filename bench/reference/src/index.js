// The benchmark's reference: a Worker and one SQLite-backed Durable Object
// per showing, as in Cloudflare's seat-booking tutorial. Booking a seat is
// one SELECT and one UPDATE; the floors are a no-op and one write through
// the same Worker → object path. Requests have the shape the benchmark
// sends the product: one seat, for a new buyer. Its page (public/) is
// served from static assets, as in the tutorial; other paths reach this
// Worker.
//
//   POST /noop/{showing}            the object answers at once
//   POST /write/{showing}           the object upserts one row
//   POST /book/{showing} {"seat"}   201 booked, 409 taken, 404 no such seat
//   GET  /health                    200 once the server is up
//   POST /microtasks/{queue|then}?n=N
//                                   runs N callbacks one after another, each
//                                   scheduled with queueMicrotask or with a
//                                   resolved promise's then: what one wake-up
//                                   of a Rust task costs (BENCHMARKS.md)
import { DurableObject } from 'cloudflare:workers';

// Seats of each showing: A1 … A60.
const SEATS = 60;

export class Showing extends DurableObject {
  constructor(ctx, env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    this.sql.exec('CREATE TABLE IF NOT EXISTS seats (name TEXT PRIMARY KEY, buyer TEXT)');
    this.sql.exec('CREATE TABLE IF NOT EXISTS counter (id INTEGER PRIMARY KEY, n INTEGER NOT NULL)');
    if (this.sql.exec('SELECT COUNT(*) AS n FROM seats').one().n === 0) {
      for (let i = 1; i <= SEATS; i++) this.sql.exec('INSERT INTO seats (name) VALUES (?)', `A${i}`);
    }
  }

  noop() {
    return 200;
  }

  write() {
    this.sql.exec('INSERT INTO counter (id, n) VALUES (1, 1) ON CONFLICT (id) DO UPDATE SET n = n + 1');
    return 200;
  }

  book(seat, buyer) {
    const rows = this.sql.exec('SELECT buyer FROM seats WHERE name = ?', seat).toArray();
    if (!rows.length) return 404;
    if (rows[0].buyer !== null) return 409;
    this.sql.exec('UPDATE seats SET buyer = ? WHERE name = ?', buyer, seat);
    return 201;
  }
}

// Chains `n` callbacks (at most a million) through `queueMicrotask` or
// through `then`; the request's time over `n` is the cost of one.
async function microtasks(url, how) {
  const n = Math.min(Number(new URL(url).searchParams.get('n')) || 0, 1_000_000);
  if (!['queue', 'then'].includes(how) || n < 1) return new Response('not found', { status: 404 });
  const resolved = Promise.resolve();
  let done = 0;
  await new Promise((finish) => {
    const schedule = how === 'queue' ? () => queueMicrotask(step) : () => resolved.then(step);
    const step = () => (++done >= n ? finish() : schedule());
    schedule();
  });
  return Response.json({ callbacks: done });
}

export default {
  async fetch(request, env) {
    const [, kind, showing] = new URL(request.url).pathname.split('/');
    if (kind === 'health') return new Response('ok');
    if (kind === 'microtasks' && request.method === 'POST') return microtasks(request.url, showing);
    if (request.method !== 'POST' || !showing) return new Response('not found', { status: 404 });
    const stub = env.SHOWING.get(env.SHOWING.idFromName(showing));
    let status;
    if (kind === 'noop') status = await stub.noop();
    else if (kind === 'write') status = await stub.write();
    else if (kind === 'book') {
      const { seat } = await request.json();
      status = await stub.book(String(seat), crypto.randomUUID());
    } else return new Response('not found', { status: 404 });
    // `at`: when the Worker had the object's answer, by the runtime's
    // clock, so the benchmark's timeline can tell where a slow answer
    // spent its time.
    return Response.json({ ok: status < 300, at: Date.now() }, { status });
  },
};
