// Staff define discount codes on the admin home, on a phone: a percentage
// with a limit of uses, and a fixed amount off the order in the cinema's
// currency (dollars: the stand-in's location), pause one and resume it.
// Then a buyer on a phone applies the limited one on the seat page (after
// a wrong one), pays the rest and reads the discount on the receipt;
// staff see the use, refund the order giving the use back, and see it
// back. Run by tests/e2e/tests/browser.rs with BASE_URL,
// SHOWING_ID, ADMIN_TOKEN and SCREENSHOT_DIR, after checklist.mjs on the
// same stack.
import assert from 'node:assert/strict';
import { checkAccessibility, expectOrderPage, fillTestCard, holdSeat, launch, staffHome, staffPage } from './lib.mjs';

const base = process.env.BASE_URL;
const sid = process.env.SHOWING_ID;
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
  await section.getByRole('row', { name: 'PREMIERE 20 % of each ticket at most 50, 2 a buyer 0 paid, 0 on holds, 50 left On' }).waitFor();

  await section.getByLabel(/^Code/).fill('FIVER');
  await section.getByLabel('Takes off').selectOption('order');
  await section.getByLabel('Percentage, or amount').fill('5.00');
  await section.getByRole('button', { name: 'Add code' }).click();
  await section.getByRole('row', { name: /^FIVER \$5\.00 off the order no limit 0 paid On/ }).waitFor();

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

  const { context, page: buyer } = await holdSeat(browser, base, sid, 'A1');
  await buyer.getByText('Total: $12.00').waitFor();
  const message = buyer.locator('#code-message');
  await buyer.getByLabel('Discount code').fill('nope');
  await buyer.getByRole('button', { name: 'Apply' }).click();
  await message.getByText('Write your e-mail address first').waitFor();
  await buyer.getByLabel('E-mail').fill('ana@example.com');
  await buyer.getByRole('button', { name: 'Apply' }).click();
  await message.getByText('there is no such discount code').waitFor();
  await buyer.getByLabel('Discount code').fill('premiere');
  await buyer.getByRole('button', { name: 'Apply' }).click();
  await message.getByText('PREMIERE applied: $2.40 off.').waitFor();
  await buyer.getByText('Total: $9.60 ($2.40 off with PREMIERE)').waitFor();
  const wider = await buyer.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(wider <= 0, `the seat page is ${wider}px wider than the phone`);
  await checkAccessibility(buyer, 'the pay form with a discount code');
  await buyer.locator('#pay').screenshot({ path: `${shots}/seat-code-phone.png` });
  await fillTestCard(buyer);
  await buyer.getByRole('button', { name: 'Pay now' }).click();
  await expectOrderPage(buyer);
  await buyer.getByText('$2.40 off with code PREMIERE').waitFor();
  const orderId = new URL(buyer.url()).pathname.split('/')[2];
  await context.close();

  await page.reload();
  await section.getByRole('row', { name: /^PREMIERE .* 1 paid, 0 on holds, 49 left · \$2\.40 off On/ }).waitFor();

  // Staff refund the order and give its use of the code back.
  const { context: desk, page: staff } = await staffPage(browser, base);
  await staff.goto(`${base}/admin/showings/${sid}?order=${orderId}`);
  await staff.getByLabel('Give back this order\'s use of code PREMIERE').check();
  await staff.getByRole('button', { name: 'Refund whole order' }).click();
  await staff.getByRole('button', { name: /^Confirm: refund all 1 tickets? \(\$9\.60\)/ }).click();
  await staff.getByRole('status').filter({ hasText: /^Refund(ed)? / }).waitFor();
  await desk.close();
  await page.reload();
  await section.getByRole('row', { name: /^PREMIERE .* 1 paid, 0 on holds, 50 left · \$2\.40 off On/ }).waitFor();
  console.log('1 passed, 0 failed');
} finally {
  await browser.close();
}
