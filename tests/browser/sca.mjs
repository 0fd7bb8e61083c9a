// Buyer verification (3-D Secure) with Square's sandbox SCA cards, as the
// SDK stand-in runs it: a challenge card pays once its code is typed; a
// cancelled challenge is a clear message, charges nothing and keeps the
// seats, and the same buyer then pays with a card verified without a
// challenge. Run by tests/e2e/tests/browser.rs, which counts the
// authorizations.
import assert from 'node:assert/strict';
import { checkAccessibility, fillTestCard, holdSeat, launch } from './lib.mjs';

const base = process.env.BASE_URL;
const sid = process.env.SHOWING_ID;
const shots = process.env.SCREENSHOT_DIR;

async function holdAndFill(browser, seat, number) {
  const { context, page } = await holdSeat(browser, base, sid, seat);
  await fillTestCard(page);
  await page.getByLabel('Card number').fill(number);
  return { context, page };
}

const browser = await launch();
try {
  // A challenge: the bank's code is typed in Square's frame.
  const first = await holdAndFill(browser, 'A5', '5248 4800 0021 0026');
  await first.page.getByRole('button', { name: 'Pay now' }).click();
  const dialog = first.page.getByRole('dialog', { name: 'Verify this payment' });
  await dialog.waitFor();
  await first.page.screenshot({ path: `${shots}/sca-challenge-phone.png`, fullPage: true });
  await dialog.getByLabel('Verification code').fill('123456');
  await dialog.getByRole('button', { name: 'Verify' }).click();
  await first.page.waitForURL(/\/orders\//, { timeout: 30000 });
  await first.page.getByText('Paid. Show a ticket at the door.').waitFor();
  await first.context.close();

  // A cancelled challenge: nothing is paid, the seats stay held.
  const second = await holdAndFill(browser, 'A6', '5248 4800 0021 0026');
  await second.page.getByRole('button', { name: 'Pay now' }).click();
  await second.page.getByRole('dialog', { name: 'Verify this payment' }).getByRole('button', { name: 'Cancel verification' }).click();
  await second.page.getByRole('alert').filter({ hasText: 'The check by your bank was cancelled' }).waitFor();
  await checkAccessibility(second.page, 'a cancelled verification');
  await second.page.getByRole('timer').waitFor();
  assert.equal(await second.page.getByRole('button', { name: 'Seat A6, chosen by you' }).count(), 1);
  // The same buyer pays with a card verified without a challenge.
  await second.page.getByLabel('Card number').fill('4800 0000 0000 0004');
  await second.page.getByRole('button', { name: 'Pay now' }).click();
  await second.page.waitForURL(/\/orders\//, { timeout: 30000 });
  await second.page.getByText('Paid. Show a ticket at the door.').waitFor();
  assert.equal(await second.page.getByRole('dialog').count(), 0, 'no challenge for that card');
  await second.context.close();
  console.log('1 passed, 0 failed');
} finally {
  await browser.close();
}
