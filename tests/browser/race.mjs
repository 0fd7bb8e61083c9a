// Two buyers race for the same seat in two browsers; a third watches the
// map. One buyer gets the seat, the other is told which seat was taken and
// sees the map refreshed; the watcher sees the seat turn held, then sold,
// without reloading and without reading the map again: the changes come
// over its socket. A fourth page, whose network refuses WebSockets, sees
// the seat held by polling. Run by tests/e2e/tests/browser.rs.
import assert from 'node:assert/strict';
import { fillTestCard, launch } from './lib.mjs';

const base = process.env.BASE_URL;
const sid = process.env.SHOWING_ID;
const shots = process.env.SCREENSHOT_DIR;
const WITHIN_MS = 10000;

const browser = await launch();

async function open({ socketsRefused = false } = {}) {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
  // A network that lets no WebSocket through: the page falls back to
  // polling the map.
  if (socketsRefused) await context.routeWebSocket(/\/live$/, (ws) => ws.close());
  const page = await context.newPage();
  page.setDefaultTimeout(15000);
  await page.goto(`${base}/showings/${sid}`);
  await page.getByRole('button', { name: 'Seat A1, available' }).waitFor();
  return page;
}

async function pay(page) {
  await fillTestCard(page);
  await page.getByRole('button', { name: 'Pay now' }).click();
  await page.waitForURL(/\/orders\//);
}

try {
  const [first, second, watcher] = [await open(), await open(), await open()];
  const blocked = await open({ socketsRefused: true });
  const polls = [];
  blocked.on('request', (request) => { if (request.url().includes('/seats?format=codes')) polls.push(request.url()); });
  await watcher.waitForFunction(() => window.liveMap && window.liveMap.readyState === 1);
  const mapReads = [];
  watcher.on('request', (request) => { if (request.url().includes('/seats')) mapReads.push(request.url()); });
  // The runtime answers the page's keep-alive itself.
  const pong = await watcher.evaluate(() => new Promise((resolve) => {
    window.liveMap.addEventListener('message', (event) => { if (event.data === 'pong') resolve(event.data); });
    window.liveMap.send('ping');
  }));
  assert.equal(pong, 'pong');
  for (const page of [first, second]) await page.getByRole('button', { name: 'Seat A1, available' }).click();
  for (const page of [first, second]) await page.getByRole('button', { name: 'Hold these seats' }).waitFor();
  // Both press "Hold" within the same instant: a click with Playwright's
  // checks can come after the first hold's push has already told the
  // second page that A1 is taken (and it then has nothing to hold).
  await Promise.all([first, second].map((page) => page.evaluate(() => document.getElementById('hold').click())));

  const held = async (page) => (await page.getByRole('timer').count()) > 0 && page.getByRole('timer').isVisible();
  await first.waitForTimeout(1500);
  const firstWon = await held(first);
  const secondWon = await held(second);
  assert.ok(firstWon !== secondWon, `exactly one buyer holds A1 (first ${firstWon}, second ${secondWon})`);
  const [winner, loser] = firstWon ? [first, second] : [second, first];
  await loser.getByRole('alert').filter({ hasText: 'A1 was just taken' }).waitFor();
  await loser.getByRole('button', { name: 'Seat A1, held' }).waitFor();
  await loser.screenshot({ path: `${shots}/seat-taken-phone.png`, fullPage: true });

  await watcher.getByRole('button', { name: 'Seat A1, held' }).waitFor({ timeout: WITHIN_MS });
  // Without a socket the map still changes, by polling (every 10 s).
  await blocked.getByRole('button', { name: 'Seat A1, held' }).waitFor({ timeout: 20000 });
  assert.ok(polls.length >= 1, 'the page without a socket polled the map');
  assert.equal(await blocked.evaluate(() => window.liveMessages || 0), 0, 'no push reached the page without a socket');
  await pay(winner);
  await watcher.getByRole('button', { name: 'Seat A1, sold' }).waitFor({ timeout: WITHIN_MS });
  await watcher.screenshot({ path: `${shots}/seat-map-live-phone.png`, fullPage: true });
  const pushed = await watcher.evaluate(() => window.liveMessages || 0);
  assert.ok(pushed >= 3, `the watcher's map came over its WebSocket: the whole map, then changes (${pushed} messages)`);
  assert.deepEqual(mapReads, [], 'the watcher never read the map while its socket was open');
  console.log('1 passed, 0 failed');
} finally {
  await browser.close();
}
