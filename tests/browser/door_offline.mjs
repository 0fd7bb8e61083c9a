// The door without a network. Run by tests/e2e/tests/browser.rs, which
// passes a paid ticket (TICKET_CODE), a refunded one (REFUNDED_CODE), one
// for two devices (TWICE_CODE), one of another showing (ELSEWHERE_CODE),
// the door PIN and the admin token.
//
// 1. A device signs in online, then loses the network (Playwright's
//    offline mode): it admits a valid ticket, flags a second scan of it,
//    refuses a forged code, the refunded ticket and another showing's,
//    each marked offline;
//    reloaded with no network it opens from its service worker and still
//    knows what it admitted, also when the ticket's number is typed
//    (SHORT_CODE); back online while the Worker refuses its scans, it
//    says so and turns away a copy of the ticket it let in, then sends
//    them once they are taken (a page reloaded offline may be told it is
//    online all along, and gets no "online" event: it tries the Worker
//    again every few seconds while it cannot reach it or is refused).
// 2. A device forgets a showing's ticket list an hour after its door
//    closed, keeping the scans of it still waiting to be sent. Two
//    devices offline both admit the same ticket; the later one (its clock
//    ten minutes behind) comes back first: its admission, recorded first,
//    stands, and the earlier one is listed as a conflict on the door page
//    and in admin.
// It prints the device names for the Rust side to check D1.
import assert from 'node:assert/strict';
import { checkAccessibility, launch, newPage, staffPage } from './lib.mjs';

const base = process.env.BASE_URL;
const sid = process.env.SHOWING_ID;
const shots = process.env.SCREENSHOT_DIR;

// `behindMs`: the device's clock runs that far behind (Playwright's clock,
// which flows as time does from where it is set).
async function signedIn(browser, viewport, behindMs = 0) {
  const { context, page } = await newPage(browser, viewport);
  if (behindMs) await context.clock.install({ time: Date.now() - behindMs });
  await page.goto(`${base}/door`);
  await page.getByLabel('Showing').selectOption(sid);
  await page.getByLabel('Door PIN (or staff door token)').fill(process.env.DOOR_PIN);
  await page.getByRole('button', { name: 'Start scanning' }).click();
  await page.getByText(/^Online · no scans waiting · ticket list from /).waitFor();
  // The service worker controls the page before the network goes.
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null);
  const device = await page.locator('#device').textContent();
  return { context, page, device };
}

async function scan(page, code, expected) {
  const input = page.getByLabel('Ticket code (a handheld scanner types it here)');
  await input.fill(code);
  await input.press('Enter');
  await page.getByRole('status').filter({ hasText: expected }).waitFor();
}

const browser = await launch();
try {
  // 1. One device, offline.
  const first = await signedIn(browser, { width: 390, height: 844 });
  const { page } = first;
  await page.getByText('Checking Door test film').waitFor();
  await first.context.setOffline(true);
  const admitted = page.getByRole('status').filter({ hasText: 'Admitted' }).filter({ hasText: 'Checked offline' });
  await scan(page, process.env.TICKET_CODE, 'Admitted');
  await admitted.waitFor();
  await page.getByText(/^Offline since \d/).waitFor();
  await scan(page, process.env.TICKET_CODE, 'Already scanned here at');
  const forged = process.env.TICKET_CODE.replace('.QTE.', '.QTI.');
  await scan(page, forged, 'Invalid ticket');
  await scan(page, process.env.REFUNDED_CODE, 'Refunded: not valid');
  await page.getByRole('status').filter({ hasText: 'Checked offline' }).waitFor();
  await scan(page, process.env.ELSEWHERE_CODE, 'Wrong showing');
  await page.getByText(/5 scans waiting to be sent/).waitFor();
  await page.getByText('Admitted 1 of 2 sold').waitFor();
  await page.screenshot({ path: `${shots}/door-offline-phone.png`, fullPage: true });
  await checkAccessibility(page, 'the door page offline');

  // Reloaded with no network: the service worker serves the page, and the
  // tab goes on scanning with the ticket list and admissions it keeps.
  const reloaded = await page.reload();
  assert.ok(reloaded && reloaded.fromServiceWorker(), 'the page came from its service worker');
  await page.getByText(/5 scans waiting to be sent/).waitFor();
  await scan(page, process.env.TICKET_CODE, 'Already scanned here at');
  await page.getByText(/6 scans waiting to be sent/).waitFor();
  // The number printed under the ticket's QR code, typed: found in the
  // ticket list this device keeps, and queued by the ticket's whole id.
  await scan(page, process.env.SHORT_CODE.toLowerCase(), 'Already scanned here at');
  await page.getByText(/7 scans waiting to be sent/).waitFor();

  // Back online while the Worker refuses the scans waiting (a stand-in
  // answer): the door says so, and a copy of the ticket this device let in
  // offline is turned away here, not admitted again by the Worker, which
  // has not heard of the first admission.
  const refused = { error: 'invalid_scans', detail: 'refused for this test' };
  await page.route('**/api/door/sync', (route) => route.fulfill({ status: 400, contentType: 'application/json', body: JSON.stringify(refused) }));
  await first.context.setOffline(false);
  await page.getByText(/^Online · 7 scans waiting to be sent · the server refused them: refused for this test/).waitFor();
  await scan(page, process.env.TICKET_CODE, 'Already scanned here at');
  await page.getByText(/8 scans waiting to be sent/).waitFor();
  // The result shown is this scan's (the one before said the same).
  assert.match(await page.locator('#result').textContent(), /^Already scanned here at/);
  // Taken again, they are sent within seconds, without a scan or a reload.
  await page.unroute('**/api/door/sync');
  await page.getByText(/^Online · no scans waiting/).waitFor();

  // 2. Two devices admit one ticket while offline; the later comes back first.
  const early = await signedIn(browser, { width: 1280, height: 900 });
  // The later device's clock runs ten minutes behind: its admission is
  // dated by the Worker's clock, so it still does not come first.
  const late = await signedIn(browser, { width: 390, height: 844 }, 10 * 60 * 1000);

  // An hour after a showing's door closed, a device forgets its ticket
  // list (buyers' names) and admissions, but not its scans waiting to be
  // sent; today's it keeps.
  const kept = () => early.page.evaluate(async (today) => {
    const db = await new Promise((resolve, reject) => {
      const req = indexedDB.open('door', 1);
      req.onsuccess = () => resolve(req.result);
      req.onerror = () => reject(req.error);
    });
    const all = (name) => new Promise((resolve) => {
      const req = db.transaction(name).objectStore(name).getAll();
      req.onsuccess = () => resolve(req.result);
    });
    const manifests = (await all('manifests')).map((m) => m.showing.id).sort();
    const admitted = (await all('admitted')).map((a) => a.ticket_id).sort();
    const queued = (await all('queue')).map((q) => q.id).sort();
    db.close();
    return { manifests, admitted, queued, today };
  }, sid);
  await early.page.evaluate(async () => {
    const db = await new Promise((resolve) => { const req = indexedDB.open('door', 1); req.onsuccess = () => resolve(req.result); });
    const tx = db.transaction(['manifests', 'admitted', 'queue'], 'readwrite');
    const closed = Date.now() - 61 * 60 * 1000;
    tx.objectStore('manifests').put({ showing: { id: 'past-showing', title: 'Past', starts_at_ms: closed, door_close_at_ms: closed, forget_at_ms: closed + 3600 * 1000 }, tickets: [{ id: 'past-1', seat: 'A1', name: 'Ada', status: 'valid' }], keys: [], generated_at_ms: closed });
    tx.objectStore('admitted').put({ ticket_id: 'past-1', showing_id: 'past-showing', at_ms: closed });
    tx.objectStore('queue').put({ id: 'past-scan', showing_id: 'past-showing', code: 'past-1', at_ms: closed, result: 'admitted' });
    await new Promise((resolve) => { tx.oncomplete = resolve; });
    db.close();
  });
  assert.deepEqual(await kept(), { manifests: ['past-showing', sid].sort(), admitted: ['past-1'], queued: ['past-scan'], today: sid });
  await early.page.reload();
  await early.page.getByText(/^Online · no scans waiting · 1 scan of another showing waiting/).waitFor();
  assert.deepEqual(await kept(), { manifests: [sid], admitted: [], queued: ['past-scan'], today: sid });

  await early.context.setOffline(true);
  await late.context.setOffline(true);
  await scan(early.page, process.env.TWICE_CODE, 'Admitted');
  // More than the clock's measure can be off by (half a ticket list's
  // round trip).
  await new Promise((resolve) => setTimeout(resolve, 1000));
  await scan(late.page, process.env.TWICE_CODE, 'Admitted');
  await late.context.setOffline(false);
  await late.page.getByText(/^Online · no scans waiting/).waitFor();
  await early.context.setOffline(false);
  await early.page.getByText(/^Online · no scans waiting/).waitFor();
  const conflict = early.page.locator('#conflicts li').filter({ hasText: `Seat A3: admitted by ${early.device}` });
  await conflict.filter({ hasText: `but ${late.device} admitted it first` }).waitFor();
  await early.page.screenshot({ path: `${shots}/door-conflicts-desktop.png`, fullPage: true });

  // Staff see it on the showing's admin page.
  const staff = await staffPage(browser, base);
  await staff.page.goto(`${base}/admin/showings/${sid}`);
  await staff.page.getByRole('heading', { name: 'Door conflicts' }).waitFor();
  await staff.page.locator('#conflict-list li').filter({ hasText: `Seat A3: admitted again by ${early.device}` }).waitFor();
  await checkAccessibility(staff.page, 'the admin showing page with door conflicts');

  console.log(`devices ${JSON.stringify({ first: first.device, early: early.device, late: late.device })}`);
  console.log('1 passed, 0 failed');
} finally {
  await browser.close();
}
