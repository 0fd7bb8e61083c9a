// A cinema whose Square location takes yen, which has no minor unit: a
// showing priced 1500 (in yen) reads ¥1,500 on the listing, the seat map,
// the payment form and the staff pages, and its editor shows 1500. Run by
// tests/e2e/tests/browser.rs with ADMIN_TOKEN.
import { checkAccessibility, launch, newPage, staffPage } from './lib.mjs';

const base = process.env.BASE_URL;
const sid = process.env.SHOWING_ID;

const browser = await launch();
try {
  const { context, page } = await newPage(browser);
  await page.goto(`${base}/`);
  await page.getByText(/· ¥1,500 ·/).first().waitFor();
  await page.goto(`${base}/showings/${sid}`);
  await page.getByText(/· ¥1,500 a seat$/).waitFor();
  await page.getByRole('button', { name: 'Seat A2, available' }).click();
  await page.getByRole('button', { name: 'Seat A3, available' }).click();
  await page.getByRole('button', { name: 'Hold these seats' }).click();
  await page.getByText('Total: ¥3,000').waitFor();
  await checkAccessibility(page, 'the payment form in yen');
  await context.close();

  const { context: staffContext, page: staff } = await staffPage(browser, base);
  await staff.getByRole('cell', { name: '¥1,500' }).first().waitFor();
  await staff.goto(`${base}/admin/showings/${sid}`);
  await staff.getByText(/· ¥1,500 ·/).waitFor();
  await staff.goto(`${base}/admin/showings/${sid}/edit`);
  await staff.getByRole('heading', { name: /^Edit / }).waitFor();
  const price = await staff.getByLabel('Price of one seat').inputValue();
  if (price !== '1500') throw new Error(`the editor shows ${price}, not 1500`);
  await staffContext.close();
  console.log('1 passed, 0 failed');
} finally {
  await browser.close();
}
