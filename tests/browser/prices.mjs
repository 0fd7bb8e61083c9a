// A family showing with an adult and a child price: a buyer chooses a
// price for each seat, sees the total, pays it, and the order page names
// each ticket's price; staff see the prices in the editor and add one.
// Run by tests/e2e/tests/browser.rs with ADMIN_TOKEN.
import assert from 'node:assert/strict';
import { checkAccessibility, expectOrderPage, fillTestCard, launch, newPage, staffPage } from './lib.mjs';

const base = process.env.BASE_URL;
const sid = process.env.SHOWING_ID;

const browser = await launch();
try {
  const { context, page } = await newPage(browser);
  await page.goto(`${base}/showings/${sid}`);
  await page.getByText(/Adult \$12\.00, Child \$8\.00$/).waitFor();
  await page.getByRole('button', { name: 'Seat A1, available' }).click();
  await page.getByRole('button', { name: 'Seat A2, available' }).click();
  await page.getByText('Total: $24.00').waitFor();
  await page.getByLabel('Ticket for seat A2').selectOption('child');
  await page.getByText('Total: $20.00').waitFor();
  assert.equal(await page.getByLabel('Ticket for seat A1').inputValue(), 'adult');
  await checkAccessibility(page, 'choosing a price per seat');
  await page.getByRole('button', { name: 'Hold these seats' }).click();
  await page.getByText('Total: $20.00 (A1 Adult $12.00, A2 Child $8.00)').waitFor();
  await fillTestCard(page);
  await page.getByRole('button', { name: 'Pay now' }).click();
  await expectOrderPage(page);
  await page.getByText('Child · $8.00').waitFor();
  await page.getByText('Adult · $12.00').waitFor();
  await context.close();

  const { context: staffContext, page: staff } = await staffPage(browser, base);
  await staff.goto(`${base}/admin/showings/${sid}/edit`);
  await staff.getByRole('heading', { name: /^Edit / }).waitFor();
  assert.equal(await staff.getByLabel('Name of the default price').inputValue(), 'Adult');
  assert.equal(await staff.getByLabel('Name of price 2').inputValue(), 'Child');
  assert.equal(await staff.getByLabel('Price 2', { exact: true }).inputValue(), '8.00');
  await staff.getByRole('button', { name: 'Add a price' }).click();
  await staff.getByLabel('Name of price 3').fill('Senior');
  await staff.getByLabel('Price 3', { exact: true }).fill('9.50');
  await checkAccessibility(staff, 'the editor with prices');
  await staff.getByRole('button', { name: 'Save changes' }).click();
  await staff.waitForURL(new RegExp(`/admin/showings/${sid}$`));
  await staffContext.close();
  console.log('1 passed, 0 failed');
} finally {
  await browser.close();
}
