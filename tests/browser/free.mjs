// A free screening: the page says so, holding a seat asks for a name and
// an e-mail but no card, and "Get tickets" leads to the tickets. Run by
// tests/e2e/tests/browser.rs.
import assert from 'node:assert/strict';
import { checkAccessibility, expectOrderPage, launch, newPage } from './lib.mjs';

const base = process.env.BASE_URL;
const sid = process.env.SHOWING_ID;

const browser = await launch();
try {
  const { context, page } = await newPage(browser);
  await page.goto(`${base}/showings/${sid}`);
  await page.getByText(/· Free$/).waitFor();
  await page.getByRole('button', { name: 'Seat A3, available' }).click();
  await page.getByRole('button', { name: 'Hold these seats' }).click();
  await page.getByRole('heading', { name: 'Your details' }).waitFor();
  assert.equal(await page.locator('#card-container').isVisible(), false, 'no card form');
  await checkAccessibility(page, 'free tickets form');
  await page.getByLabel('Name').fill('Kit Lee');
  await page.getByLabel('E-mail').fill('kit@example.com');
  await page.getByRole('button', { name: 'Get tickets' }).click();
  await expectOrderPage(page);
  await page.getByRole('heading', { name: 'Seat A3' }).waitFor();
  await context.close();
  console.log('1 passed, 0 failed');
} finally {
  await browser.close();
}
