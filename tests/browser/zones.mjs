// General admission on the buyer's page, at phone width: a zone shows its
// places left beside the map and holds a count of them, which the page
// names by zone and no seat; a showing of zones only shows no map. Run by
// tests/e2e/tests/browser.rs with SHOWING_ID (row A of 8 seats and a
// standing Floor of 3) and ZONES_ONLY_ID (a class of 20 places).
import assert from 'node:assert/strict';
import { checkAccessibility, launch, newPage } from './lib.mjs';

const base = process.env.BASE_URL;
const sid = process.env.SHOWING_ID;

const browser = await launch();
try {
  const { page } = await newPage(browser);
  await page.goto(`${base}/showings/${sid}`);
  await page.getByRole('heading', { name: 'Floor · general admission' }).waitFor();
  await page.getByText('3 of 3 places left').waitFor();
  await page.getByText('8 of 8 seats left').waitFor();
  await checkAccessibility(page, 'a zone beside the map');
  await page.getByLabel('Places').selectOption('2');
  await page.getByRole('button', { name: 'Hold places in Floor' }).click();
  await page.getByText('Held: 2 × Floor (general admission).').waitFor();
  // The map pushed back to the page counts the places this hold took.
  await page.getByText('1 of 3 places left').waitFor();
  assert.ok(await page.getByRole('button', { name: 'Hold places in Floor' }).isDisabled(), 'one hold at a time');
  await page.getByRole('button', { name: 'Release seats' }).click();
  await page.getByText('Seats released.').waitFor();
  await page.getByText('3 of 3 places left').waitFor();

  // More than are left: the page says how many are.
  await page.getByLabel('Places').selectOption('4');
  await page.getByRole('button', { name: 'Hold places in Floor' }).click();
  await page.getByText('Only 3 places are left in Floor: choose fewer.').waitFor();

  const { page: only } = await newPage(browser);
  await only.goto(`${base}/showings/${process.env.ZONES_ONLY_ID}`);
  await only.getByRole('heading', { name: 'Class · general admission' }).waitFor();
  await only.getByText('20 of 20 places left').waitFor();
  assert.ok(await only.locator('#map-section').isHidden(), 'no seat map for a showing without seats');
  assert.ok(await only.getByRole('button', { name: 'Hold these seats' }).isHidden());
  await checkAccessibility(only, 'a showing of zones only');
} finally {
  await browser.close();
}
