// Best available and the single-seat rule on the buyer's page, at phone
// width: a choice that would leave a seat on its own marks that seat and
// keeps Hold off until the choice changes; "Find the best seats" holds the
// best seats together, priced as counted. Run by tests/e2e/tests/browser.rs
// with SHOWING_ID (rows A to C of 8 seats, an adult and a child price).
import assert from 'node:assert/strict';
import { checkAccessibility, launch, newPage } from './lib.mjs';

const base = process.env.BASE_URL;
const sid = process.env.SHOWING_ID;

const browser = await launch();
try {
  const { page } = await newPage(browser);
  await page.goto(`${base}/showings/${sid}`);
  await page.getByRole('button', { name: 'Seat A2, available' }).click();
  // A1 would be left alone between the row's end and A2.
  await page.getByRole('button', { name: 'Seat A1, available, would be left on its own' }).waitFor();
  await page.getByText('These seats would leave seat A1 on its own').waitFor();
  assert.ok(await page.getByRole('button', { name: 'Hold these seats' }).isDisabled(), 'Hold waits for a choice that strands nobody');
  await checkAccessibility(page, 'a choice that leaves a seat alone');
  await page.getByRole('button', { name: 'Seat A1, available' }).click();
  await page.getByRole('button', { name: 'Seat A1, chosen by you' }).waitFor();
  assert.equal(await page.getByText('would leave seat').count(), 0, 'the warning goes with the stranded seat');
  assert.ok(await page.getByRole('button', { name: 'Hold these seats' }).isEnabled());
  for (const seat of ['A1', 'A2']) await page.getByRole('button', { name: `Seat ${seat}, chosen by you` }).click();

  // Two adults and a child: the best three together, the child's ticket
  // first.
  await page.getByRole('heading', { name: 'Best seats for you' }).waitFor();
  await page.getByLabel('Adult').selectOption('2');
  await page.getByLabel('Child').selectOption('1');
  await checkAccessibility(page, 'best seats for you');
  await page.getByRole('button', { name: 'Find the best seats' }).click();
  await page.getByText('Held: B3, B4, B5.').waitFor();
  await page.getByText(/B3 Child \$8\.00, B4 Adult \$12\.00, B5 Adult \$12\.00/).waitFor();
  assert.ok(await page.locator('#best').isHidden(), 'best available is offered again only once the hold ends');
  await page.getByRole('button', { name: 'Release seats' }).click();
  await page.getByText('Seats released.').waitFor();
  assert.ok(await page.locator('#best').isVisible());
} finally {
  await browser.close();
}
