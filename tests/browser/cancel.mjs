// A buyer on a phone cancels one of their two tickets from the order page:
// sees what each would bring back, ticks one, is asked before anything
// happens, and is told what is coming back. Run by
// tests/e2e/tests/browser.rs, which buys the tickets, sets the showing's
// policy (10% fee) and passes ORDER_PAGE.
import assert from 'node:assert/strict';
import { checkAccessibility, launch } from './lib.mjs';

const base = process.env.BASE_URL;
const orderPage = process.env.ORDER_PAGE;
const shots = process.env.SCREENSHOT_DIR;

const browser = await launch();
try {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
  const page = await context.newPage();
  page.setDefaultTimeout(15000);
  await page.goto(`${base}${orderPage}`);
  await page.getByRole('heading', { name: 'Cancel tickets' }).waitFor();
  await page.getByText('10% of each ticket is kept as a fee.', { exact: false }).waitFor();
  const first = page.getByRole('checkbox', { name: /Seat A1: \$10\.80 back/ });
  await first.waitFor();
  const start = page.getByRole('button', { name: 'Cancel selected tickets' });
  assert.equal(await start.isDisabled(), true, 'nothing chosen, nothing to cancel');
  await checkAccessibility(page, 'the order page with cancelling');

  await first.check();
  await page.getByText('You will get back $10.80.').waitFor();
  await start.click();
  await page.getByText('Cancel 1 ticket and get back $10.80?', { exact: false }).waitFor();
  // Changing one's mind changes nothing.
  await page.getByRole('button', { name: 'Keep my tickets' }).click();
  assert.equal(await page.getByRole('button', { name: 'Yes, cancel them' }).isVisible(), false);
  await start.click();
  await page.screenshot({ path: `${shots}/cancel-phone.png`, fullPage: true });
  await page.getByRole('button', { name: 'Yes, cancel them' }).click();
  await page.getByText('Cancelled. $10.80 is on its way back to your card', { exact: false }).waitFor();
  // A1 can no longer be chosen; A2 still can.
  await page.getByRole('checkbox', { name: /Seat A2: \$10\.80 back/ }).waitFor();
  assert.equal(await page.getByRole('checkbox', { name: /Seat A1/ }).count(), 0);
  await checkAccessibility(page, 'the order page after cancelling');
  console.log('cancelled one ticket of two at phone width');
} finally {
  await browser.close();
}
