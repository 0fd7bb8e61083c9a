// A buyer in a real (headless) Chromium: picks two seats on the live map,
// holds them, pays with the Square stand-in's test card, and sees the
// tickets with their QR codes. Run by tests/e2e/tests/browser.rs, which
// starts the stack and passes BASE_URL, SHOWING_ID and SCREENSHOT_DIR.
import assert from 'node:assert/strict';
import { checkAccessibility, expectOrderPage, fillTestCard, launch } from './lib.mjs';

const base = process.env.BASE_URL;
const sid = process.env.SHOWING_ID;
const shots = process.env.SCREENSHOT_DIR;

const browser = await launch();
try {
  for (const [name, viewport] of [['phone', { width: 390, height: 844 }], ['desktop', { width: 1280, height: 900 }]]) {
    // The buyer's device is in California; the cinema (the stack's
    // VENUE_TIME_ZONE) is in London, and times are the cinema's.
    const context = await browser.newContext({ viewport, timezoneId: 'America/Los_Angeles' });
    const page = await context.newPage();
    page.setDefaultTimeout(15000);
    const seats = name === 'phone' ? ['A3', 'A4'] : ['B5', 'B6'];

    await page.goto(`${base}/`);
    await page.getByRole('link', { name: 'Paris, Texas' }).first().waitFor();
    await page.getByRole('banner').getByText('Showtime Cinema').waitFor();
    await page.getByText(/(19:30|07:30 PM) GMT/).first().waitFor();
    await page.screenshot({ path: `${shots}/showings-${name}.png`, fullPage: true });
    await checkAccessibility(page, 'the showings page');

    await page.goto(`${base}/showings/${sid}`);
    await page.getByText('Choose up to 4 seats').waitFor();
    await page.getByText(/(19:30|07:30 PM) GMT/).waitFor();
    for (const seat of seats) await page.getByRole('button', { name: `Seat ${seat}, available` }).click();
    assert.equal(await page.getByRole('button', { name: `Seat ${seats[0]}, chosen by you` }).getAttribute('aria-pressed'), 'true');
    await page.screenshot({ path: `${shots}/seat-map-${name}.png`, fullPage: true });
    await checkAccessibility(page, 'the seat map');
    await page.getByRole('button', { name: 'Hold these seats' }).click();

    await page.getByRole('timer').waitFor();
    await fillTestCard(page);
    await page.screenshot({ path: `${shots}/checkout-${name}.png`, fullPage: true });
    await checkAccessibility(page, 'the payment form');
    await page.getByRole('button', { name: 'Pay now' }).click();

    await expectOrderPage(page);
    await page.getByText('Paid. Show a ticket at the door.').waitFor();
    const qrs = page.getByRole('img', { name: /QR code of the ticket for seat/ });
    await qrs.nth(1).waitFor();
    assert.equal(await qrs.count(), 2);
    for (let i = 0; i < 2; i++) {
      const width = await qrs.nth(i).evaluate((img) => img.complete ? img.naturalWidth : 0);
      assert.ok(width > 0, 'the QR code image loaded');
    }
    for (const seat of seats) await page.getByRole('heading', { name: `Seat ${seat}` }).waitFor();
    // The order page is a receipt: number, date, buyer, each seat and its
    // price, the total, and a print button.
    const receipt = page.getByRole('region', { name: 'Receipt' });
    for (const text of ['Order number', 'Ordered', 'Ana Lima', 'ana@example.com', '$24.00', 'Visa ending 1111']) await receipt.getByText(text, { exact: true }).first().waitFor();
    assert.match(await receipt.locator('dd').nth(0).innerText(), /^[0-9A-F]{5}-[0-9A-F]{5}$/);
    for (const seat of seats) await receipt.getByRole('row', { name: new RegExp(`^${seat} Standard \\$12\\.00 Valid$`) }).waitFor();
    await receipt.getByRole('button', { name: 'Print' }).waitFor();
    // Printed, the receipt and the tickets stay and the buttons go.
    await page.emulateMedia({ media: 'print' });
    assert.equal(await receipt.getByRole('button', { name: 'Print' }).isVisible(), false);
    assert.equal(await receipt.getByText('Order number').isVisible(), true);
    await page.emulateMedia({ media: 'screen' });
    // Each ticket shows the number door staff can type.
    await page.locator('.ticket .short-code').first().waitFor();
    assert.match(await page.locator('.ticket .short-code').first().innerText(), /^[0-9A-F]{5}-[0-9A-F]{5}-[12]$/);
    await page.screenshot({ path: `${shots}/order-${name}.png`, fullPage: true });
    await checkAccessibility(page, 'the order page');
    await page.goto(`${base}${await page.getByRole('link', { name: 'Open this ticket on its own' }).first().getAttribute('href')}`);
    await page.getByRole('status').waitFor();
    // The ticket page: the cinema, the film, its local time, the seat, the
    // number to type at the door, and the way back to the order.
    await page.getByRole('banner').getByText('Showtime Cinema').waitFor();
    await page.getByRole('heading', { name: 'Paris, Texas' }).waitFor();
    await page.getByText(/(19:30|07:30 PM) GMT/).first().waitFor();
    assert.match(await page.locator('.short-code').innerText(), /^[0-9A-F]{5}-[0-9A-F]{5}-[12]$/);
    await page.getByRole('link', { name: 'Your order and receipt' }).waitFor();
    await page.screenshot({ path: `${shots}/ticket-${name}.png`, fullPage: true });
    await checkAccessibility(page, 'the ticket page');
    await context.close();
  }
  // A buyer who lost the links asks for them by e-mail; the answer says
  // nothing about whether the address bought (the test checks the mail).
  const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
  const page = await context.newPage();
  await page.goto(`${base}/orders/find`);
  await page.getByRole('banner').getByText('Showtime Cinema').waitFor();
  await page.getByLabel('E-mail address').fill('ana@example.com');
  await page.getByRole('button', { name: 'Send me my order links' }).click();
  await page.getByRole('status').filter({ hasText: 'If that address has orders with us' }).waitFor();
  await page.screenshot({ path: `${shots}/find-orders-phone.png`, fullPage: true });
  await checkAccessibility(page, 'the find-your-order page');
  await context.close();
  // The same page at desktop width, before anything is asked.
  const wide = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const widePage = await wide.newPage();
  await widePage.goto(`${base}/orders/find`);
  await widePage.getByLabel('E-mail address').waitFor();
  await widePage.screenshot({ path: `${shots}/find-orders-desktop.png`, fullPage: true });
  await wide.close();
  console.log('1 passed, 0 failed');
} finally {
  await browser.close();
}
