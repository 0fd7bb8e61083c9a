// The buyer's page as people use it, at phone and desktop width: the seat
// map is one tab stop crossed with the arrow keys; a 12-seat row with an
// aisle fits or scrolls with a visible cue, under a screen centred on the
// room; a seat another buyer takes is named; a declined card and a bad
// e-mail are told next to the Pay button, announced and focused; an
// expired hold clears the choice and redraws the map. Run by
// tests/e2e/tests/browser.rs, which passes SHOWING_ID (two rows of 12 with
// an aisle after seat 6), SHORT_ID (16 seats, holds of 3 seconds) and
// SOLD_OUT_ID (three seats, one a house seat, two sold).
import assert from 'node:assert/strict';
import { checkAccessibility, fillTestCard, holdSeat, launch, newPage } from './lib.mjs';

const base = process.env.BASE_URL;
const sid = process.env.SHOWING_ID;
const shortId = process.env.SHORT_ID;
const shots = process.env.SCREENSHOT_DIR;

// Whether an element's box lies inside the viewport.
async function inView(page, locator) {
  const box = await locator.boundingBox();
  const view = page.viewportSize();
  return box !== null && box.y >= 0 && box.x >= 0 && box.y + box.height <= view.height && box.x + box.width <= view.width;
}

const focusedSeat = (page) => page.evaluate(() => document.activeElement.dataset.seat || null);

const widths = [['phone', { width: 390, height: 844 }], ['desktop', { width: 1280, height: 900 }]];
const browser = await launch();
try {
  for (const [name, viewport] of widths) {
    const { context, page } = await newPage(browser, viewport);
    // What the page fetched, in order: Square's SDK (another origin's
    // script) is to come while seats are chosen, before any hold.
    const fetched = [];
    page.on('request', (r) => {
      if (r.resourceType() === 'script' && !r.url().startsWith(base)) fetched.push('square sdk');
      if (r.method() === 'POST' && /\/holds$/.test(new URL(r.url()).pathname)) fetched.push('hold');
    });
    await page.goto(`${base}/showings/${sid}`);
    await page.getByRole('grid', { name: 'Seats, screen at the top' }).waitFor();
    await page.getByRole('button', { name: 'Seat A1, available' }).waitFor();

    // One tab stop: Tab reaches a seat once, and the next Tab leaves the map.
    assert.equal(await page.locator('#map [tabindex="0"]').count(), 1, 'one seat is in the tab order');
    let stops = 0;
    for (let i = 0; i < 40 && !(await focusedSeat(page)); i++) await page.keyboard.press('Tab');
    assert.equal(await focusedSeat(page), 'A1', 'Tab lands on the first seat');
    await page.keyboard.press('Tab');
    while (await focusedSeat(page)) { stops++; await page.keyboard.press('Tab'); }
    assert.equal(stops, 0, 'a second Tab leaves the seat map');
    await page.keyboard.press('Shift+Tab');
    assert.equal(await focusedSeat(page), 'A1', 'Shift+Tab comes back to the same seat');

    // Arrow keys cross the row (over the aisle), go down a row and back.
    for (let i = 0; i < 11; i++) await page.keyboard.press('ArrowRight');
    assert.equal(await focusedSeat(page), 'A12');
    await page.keyboard.press('ArrowRight');
    assert.equal(await focusedSeat(page), 'A12', 'the end of a row stops the cursor');
    await page.keyboard.press('ArrowDown');
    assert.equal(await focusedSeat(page), 'B12');
    await page.keyboard.press('Home');
    assert.equal(await focusedSeat(page), 'B1');
    await page.keyboard.press('End');
    assert.equal(await focusedSeat(page), 'B12');
    // The last seat of a 12-seat row, reached by keyboard, is on screen:
    // the row fits, or scrolled to it, with the cue shown.
    assert.ok(await inView(page, page.locator('[data-seat="B12"]')), 'B12 is scrolled into view');
    const scroll = await page.locator('#map-scroll').evaluate((box) => ({ scrolls: box.scrollWidth > box.clientWidth + 1 }));
    assert.equal(await page.locator('#map-more').isVisible(), scroll.scrolls, 'the cue shows when, and only when, the room scrolls');
    if (name === 'phone') assert.ok(scroll.scrolls || await inView(page, page.locator('[data-seat="A1"]')), 'fits or scrolls');
    // The screen is centred on the room, not on the window.
    const [screen, room] = await Promise.all([page.locator('.screen').boundingBox(), page.locator('#map').boundingBox()]);
    assert.ok(Math.abs((screen.x + screen.width / 2) - (room.x + room.width / 2)) <= 2, 'the screen is centred over the seats');

    // Enter chooses the seat under the cursor; the cursor stays on it.
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.press('Enter');
    await page.getByRole('button', { name: 'Seat B11, chosen by you' }).waitFor();
    assert.equal(await focusedSeat(page), 'B11');
    await page.getByText('Chosen: B11').waitFor();
    await page.screenshot({ path: `${shots}/seat-map-wide-room-${name}.png`, fullPage: true });
    await checkAccessibility(page, 'the seat map (grid)');

    // Another buyer holds a seat this one has chosen: the page says which
    // seat went and why, by the Hold button.
    const seatTaken = name === 'phone' ? 'A3' : 'A4';
    await page.getByRole('button', { name: `Seat ${seatTaken}, available` }).click();
    const rival = await holdSeat(browser, base, sid, seatTaken);
    await page.locator('#hold-messages [role=alert]').filter({ hasText: `${seatTaken} was just taken by another buyer` }).waitFor();
    await page.getByText('Chosen: B11').waitFor();
    await page.getByRole('button', { name: `Seat ${seatTaken}, held, not available` }).waitFor();
    await rival.context.close();

    // A bad e-mail: said by the Pay button; the field is marked and focused.
    await page.getByRole('button', { name: 'Hold these seats' }).click();
    await page.getByRole('timer').waitFor();
    assert.deepEqual(fetched.slice(0, 2), ['square sdk', 'hold'], 'the SDK was fetched before the hold');
    await fillTestCard(page);
    await page.getByLabel('E-mail').fill('ana@');
    await page.getByRole('button', { name: 'Pay now' }).click();
    const bad = page.locator('#pay-messages [role=alert]');
    await bad.filter({ hasText: 'is not an e-mail address' }).waitFor();
    assert.equal(await page.evaluate(() => document.activeElement.id), 'email');
    assert.equal(await page.getByLabel('E-mail').getAttribute('aria-invalid'), 'true');
    assert.ok(await inView(page, bad), 'the e-mail message is in sight');

    // A card number the card form refuses: told the same way, and nothing
    // is sent to pay.
    await page.getByLabel('E-mail').fill('ana@example.com');
    await page.getByLabel('Card number').fill('4111 1111 1111 1112');
    await page.getByRole('button', { name: 'Pay now' }).click();
    const invalid = page.locator('#pay-messages [role=alert]').filter({ hasText: 'Check the card details' });
    await invalid.waitFor();
    assert.ok(await inView(page, invalid), 'the card message is in sight');
    assert.equal(await invalid.evaluate((node) => node === document.activeElement), true, 'the card message has focus');

    // A declined card: within a second of the answer the message is by the
    // Pay button, in sight, an alert, and has the keyboard's focus.
    await page.getByLabel('Card number').fill('4000 0000 0000 0002');
    const answered = page.waitForResponse((r) => r.url().includes('/checkout'));
    await page.getByRole('button', { name: 'Pay now' }).click();
    await answered;
    const declined = page.locator('#pay-messages [role=alert]').filter({ hasText: 'Your card was declined' });
    await declined.waitFor({ timeout: 1000 });
    assert.ok(await inView(page, declined), 'the decline message is inside the viewport');
    assert.equal(await declined.evaluate((node) => node === document.activeElement), true, 'the message has focus');
    assert.match(await declined.innerText(), /Nothing was charged[\s\S]*Code from the card processor: GENERIC_DECLINE/);
    assert.equal(await page.getByLabel('E-mail').getAttribute('aria-invalid'), 'false');
    await page.screenshot({ path: `${shots}/declined-${name}.png` });
    await checkAccessibility(page, 'the payment form after a decline');
    // Releasing redraws at once: nothing chosen, the seats free again.
    await page.getByRole('button', { name: 'Release seats' }).click();
    await page.getByText('No seats chosen.').waitFor();
    assert.equal(await page.locator('#map [aria-pressed="true"]').count(), 0);
    await page.getByRole('button', { name: 'Seat B11, available' }).waitFor();
    await context.close();
  }

  // A hold that runs out: the choice is cleared and the map redrawn, and
  // the seat can be chosen again at once.
  const { context, page } = await newPage(browser);
  await page.goto(`${base}/showings/${shortId}`);
  await page.getByRole('button', { name: 'Seat A2, available' }).click();
  await page.getByRole('button', { name: 'Hold these seats' }).click();
  await page.getByRole('button', { name: 'Seat A2, chosen by you' }).waitFor();
  const ranOut = page.locator('#hold-messages [role=alert]').filter({ hasText: 'Your hold ran out' });
  await ranOut.waitFor({ timeout: 20000 });
  assert.ok(await inView(page, ranOut), 'the expiry message is in sight');
  await page.getByText('No seats chosen.').waitFor();
  await page.getByRole('button', { name: 'Seat A2, available' }).waitFor({ timeout: 5000 });
  assert.equal(await page.locator('[data-seat="A2"]').getAttribute('aria-pressed'), 'false');
  assert.equal(await page.locator('#pay').isHidden(), true, 'the payment form is gone');
  assert.equal(await page.getByRole('button', { name: 'Hold these seats' }).isDisabled(), true);
  await page.getByRole('button', { name: 'Seat A2, available' }).click();
  await page.getByRole('button', { name: 'Seat A2, chosen by you' }).waitFor();
  assert.equal(await page.getByRole('button', { name: 'Hold these seats' }).isDisabled(), false);
  await page.screenshot({ path: `${shots}/hold-ran-out-phone.png`, fullPage: true });
  await context.close();

  // Seats left leave house seats out; a room with none left is sold out,
  // on its page and in the listing, and every seat keeps its number.
  const listing = await newPage(browser);
  await listing.page.goto(`${base}/showings/${shortId}`);
  await listing.page.getByText('16 of 16 seats left').waitFor();
  await listing.page.goto(`${base}/showings/${process.env.SOLD_OUT_ID}`);
  await listing.page.getByText('Sold out', { exact: true }).waitFor();
  for (const seat of ['A1', 'A2', 'A3']) assert.equal(await listing.page.locator(`[data-seat="${seat}"]`).innerText(), seat);
  // Sold out, the page offers the waiting list; the browser test of the
  // offer (`waitlist.mjs`) follows from this entry.
  await listing.page.getByRole('heading', { name: 'Waiting list' }).waitFor();
  await listing.page.locator('#waitlist-email').fill('wes@example.com');
  await listing.page.locator('#waitlist-seats').selectOption('1');
  await listing.page.getByRole('button', { name: 'Join the waiting list' }).click();
  await listing.page.getByText('You are number 1 on the waiting list for 1 seat.', { exact: false }).waitFor();
  await checkAccessibility(listing.page, 'the waiting list');
  await listing.page.screenshot({ path: `${shots}/waitlist-joined-phone.png`, fullPage: true });
  await listing.page.goto(`${base}/`);
  await listing.page.getByText(/Sold out/).first().waitFor();
  await listing.context.close();
  console.log('1 passed, 0 failed');
} finally {
  await browser.close();
}
