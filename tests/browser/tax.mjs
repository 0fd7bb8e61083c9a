// Sales tax added on top (8.75 %) at a family showing: the buyer is told
// on the listing and before choosing that tax is added, sees the held
// seats' total with its tax, pays it, and the order page's receipt shows
// each ticket's net, tax and price with the order's in all; at the box office staff are told
// the tax comes on top and, once sold, what to take.
// Run by tests/e2e/tests/browser.rs with ADMIN_TOKEN.
import { checkAccessibility, expectOrderPage, fillTestCard, launch, newPage, staffPage } from './lib.mjs';

const base = process.env.BASE_URL;
const sid = process.env.SHOWING_ID;

const browser = await launch();
try {
  const { context, page } = await newPage(browser);
  await page.goto(`${base}/`);
  await page.getByText('8.75 % Sales tax is added to every price.').waitFor();
  await page.goto(`${base}/showings/${sid}`);
  await page.getByText(/Adult \$12\.00, Child \$8\.00 \(plus 8\.75\s% Sales tax\)$/).waitFor();
  await page.getByRole('button', { name: 'Seat A1, available' }).click();
  await page.getByRole('button', { name: 'Seat A2, available' }).click();
  await page.getByLabel('Ticket for seat A2').selectOption('child');
  await page.getByText('Total: $20.00 plus Sales tax').waitFor();
  await page.getByRole('button', { name: 'Hold these seats' }).click();
  // 8.75 % of 20.00 is 1.75, shared 1.05 and 0.70.
  await page.getByText('Total: $21.75 ($20.00 + $1.75 Sales tax) (A1 Adult $13.05, A2 Child $8.70)').waitFor();
  await fillTestCard(page);
  await page.getByRole('button', { name: 'Pay now' }).click();
  await expectOrderPage(page);
  await page.getByText('$21.75 ($20.00 + $1.75 Sales tax)').waitFor();
  const receipt = page.locator('#receipt-lines');
  await receipt.getByRole('columnheader', { name: 'Sales tax 8.75 % added' }).waitFor();
  await receipt.getByRole('row', { name: /A1 Adult \$12\.00 \$1\.05 \$13\.05/ }).waitFor();
  await receipt.getByRole('row', { name: /A2 Child \$8\.00 \$0\.70 \$8\.70/ }).waitFor();
  await receipt.getByRole('row', { name: 'Total $20.00 $1.75 $21.75' }).waitFor();
  await checkAccessibility(page, 'a receipt with tax');
  await context.close();

  const { context: staffContext, page: staff } = await staffPage(browser, base);
  await staff.goto(`${base}/admin/showings/${sid}`);
  await staff.getByRole('button', { name: 'Seat A5, available' }).click();
  await staff.getByText('To take: $12.00 plus Sales tax, worked out on selling').waitFor();
  await staff.getByLabel('Cash').check();
  await staff.getByRole('button', { name: 'Sell' }).click();
  await staff.getByText('Sold: A5. Take $13.05 ($12.00 + $1.05 Sales tax).').waitFor();
  await staffContext.close();
  console.log('1 passed, 0 failed');
} finally {
  await browser.close();
}
