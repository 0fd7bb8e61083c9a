// Staff sell a seat at the box office from the admin seat map: choose it,
// take cash, and the ticket is there to show or print; best available
// then preselects two seats to adjust. Run by
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
  // Best available preselects seats on the map; staff adjust, then clear.
  await page.getByLabel('Best seats for').fill('2');
  await page.getByRole('button', { name: 'Choose the best seats' }).click();
  await page.getByText('Chosen: A3, A4. Change them on the map, or sell.').waitFor();
  await page.getByRole('button', { name: 'Seat A4, chosen for the box office' }).click();
  await page.getByText('Seats: A3', { exact: true }).waitFor();
  await page.getByRole('button', { name: 'Clear seats' }).click();
  await context.close();
  console.log('1 passed, 0 failed');
} finally {
  await browser.close();
}
