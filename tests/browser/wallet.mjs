// Wallets: where the SDK stand-in offers Google Pay (as Square's SDK does
// in Chromium) its button shows beside the card form; Apple Pay, which
// needs Safari, does not. A closed sheet charges nothing; a paid one goes
// through the same checkout as a card, its buyer verified first (the
// cinema is in the UK). Run by tests/e2e/tests/browser.rs, whose showing
// costs £12.00.
import assert from 'node:assert/strict';
import { checkAccessibility, holdSeat, launch } from './lib.mjs';

const base = process.env.BASE_URL;
const sid = process.env.SHOWING_ID;
const shots = process.env.SCREENSHOT_DIR;

const browser = await launch();
try {
  const { context, page } = await holdSeat(browser, base, sid, 'A8');
  const googlePay = page.getByRole('button', { name: 'Pay with Google Pay' });
  await googlePay.waitFor();
  assert.equal(await page.getByRole('button', { name: 'Pay with Apple Pay' }).isVisible(), false, 'no Apple Pay outside Safari');
  await page.screenshot({ path: `${shots}/wallets-phone.png`, fullPage: true });
  await checkAccessibility(page, 'the payment form with a wallet');

  // The tickets go to the buyer's address, so it comes first.
  await googlePay.click();
  await page.getByRole('alert').filter({ hasText: 'Give your name: the tickets are booked under it.' }).waitFor();
  await page.getByLabel('Name').fill('Ana Lima');
  await page.getByLabel('E-mail').fill('ana@example.com');

  await googlePay.click();
  const sheet = page.getByRole('dialog', { name: 'Google Pay' });
  await sheet.getByText(/^Showtime Cinema: 12\.00 GBP/).waitFor();
  await sheet.getByRole('button', { name: 'Cancel' }).click();
  await page.getByRole('status').filter({ hasText: 'Payment cancelled: nothing was charged' }).waitFor();

  await googlePay.click();
  await page.getByRole('dialog', { name: 'Google Pay' }).getByRole('button', { name: 'Pay' }).click();
  await page.waitForURL(/\/orders\//);
  await page.getByText('Paid. Show a ticket at the door.').waitFor();
  await context.close();
  console.log('1 passed, 0 failed');
} finally {
  await browser.close();
}
