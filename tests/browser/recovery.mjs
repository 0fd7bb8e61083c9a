// A buyer whose answers get lost: the hold's answer, then the checkout's
// answer after the server took the payment, then a checkout that never
// reached the server. Each time a reload leads back to the same hold and
// the same order, never to a second hold, a second authorization or a
// false "seat lost". Also: the countdown follows the server's extension
// when paying starts. Run by tests/e2e/tests/browser.rs, which checks the
// stand-in's authorizations afterwards.
import assert from 'node:assert/strict';
import { fillTestCard, holdSeat, launch } from './lib.mjs';

const base = process.env.BASE_URL;
const sid = process.env.SHOWING_ID;
const shots = process.env.SCREENSHOT_DIR;
const store = `showtime.pending.${sid}`;

const timer = async (page) => (await page.getByRole('timer').textContent()).trim();
const minutes = (text) => Number(text.split(':')[0]);

// The next request to `pattern` reaches the server, which answers, but the
// answer never reaches the page. Resolves to the answer the page lost.
function loseAnswer(page, pattern) {
  return new Promise((resolve) => page.route(pattern, async (route) => {
    const response = await route.fetch();
    resolve(await response.json());
    await route.abort('connectionreset');
  }, { times: 1 }));
}

const browser = await launch();
try {
  // One buyer: the hold's answer is lost on its way back.
  const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
  const page = await context.newPage();
  page.setDefaultTimeout(15000);
  await page.goto(`${base}/showings/${sid}`);
  await page.getByText('Choose up to 4 seats').waitFor();
  await page.getByRole('button', { name: 'Seat A1, available' }).click();
  const lostHold = loseAnswer(page, '**/holds');
  await page.getByRole('button', { name: 'Hold these seats' }).click();
  await page.getByText('The connection dropped before the answer came').waitFor();
  const firstHold = await lostHold;
  assert.equal(firstHold.seats.join(), 'A1', 'the server did hold A1');

  await page.reload();
  await page.getByText('Held: A1.').waitFor();
  await page.getByRole('timer').waitFor();
  assert.equal((await page.evaluate((k) => JSON.parse(localStorage.getItem(k)), store)).hold.hold_id, firstHold.hold_id,
    'the page found the same hold, not a second one');
  await page.getByRole('button', { name: 'Seat A1, chosen by you' }).waitFor();
  const before = await timer(page);
  assert.ok(before === '5:00' || minutes(before) === 4, `a fresh five-minute hold: ${before}`);

  // A declined card starts paying, which extends the hold once; the
  // countdown follows the server.
  await fillTestCard(page);
  await page.getByLabel('Card number').fill('4000 0000 0000 0002');
  await page.getByRole('button', { name: 'Pay now' }).click();
  await page.getByText('Your card was declined').waitFor();
  await page.waitForFunction(() => document.getElementById('countdown').textContent.startsWith('9:'));

  // The checkout's answer is lost after the server took the payment.
  await page.getByLabel('Card number').fill('4111 1111 1111 1111');
  const lostPayment = loseAnswer(page, '**/checkout');
  await page.getByRole('button', { name: 'Pay now' }).click();
  await page.getByText('The connection dropped while paying').waitFor();
  const paid = await lostPayment;
  assert.ok(paid.order_id, 'the server made an order');
  await page.reload();
  await page.waitForURL(new RegExp(`/orders/${paid.order_id}\\?key=`));
  await page.getByText('Paid. Show a ticket at the door.').waitFor();
  await page.getByRole('heading', { name: 'Seat A1' }).waitFor();
  await page.screenshot({ path: `${shots}/recovered-order.png`, fullPage: true });
  assert.equal(await page.evaluate((k) => localStorage.getItem(k), store), null, 'nothing left pending');
  await context.close();

  // Another buyer: the checkout never reaches the server.
  const { context: other, page: second } = await holdSeat(browser, base, sid, 'A2', { width: 1280, height: 900 });
  await fillTestCard(second);
  await second.route('**/checkout', (route) => route.abort('connectionreset'), { times: 1 });
  await second.getByRole('button', { name: 'Pay now' }).click();
  await second.getByText('The connection dropped while paying').waitFor();
  await second.reload();
  await second.waitForURL(/\/orders\//);
  await second.getByText('Paid. Show a ticket at the door.').waitFor();
  await second.getByRole('heading', { name: 'Seat A2' }).waitFor();
  await other.close();
  console.log(JSON.stringify({ order_id: paid.order_id }));
} finally {
  await browser.close();
}
