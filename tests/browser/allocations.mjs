// Staff at the admin seat map sell general admission places by count and
// keep seats for another channel: the seats show as kept, the channel's
// tickets are issued from them, the totals count them apart, and a release
// puts the rest back on sale. Run by tests/e2e/tests/browser.rs with
// ADMIN_TOKEN and SHOWING_ID (row A of 8 seats and a Floor of 5).
import { checkAccessibility, launch, staffPage } from './lib.mjs';

const base = process.env.BASE_URL;
const sid = process.env.SHOWING_ID;

const browser = await launch();
try {
  const { context, page } = await staffPage(browser, base);
  await page.goto(`${base}/admin/showings/${sid}`);

  // Two standing places, sold for cash.
  await page.getByText('Floor: 5 of 5 places left').waitFor();
  await page.getByLabel('Places').fill('2');
  await page.getByRole('button', { name: 'Add places to the sale' }).click();
  await page.getByText('In the sale: 2 × Floor (general admission).').waitFor();
  await page.getByRole('heading', { name: 'Box office' }).waitFor();
  await page.getByText('To take: $24.00').waitFor();
  await page.getByLabel('Cash').check();
  await page.getByRole('button', { name: 'Sell' }).click();
  await page.getByText('Sold: 2 × Floor (general admission).').waitFor();
  await page.getByText('Floor: 3 of 5 places left').waitFor();

  // A1 and A2 kept for a school, one ticket issued for it, then released.
  // Each seat is seen chosen before the next is clicked, as staff see it.
  await page.getByRole('button', { name: 'Seat A1, available' }).click();
  await page.getByRole('button', { name: 'Seat A1, chosen for the box office' }).waitFor();
  await page.getByRole('button', { name: 'Seat A2, available' }).click();
  await page.getByRole('button', { name: 'Seat A2, chosen for the box office' }).waitFor();
  await page.getByLabel('Channel').fill('Lincoln School');
  await page.getByLabel('Back on sale at').fill('2099-12-01T18:00');
  await page.getByRole('button', { name: 'Keep the chosen seats for this channel' }).click();
  await page.getByText(/^Kept for Lincoln School: A1, A2, until /).waitFor();
  await page.getByText(/^Lincoln School: A1, A2 · back on sale at /).waitFor();
  await page.getByRole('button', { name: 'Seat A1, kept for Lincoln School' }).waitFor();
  await checkAccessibility(page, 'allocations');
  await page.getByLabel('Tickets to issue for Lincoln School').fill('1');
  await page.getByRole('button', { name: 'Issue tickets' }).click();
  await page.getByText('Issued for Lincoln School: A1.').waitFor();
  await page.getByText('other channels: tickets').waitFor();
  await page.getByText(/^Lincoln School: A2 · back on sale at /).waitFor();
  await page.getByRole('button', { name: "Release Lincoln School's seats now" }).click();
  await page.getByText("Lincoln School's seats are back on sale.").waitFor();
  await page.getByRole('button', { name: 'Seat A2, available' }).waitFor();
  await context.close();
  console.log('1 passed, 0 failed');
} finally {
  await browser.close();
}
