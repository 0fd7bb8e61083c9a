// A buyer opens the waiting list offer they were mailed at phone width:
// the page says seats are held for them, holds them as theirs when they
// choose to buy, and they pay as for any hold. Run by
// tests/e2e/tests/browser.rs with OFFER_PATH (the link's path and query).
import { checkAccessibility, expectOrderPage, fillTestCard, launch, newPage } from './lib.mjs';

const base = process.env.BASE_URL;

const browser = await launch();
try {
  const { context, page } = await newPage(browser);
  await page.goto(`${base}${process.env.OFFER_PATH}`);
  await page.getByRole('heading', { name: 'Seats held for you' }).waitFor();
  await checkAccessibility(page, 'the waiting list offer');
  await page.screenshot({ path: `${process.env.SCREENSHOT_DIR}/waitlist-offer-phone.png`, fullPage: true });
  await page.getByRole('button', { name: 'Buy these seats' }).click();
  await page.getByText('Held for you: A1.').waitFor();
  await page.getByRole('timer').waitFor();
  await fillTestCard(page);
  await page.getByRole('button', { name: 'Pay now' }).click();
  await expectOrderPage(page);
  await page.getByText('Paid. Show a ticket at the door.').waitFor();
  await context.close();
  console.log('1 passed, 0 failed');
} finally {
  await browser.close();
}
