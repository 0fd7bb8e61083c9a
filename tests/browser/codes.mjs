// Staff define discount codes on the admin home, on a phone: a percentage
// with a limit of uses, and a fixed amount off the order in the cinema's
// currency (dollars: the stand-in's location), pause one and resume it.
// Run by tests/e2e/tests/browser.rs with BASE_URL, ADMIN_TOKEN and
// SCREENSHOT_DIR, after checklist.mjs on the same stack.
import assert from 'node:assert/strict';
import { checkAccessibility, launch, staffHome } from './lib.mjs';

const base = process.env.BASE_URL;
const shots = process.env.SCREENSHOT_DIR;

const browser = await launch();
try {
  const { page } = await staffHome(browser, base);
  const section = page.getByRole('region', { name: 'Discount codes' });
  await section.getByText('No codes yet.').waitFor();

  await section.getByLabel(/^Code/).fill('premiere');
  await section.getByLabel('Percentage, or amount').fill('20');
  await section.getByLabel('Uses in all (optional)').fill('50');
  await section.getByLabel('Uses by one buyer (optional)').fill('2');
  await section.getByRole('button', { name: 'Add code' }).click();
  await section.getByRole('status').filter({ hasText: 'PREMIERE saved.' }).waitFor();
  await section.getByRole('row', { name: 'PREMIERE 20 % of each ticket at most 50, 2 a buyer On' }).waitFor();

  await section.getByLabel(/^Code/).fill('FIVER');
  await section.getByLabel('Takes off').selectOption('order');
  await section.getByLabel('Percentage, or amount').fill('5.00');
  await section.getByRole('button', { name: 'Add code' }).click();
  await section.getByRole('row', { name: /^FIVER \$5\.00 off the order no limit On/ }).waitFor();

  // The same code again, in another case, is refused with the reason.
  await section.getByLabel(/^Code/).fill('Premiere');
  await section.getByLabel('Takes off').selectOption('percent');
  await section.getByLabel('Percentage, or amount').fill('10');
  await section.getByRole('button', { name: 'Add code' }).click();
  await section.getByRole('alert').filter({ hasText: 'PREMIERE is a code already' }).waitFor();

  await section.getByRole('button', { name: 'Pause PREMIERE' }).click();
  await section.getByRole('row', { name: /^PREMIERE .* Paused/ }).waitFor();
  await section.getByRole('button', { name: 'Resume PREMIERE' }).click();
  await section.getByRole('row', { name: /^PREMIERE .* On/ }).waitFor();

  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `the page is ${overflow}px wider than the phone`);
  await checkAccessibility(page, 'the admin home with discount codes');
  await section.screenshot({ path: `${shots}/admin-codes-phone.png` });
  console.log('1 passed, 0 failed');
} finally {
  await browser.close();
}
