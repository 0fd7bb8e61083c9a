// A buyer on a phone changes their two tickets to a dearer showing of the
// same film: chooses the tickets and the showing on the order page, two
// seats on that showing's map, is told what the seats cost against what
// the tickets were worth, pays only the difference, and lands on the new
// order; the old order then says its tickets were changed. Run by
// tests/e2e/tests/browser.rs, which buys the tickets, sets the showing's
// policy and passes ORDER_PAGE and NEW_SHOWING_ID.
import assert from 'node:assert/strict';
import { checkAccessibility, expectOrderPage, launch, newPage } from './lib.mjs';

const base = process.env.BASE_URL;
const orderPage = process.env.ORDER_PAGE;
const newShowing = process.env.NEW_SHOWING_ID;
const shots = process.env.SCREENSHOT_DIR;

const browser = await launch();
try {
  const { page } = await newPage(browser);
  await page.goto(`${base}${orderPage}`);
  const box = page.getByRole('region', { name: 'Change showing' });
  await box.getByText('You pay only what the new seats cost beyond your tickets', { exact: false }).waitFor();
  await box.getByRole('checkbox', { name: /Seat A1 \(\$12\.00\)/ }).waitFor();
  assert.equal(await box.getByRole('radio').count(), 1, 'one other showing of the film');
  await checkAccessibility(page, 'the order page with changing showing');
  await box.getByRole('button', { name: 'Choose new seats' }).click();

  await page.waitForURL(new RegExp(`/showings/${newShowing}\\?exchange=`));
  await page.getByText('Changing 2 tickets worth $24.00: choose 2 seats', { exact: false }).waitFor();
  for (const seat of ['B1', 'B2']) await page.getByRole('button', { name: `Seat ${seat}, available` }).click();
  // A third seat is more than the tickets being changed.
  await page.getByRole('button', { name: 'Seat B3, available' }).click();
  await page.getByText('You are changing 2 tickets: choose 2 seats.').waitFor();
  await page.getByRole('button', { name: 'Hold these seats' }).click();
  await page.getByRole('timer').waitFor();
  await page.getByText('These seats: $30.00. Your tickets were worth $24.00. To pay now: $6.00.').waitFor();
  assert.equal(await page.getByLabel('E-mail').isVisible(), false, 'the tickets go to the order\'s own address');
  await page.getByLabel('Card number').fill('4111 1111 1111 1111');
  await page.getByLabel('Expiry (MM/YY)').fill('12/30');
  await page.getByLabel('CVV').fill('123');
  await page.getByLabel('Postal code').fill('94103');
  await page.screenshot({ path: `${shots}/exchange-phone.png`, fullPage: true });
  await checkAccessibility(page, 'changing to new seats');
  await page.getByRole('button', { name: 'Pay $6.00 and change' }).click();

  await expectOrderPage(page);
  await page.getByText('Paid. Show a ticket at the door.').waitFor();
  for (const seat of ['B1', 'B2']) await page.getByRole('heading', { name: `Seat ${seat}` }).waitFor();
  // The receipt says what the old tickets paid of the new order's $30.00.
  const paidBy = page.getByRole('region', { name: 'Receipt' });
  await paidBy.getByText('Paid by your exchanged tickets', { exact: true }).waitFor();
  await paidBy.getByText('$24.00', { exact: true }).waitFor();

  await page.goto(`${base}${orderPage}`);
  await page.getByText('These tickets were changed to another showing and are void.', { exact: false }).waitFor();
  const receipt = page.getByRole('region', { name: 'Receipt' });
  await receipt.getByRole('row', { name: /^A1 Standard \$12\.00 Void \(changed to another showing\)$/ }).waitFor();
  assert.equal(await page.getByRole('region', { name: 'Change showing' }).isVisible(), false);
  await checkAccessibility(page, 'the order page after changing showing');
  console.log('changed two tickets to a dearer showing at phone width, paying the difference');
} finally {
  await browser.close();
}
