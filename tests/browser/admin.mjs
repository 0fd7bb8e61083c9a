// Cinema staff in a real (headless) Chromium: sign in, create a showing in
// the layout editor, then on a showing with a sold order open the seat's
// order and refund it, while a buyer's browser watches the seats come back
// on sale without reloading. Also exports the tickets as CSV. Every admin
// page is checked with axe-core and photographed at phone and desktop width.
// Run by tests/e2e/tests/browser.rs with BASE_URL, SHOWING_ID (seats A1 and
// A2 sold to ana@example.com), ADMIN_TOKEN and SCREENSHOT_DIR.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { checkAccessibility, launch } from './lib.mjs';

const base = process.env.BASE_URL;
const sid = process.env.SHOWING_ID;
const shots = process.env.SCREENSHOT_DIR;
const token = process.env.ADMIN_TOKEN;
const WITHIN_MS = 10000;
const VIEWPORTS = [['phone', { width: 390, height: 844 }], ['desktop', { width: 1280, height: 900 }]];

const browser = await launch();

async function signedIn(viewport) {
  // Staff whose device is set to another zone still see and type the
  // cinema's own time (the stack's VENUE_TIME_ZONE is Europe/London).
  const context = await browser.newContext({ viewport, acceptDownloads: true, timezoneId: 'America/New_York', locale: 'en-GB' });
  const page = await context.newPage();
  page.setDefaultTimeout(15000);
  await page.goto(`${base}/admin`);
  await page.getByLabel('Admin token').fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Needs attention' }).waitFor();
  return page;
}

async function photographAndCheck(page, name, what) {
  await page.screenshot({ path: `${shots}/${name}.png`, fullPage: true });
  await checkAccessibility(page, what);
}

try {
  // A wrong token is refused with a clear message.
  for (const [width, viewport] of VIEWPORTS) {
    const context = await browser.newContext({ viewport });
    const page = await context.newPage();
    await page.goto(`${base}/admin`);
    await page.getByLabel('Admin token').fill('not-the-token');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').filter({ hasText: 'not the admin token' }).waitFor();
    await photographAndCheck(page, `admin-sign-in-${width}`, 'the admin sign-in page');
    // The pages of a showing send a signed-out browser to sign in.
    await page.goto(`${base}/admin/showings/${sid}`);
    await page.waitForURL(/\/admin\?next=/);
    await context.close();
  }

  for (const [width, viewport] of VIEWPORTS) {
    const page = await signedIn(viewport);
    await page.getByRole('link', { name: 'Paris, Texas' }).first().waitFor();
    await photographAndCheck(page, `admin-home-${width}`, 'the admin home');

    // A new showing from the layout editor: an aisle, a house seat, a PIN.
    await page.getByRole('link', { name: 'Create a showing' }).click();
    await page.getByRole('heading', { name: 'New showing' }).waitFor();
    const title = `Late show ${width}`;
    // Mistakes are told next to their fields, all at once, and each goes
    // as soon as it is fixed.
    await page.getByLabel('Price of one seat').fill('9.5.0');
    await page.getByLabel('Row 1 house seats').fill('two');
    await page.getByRole('button', { name: 'Create showing' }).click();
    await page.getByRole('alert').filter({ hasText: '4 fields need fixing' }).waitFor();
    assert.equal(await page.locator('.field-error').count(), 4);
    for (const label of ['Title', 'Price of one seat', 'Row 1 house seats']) {
      assert.equal(await page.getByLabel(label, { exact: true }).getAttribute('aria-invalid'), 'true', label);
    }
    await photographAndCheck(page, `admin-editor-errors-${width}`, 'the editor with errors');
    await page.getByLabel('Title').fill(title);
    assert.equal(await page.getByLabel('Title').getAttribute('aria-invalid'), null, 'a fixed field loses its error');
    assert.equal(await page.locator('.field-error').count(), 3);
    await page.getByLabel('Row 1 house seats').fill('');
    assert.equal(await page.locator('.field-error').count(), 2);
    await page.getByLabel('Title').fill(title);
    // On the phone, a time the clocks pass twice (London, 25 Oct 2026):
    // staff choose which.
    const [typed, shown] = width === 'phone' ? ['2026-10-25T01:30', /25 Oct.* 01:30 GMT/] : ['2099-06-01T21:15', /1 Jun.* 21:15 BST/];
    await page.getByText('Europe/London').first().waitFor();
    await page.getByLabel("Starts (the cinema's local time, Europe/London)").fill(typed);
    await page.getByLabel('Price of one seat').fill('9.50');
    await page.getByLabel('Row 1 aisle after seats').fill('5');
    await page.getByRole('button', { name: 'Seat B1, for sale' }).click();
    await page.getByRole('button', { name: 'Seat B1, house seat' }).waitFor();
    assert.equal(await page.getByLabel('Row 2 house seats').inputValue(), '1');
    await page.getByText('29 seats for sale.').waitFor();
    // A standing area beside the rows is counted with them, then taken out.
    await page.getByLabel('Areas').fill('Floor: 50');
    await page.getByText('29 seats and 50 general admission places for sale.').waitFor();
    await page.getByLabel('Areas').fill('');
    await page.getByText('29 seats for sale.').waitFor();
    await page.getByRole('button', { name: 'Add a row' }).click();
    assert.equal(await page.getByLabel('Row 4 name').inputValue(), 'D');
    // The waiting room's rate unless staff set one, with the numbers it
    // comes from (the 10 minutes allowed to pay).
    await page.getByText(/1,002 a minute keeps about 10,020 buyers choosing at once/).waitFor();
    assert.equal(await page.locator('#rush-suggested').innerText(), '1,002');
    await photographAndCheck(page, `admin-editor-${width}`, 'the layout editor');
    // Nothing of the editor is cut off: the page itself never scrolls
    // sideways (the rows table and the preview scroll within themselves).
    assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), 'the editor fits the width');
    const rowName = page.getByLabel('Row 1 name');
    assert.ok((await rowName.boundingBox()).width >= 40, 'row names are ordinary inputs');
    await page.getByRole('button', { name: 'Create showing' }).click();
    if (width === 'phone') {
      await page.getByRole('alert').filter({ hasText: 'this time happens twice' }).waitFor();
      await page.getByRole('button', { name: 'The second (+00:00)' }).click();
    }
    await page.getByRole('heading', { name: title }).waitFor();
    await page.getByText(shown).first().waitFor();
    // The door PIN is drawn by the server, on the showing's page, and
    // shown once.
    await page.getByText('No door PIN is set yet').waitFor();
    await page.getByRole('button', { name: 'Draw a new door PIN' }).click();
    await page.getByText(/^Door PIN: \d{10}\. Give it to door staff/).waitFor();
    await page.getByText('A door PIN is set.').waitFor();
    await page.getByRole('button', { name: 'Seat B1, house seat' }).waitFor();
    await page.getByText('0 of 39').waitFor();
    await photographAndCheck(page, `admin-new-showing-${width}`, 'a new showing in admin');

    // Its edit page, filled in from what was saved.
    await page.getByRole('link', { name: 'Edit showing' }).click();
    await page.getByRole('heading', { name: `Edit ${title}` }).waitFor();
    assert.equal(await page.getByLabel('Price of one seat').inputValue(), '9.50');
    assert.equal(await page.getByLabel(/^Starts/).inputValue(), typed);
    assert.equal(await page.getByLabel('Row 1 aisle after seats').inputValue(), '5');
    await photographAndCheck(page, `admin-edit-${width}`, 'the edit page');
    await page.context().close();
  }

  // The dashboard lists showings yet to start first, soonest first, then
  // those that started (the phone's, in October 2026), with revenue.
  const home = await signedIn({ width: 1280, height: 900 });
  await home.getByRole('columnheader', { name: 'Revenue' }).waitFor();
  const order = await home.locator('#showings tbody tr td:first-child').allInnerTexts();
  const at = (t) => order.indexOf(t);
  assert.ok(at('Late show desktop') >= 0 && at('Late show desktop') < at('Paris, Texas') && at('Paris, Texas') < at('Late show phone'), `by date: ${order}`);
  // Revenue: the two tickets Ana paid for, nothing refunded yet.
  const paris = home.locator('#showings tr').filter({ hasText: 'Paris, Texas' });
  await paris.getByRole('cell', { name: '2 of 16', exact: true }).waitFor();
  await paris.getByRole('cell', { name: /^(US)?\$24\.00$/ }).waitFor();
  // One seat count: the dashboard's is the showing page's (house seats out).
  await home.locator('#showings tr').filter({ hasText: 'Late show desktop' }).getByRole('cell', { name: '0 of 39', exact: true }).waitFor();
  await home.context().close();

  // Point 4: a buyer watches the map while staff refund the order.
  const watcherContext = await browser.newContext({ viewport: { width: 390, height: 844 } });
  const watcher = await watcherContext.newPage();
  watcher.setDefaultTimeout(15000);
  await watcher.goto(`${base}/showings/${sid}`);
  await watcher.getByRole('button', { name: 'Seat A1, sold' }).waitFor();
  await watcher.waitForFunction(() => window.liveMap && window.liveMap.readyState === 1);
  await watcher.evaluate(() => { window.notReloaded = true; });

  const staff = await signedIn({ width: 1280, height: 900 });
  // The showing's orders are held back until the keyboard has been tried:
  // the map is drawn before they come, and keys pressed on it meanwhile
  // must move the cursor (a key pressed then was once lost).
  let letOrdersThrough;
  const ordersHeld = new Promise((resolve) => { letOrdersThrough = resolve; });
  const ordersList = (url) => url.pathname === '/api/admin/orders';
  await staff.route(ordersList, async (route) => {
    await ordersHeld;
    await route.continue();
  });
  await staff.goto(`${base}/admin/showings/${sid}`);
  // The staff map is one tab stop too, moved with the arrow keys, and a
  // redraw (the map follows every change) keeps the keyboard on its seat.
  await staff.getByRole('grid', { name: 'Seats, screen at the top' }).waitFor();
  await staff.getByRole('button', { name: 'Seat A1, sold to ana@example.com' }).waitFor();
  assert.equal(await staff.locator('#map [tabindex="0"]').count(), 1, 'one seat of the staff map is in the tab order');
  const focusedSeat = () => staff.evaluate(() => document.activeElement && document.activeElement.dataset.seat);
  await staff.locator('#map [tabindex="0"]').focus();
  assert.equal(await focusedSeat(), 'A1');
  await staff.keyboard.press('ArrowRight');
  await staff.keyboard.press('ArrowDown');
  assert.equal(await focusedSeat(), 'B2');
  await staff.keyboard.press('End');
  assert.equal(await focusedSeat(), 'B8');
  await staff.evaluate(() => renderMap());
  assert.equal(await focusedSeat(), 'B8', 'a redraw keeps the focused seat');
  assert.equal(await staff.locator('#map [tabindex="0"]').count(), 1);
  letOrdersThrough();
  await staff.getByRole('button', { name: 'Seat A1, sold to ana@example.com' }).click();
  await staff.getByRole('heading', { name: /^Order / }).waitFor();
  await staff.getByText('Ana Lima · ana@example.com').waitFor();
  await photographAndCheck(staff, 'admin-showing-order-desktop', 'a showing with an open order');

  // Staff move Ana's A2 to B5 from her order and the map: A2 goes back on
  // sale and B5 is hers at once, with a new ticket.
  await staff.getByRole('button', { name: 'Move seat A2 to another seat' }).click();
  await staff.getByText('Choose a free seat on the map for the ticket in seat A2.').waitFor();
  await staff.getByRole('button', { name: 'Seat B5, available: move seat A2 here' }).click();
  await staff.getByText('Move the ticket for seat A2 to seat B5?', { exact: false }).waitFor();
  await photographAndCheck(staff, 'admin-move-ticket-desktop', 'a ticket being moved');
  await staff.getByRole('button', { name: 'Move to B5' }).click();
  await staff.getByRole('status').filter({ hasText: /^Moved: the ticket for seat A2 is now for seat B5/ }).waitFor();
  await staff.getByRole('button', { name: 'Seat B5, sold to ana@example.com' }).waitFor();
  await staff.getByRole('button', { name: 'Seat A2, available' }).waitFor();
  await staff.locator('#order-body').getByRole('cell', { name: 'moved to B5' }).waitFor();
  assert.equal(await staff.getByRole('heading', { name: 'Move a ticket' }).isHidden(), true, 'the move is done');

  // The export, downloaded with the session cookie.
  const [download] = await Promise.all([staff.waitForEvent('download'), staff.getByRole('link', { name: 'Export tickets (CSV)' }).click()]);
  const csv = await readFile(await download.path(), 'utf8');
  assert.match(csv, /^"seat","ticket","price","amount","net","tax","tax_rate","currency","ticket_status"/);
  assert.match(csv, /\n"A1",[^\n]*,"Standard","12\.00","12\.00","0\.00","0\.00%","USD","valid",[^\n]*"ana@example\.com"/);

  // Its messages: the tickets mail is listed; staff resend it, then copy
  // the order link, which opens the order for anyone who has it.
  await staff.getByRole('cell', { name: 'Tickets', exact: true }).first().waitFor();
  assert.equal(await staff.getByRole('cell', { name: 'Tickets', exact: true }).count(), 1);
  await staff.getByRole('button', { name: 'Resend tickets' }).click();
  await staff.getByRole('status').filter({ hasText: /^Tickets (sent again to ana@example\.com|queued)/ }).waitFor();
  assert.equal(await staff.getByRole('cell', { name: 'Tickets', exact: true }).count(), 2);
  await staff.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
  await staff.getByRole('button', { name: 'Copy order link' }).click();
  await staff.getByRole('status').filter({ hasText: 'Order link copied' }).waitFor();
  const link = await staff.evaluate(() => navigator.clipboard.readText());
  assert.match(link, /\/orders\/[0-9a-f]+\?key=/);
  const stranger = await browser.newContext();
  const opened = await stranger.newPage();
  await opened.goto(link);
  await opened.getByText('Paid. Show a ticket at the door.').waitFor();
  await stranger.close();

  await staff.getByRole('button', { name: 'Refund whole order' }).click();
  await staff.getByRole('button', { name: /^Confirm: refund all 2 tickets/ }).click();
  // Square answers a refund PENDING or COMPLETED; its webhook completes it.
  await staff.getByRole('status').filter({ hasText: /^Refund(ed)? / }).waitFor();
  // The panel says where the refund stands, offers no second refund, and
  // follows it to "Refunded" with the tickets void.
  const states = staff.locator('#refund-states li');
  await states.first().filter({ hasText: /Refund pending|Refunded/ }).waitFor();
  assert.equal(await staff.getByRole('button', { name: 'Refund whole order' }).count(), 0, 'no second refund is offered');
  await states.first().filter({ hasText: /: Refunded, / }).waitFor({ timeout: WITHIN_MS });
  await staff.locator('#order-body').getByRole('cell', { name: 'void (refunded)' }).first().waitFor({ timeout: WITHIN_MS });
  assert.equal(await staff.locator('#order-body').getByRole('cell', { name: 'void (refunded)' }).count(), 2);
  await staff.screenshot({ path: `${shots}/admin-refunded-desktop.png`, fullPage: true });
  await staff.getByRole('button', { name: 'Seat A1, available' }).waitFor({ timeout: WITHIN_MS });

  await watcher.getByRole('button', { name: 'Seat A1, available' }).waitFor({ timeout: WITHIN_MS });
  await watcher.getByRole('button', { name: 'Seat A2, available' }).waitFor({ timeout: WITHIN_MS });
  assert.equal(await watcher.evaluate(() => window.notReloaded), true, 'the watcher did not reload');
  await watcher.screenshot({ path: `${shots}/seat-map-after-refund-phone.png`, fullPage: true });

  // The buyer's order page now has no QR code to scan: each ticket says
  // VOID, and the receipt lists the refund.
  const buyerAfter = await browser.newContext({ viewport: { width: 390, height: 844 } });
  const receipt = await buyerAfter.newPage();
  await receipt.goto(link);
  await receipt.getByText('This order was refunded; its tickets are void.').waitFor();
  assert.equal(await receipt.getByRole('img', { name: /QR code/ }).count(), 0, 'no QR code on a refunded order');
  assert.equal(await receipt.getByText('VOID', { exact: true }).count(), 2);
  await receipt.locator('#refunds li').filter({ hasText: /\$24\.00, refunded, / }).waitFor();
  await receipt.screenshot({ path: `${shots}/order-refunded-phone.png`, fullPage: true });
  await checkAccessibility(receipt, 'a refunded order');
  await buyerAfter.close();

  // Search on the showing's page finds the refunded order by part of its
  // e-mail, by the buyer's name, and by the order number its receipt
  // shows; a search between each that matches nothing says so, so each
  // find is the new search's.
  const orderId = link.match(/\/orders\/([0-9a-f]+)\?/)[1];
  const receiptNumber = `${orderId.slice(16, 21)}-${orderId.slice(21, 26)}`.toUpperCase();
  const search = async (page, label, button, text) => {
    await page.getByLabel(label).fill(text);
    await page.getByRole('button', { name: button, exact: true }).click();
  };
  for (const text of ['ANA@', 'lima', receiptNumber]) {
    await search(staff, 'Search by e-mail, name or order number', 'Search', 'nobody-here');
    await staff.getByText('No order has an e-mail, name or order number containing “nobody-here”.').waitFor();
    await search(staff, 'Search by e-mail, name or order number', 'Search', text);
    await staff.locator('#orders').getByRole('cell', { name: 'Refunded', exact: true }).waitFor();
  }
  await staff.locator('#orders').getByRole('button', { name: new RegExp(`^${receiptNumber}: open the order`) }).waitFor();
  // The dashboard's search, across every showing, finds it by number too.
  await staff.goto(`${base}/admin`);
  await search(staff, "Buyer's e-mail, name or order number (or part of one)", 'Search all showings', receiptNumber);
  await staff.locator('#search-results').getByRole('cell', { name: 'Refunded', exact: true }).waitFor();

  const phone = await signedIn({ width: 390, height: 844 });
  await phone.goto(`${base}/admin/showings/${sid}`);
  await phone.getByRole('button', { name: 'Seat A1, available' }).waitFor();
  await photographAndCheck(phone, 'admin-showing-phone', 'a showing in admin on a phone');
  await staff.goto(`${base}/admin/showings/${sid}`);
  await staff.getByRole('button', { name: 'Seat A1, available' }).waitFor();
  await staff.screenshot({ path: `${shots}/admin-showing-desktop.png`, fullPage: true });

  // Staff cancel the showing (its order was refunded above): a second
  // press confirms; buyers then see it cancelled.
  await staff.getByLabel('What buyers are told (optional)').fill('The projector broke.');
  await staff.getByRole('button', { name: 'Cancel showing' }).click();
  await staff.getByRole('button', { name: 'Confirm: cancel it and refund every order' }).click();
  await staff.getByRole('status').filter({ hasText: /^Cancelled\. 0 order\(s\) refunded/ }).waitFor();
  await staff.getByText(/^Cancelled .*: “The projector broke\.”/).waitFor();
  await photographAndCheck(staff, 'admin-showing-cancelled-desktop', 'a cancelled showing in admin');
  const buyer = await browser.newContext({ viewport: { width: 390, height: 844 } });
  const listing = await buyer.newPage();
  await listing.goto(`${base}/`);
  await listing.getByText(/· Cancelled$/).first().waitFor();
  await listing.goto(`${base}/showings/${sid}`);
  await listing.getByRole('alert').filter({ hasText: 'This showing is cancelled' }).waitFor();
  assert.equal(await listing.getByRole('button', { name: 'Hold these seats' }).isHidden(), true);
  await photographAndCheck(listing, 'showing-cancelled-phone', 'a cancelled showing');
  await buyer.close();

  // "Sign out" ends this browser's session only; the phone stays signed
  // in until someone signs out on every device.
  await staff.getByRole('button', { name: 'Sign out', exact: true }).click();
  await staff.getByLabel('Admin token').waitFor();
  await phone.goto(`${base}/admin`);
  await phone.getByRole('heading', { name: 'Needs attention' }).waitFor();
  const desk = await signedIn({ width: 1280, height: 900 });
  await desk.getByRole('button', { name: 'Sign out on every device' }).click();
  await desk.getByLabel('Admin token').waitFor();
  await phone.goto(`${base}/admin`);
  await phone.getByLabel('Admin token').waitFor();
  console.log('1 passed, 0 failed');
} finally {
  await browser.close();
}
