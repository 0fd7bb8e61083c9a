// Staff sell a seat at the box office from the admin seat map: choose it,
// take cash, and the ticket is there to show or print. Run by
// tests/e2e/tests/browser.rs with ADMIN_TOKEN.
import { checkAccessibility, launch, staffPage } from './lib.mjs';

const base = process.env.BASE_URL;
const sid = process.env.SHOWING_ID;

const browser = await launch();
try {
  const { context, page } = await staffPage(browser, base);
  await page.goto(`${base}/admin/showings/${sid}`);
  await page.getByRole('button', { name: 'Seat A5, available' }).click();
  await page.getByRole('heading', { name: 'Box office' }).waitFor();
  await page.getByText('To take: $12.00').waitFor();
  await page.getByLabel('Price for seat A5').selectOption('child');
  await page.getByText('To take: $8.00').waitFor();
  await page.getByLabel('Cash').check();
  await page.getByLabel("Guest's name (optional)").fill('Walk-in');
  await checkAccessibility(page, 'the box office');
  await page.getByRole('button', { name: 'Sell' }).click();
  await page.getByText('Sold: A5.').waitFor();
  await page.getByRole('link', { name: 'Seat A5 · Child' }).waitFor();
  await page.getByRole('img', { name: 'QR code of the ticket for seat A5' }).waitFor();
  await page.getByRole('button', { name: /^Seat A5, sold to Walk-in/ }).waitFor();
  await context.close();
  console.log('1 passed, 0 failed');
} finally {
  await browser.close();
}
