// Staff add a film, then a showing of it whose seats include a wheelchair
// space sold at the box office, and save those seats as a screen; the
// listing shows the film with its details, and a buyer's map marks the
// space and sends them to the box office for it. Run by
// tests/e2e/tests/browser.rs with ADMIN_TOKEN.
import assert from 'node:assert/strict';
import { checkAccessibility, launch, newPage, staffPage } from './lib.mjs';

const base = process.env.BASE_URL;

const browser = await launch();
try {
  const { context: staffContext, page: staff } = await staffPage(browser, base);
  await staff.getByLabel('Title', { exact: true }).fill('Stalker');
  await staff.getByLabel('Runtime (minutes)').fill('161');
  await staff.getByLabel('Rating or certificate').fill('PG');
  await staff.getByLabel('Synopsis').fill('A guide leads two men into the Zone.');
  await staff.getByRole('button', { name: 'Add film' }).click();
  await staff.getByText('Stalker saved.').waitFor();
  await staff.getByRole('cell', { name: '161 min' }).waitFor();

  await staff.goto(`${base}/admin/showings/new`);
  await staff.getByRole('heading', { name: 'New showing' }).waitFor();
  await staff.getByLabel('Film (optional)').selectOption({ label: 'Stalker' });
  assert.equal(await staff.getByLabel('Title', { exact: true }).inputValue(), 'Stalker');
  await staff.getByLabel("Starts (the cinema's local time, Europe/London)").fill('2099-06-01T20:00');
  await staff.getByLabel('Price of one seat').fill('10.00');
  await staff.getByLabel('Row 1 wheelchair spaces').fill('1');
  await staff.getByLabel('Row 1 companion seats').fill('2');
  await staff.getByLabel('Sell wheelchair spaces and companion seats only at the box office').check();
  await staff.getByLabel(/^Best seat/).fill('A5');
  staff.once('dialog', (dialog) => dialog.accept('Screen 1'));
  await staff.getByRole('button', { name: 'Save these seats as a screen' }).click();
  await staff.getByText('Saved as Screen 1').waitFor();
  assert.equal(await staff.locator('#screen option:checked').textContent(), 'Screen 1');
  await checkAccessibility(staff, 'the editor with a film and a screen');
  await staff.getByRole('button', { name: 'Create showing' }).click();
  await staff.getByRole('heading', { name: 'Stalker' }).waitFor();
  await staff.getByRole('button', { name: /^Seat A1, wheelchair space, available/ }).waitFor();
  await staffContext.close();

  const { context, page } = await newPage(browser);
  await page.goto(`${base}/`);
  await page.getByRole('heading', { name: 'Stalker' }).waitFor();
  await page.getByText('PG · 161 min').waitFor();
  await page.getByText('A guide leads two men into the Zone.').waitFor();
  await checkAccessibility(page, 'the listing by film');
  await page.getByRole('link', { name: /^Stalker, / }).click();
  await page.getByRole('button', { name: 'Seat A1, wheelchair space, sold at the box office' }).click();
  await page.getByText('the cinema sells these at its box office').waitFor();
  await page.getByRole('button', { name: 'Seat A2, companion seat, sold at the box office' }).waitFor();
  await context.close();
  console.log('1 passed, 0 failed');
} finally {
  await browser.close();
}
