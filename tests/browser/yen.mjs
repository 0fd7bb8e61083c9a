// A cinema whose Square location takes yen, which has no minor unit: a
// showing priced 1500 (in yen) reads ¥1,500 on the listing, the seat map
// and the payment form. Run by tests/e2e/tests/browser.rs.
import { checkAccessibility, launch } from './lib.mjs';

const base = process.env.BASE_URL;
const sid = process.env.SHOWING_ID;

const browser = await launch();
try {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, locale: 'en-US' });
  const page = await context.newPage();
  page.setDefaultTimeout(15000);
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
  console.log('1 passed, 0 failed');
} finally {
  await browser.close();
}
