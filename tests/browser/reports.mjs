// Staff read the reports on a phone: the week of the showing (its
// distributor return, its occupancy chart, its sales over time) and this
// week (the day's sales as a bar chart, the daily summary against
// Square), then settle on the admin home what the check before the
// showing found (a stray ticket for A8). Every chart is an image with a
// name and its numbers in a table.
// Run by tests/e2e/tests/browser.rs after tax.mjs on the same stack, with
// BASE_URL, SHOWING_ID (its showing, starting 2099-12-05, 8 seats, three
// of them sold today: two online for $21.75, one at the box office for
// $13.05, all at 8.75 % sales tax), ADMIN_TOKEN and SCREENSHOT_DIR.
import assert from 'node:assert/strict';
import { checkAccessibility, launch, newPage } from './lib.mjs';

const base = process.env.BASE_URL;
const shots = process.env.SCREENSHOT_DIR;

const browser = await launch();
try {
  const { page } = await newPage(browser);
  const reports = '/admin/reports?week=2099-12-05';
  await page.goto(`${base}/admin?next=${encodeURIComponent(reports)}`);
  await page.getByLabel('Admin token').fill(process.env.ADMIN_TOKEN);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`**${reports}`);
  // The showing's week: its return, and its occupancy as a chart.
  await page.getByText('The cinema week from 2099-12-04 to 2099-12-10.').waitFor();
  // The day shown is the cinema's today: the page fills both dates once
  // the session is confirmed, before it loads the week just awaited.
  const today = await page.getByLabel('Day', { exact: true }).inputValue();
  assert.match(today, /^\d{4}-\d{2}-\d{2}$/);
  const returned = page.locator('#return table');
  await returned.getByRole('row', { name: /Total 3 \$34\.80 \$2\.80 \$32\.00/ }).waitFor();
  const occupancy = page.getByRole('img', { name: /Occupancy of the week's showings/ });
  await occupancy.waitFor();
  assert.equal(await page.locator('#occupancy .chart-bar').count(), 1);
  await page.locator('#occupancy table').getByRole('row', { name: /3 8 38%/ }).waitFor();
  assert.equal(await page.locator('#occupancy .chart-bar').getAttribute('data-value'), '37.5');

  // Its sales over time: a step a sale, against its 8 seats.
  const curve = page.getByRole('img', { name: /Sales over time: My Neighbour Totoro/ });
  await curve.waitFor();
  assert.match(await page.locator('#curve desc').textContent(), /^3 of 8 seats sold/);
  assert.equal(await page.locator('#curve .chart-line').getAttribute('data-points'), '2');

  // The daily summary: Square lists what the sales report counts.
  await page.locator('#daily').getByText('Square agrees to the minor unit.').waitFor();
  await page.locator('#daily table').getByRole('row', { name: 'Captured through Square $21.75 $21.75' }).waitFor();

  // Nothing is wider than the phone.
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `the page is ${overflow}px wider than the phone`);
  await checkAccessibility(page, 'the reports of a week');
  await page.screenshot({ path: `${shots}/reports-phone.png`, fullPage: true });

  // This week: today's three tickets as a bar of the days chart.
  await page.getByLabel('A day of the cinema week').fill(today);
  await page.getByRole('button', { name: 'Show the week' }).click();
  const days = page.getByRole('img', { name: 'Tickets sold each day' });
  await days.waitFor();
  await page.locator('#days table').getByRole('row', { name: new RegExp(`^${today} 3 \\$34\\.80`) }).waitFor();
  const values = await page.locator('#days .chart-bar').evaluateAll((bars) => bars.map((b) => b.getAttribute('data-value')));
  assert.equal(values.length, 7, 'a bar a day of the week');
  assert.deepEqual(values.filter((v) => v !== '0'), ['3']);
  await page.locator('#channels table').first().getByRole('row', { name: /online 2/ }).waitFor();

  // What the check before the showing left for staff waits on the admin
  // home, and is settled there with a note.
  await page.goto(`${base}/admin`);
  const found = page.getByRole('row', { name: /Found before the showing/ });
  await found.getByText(/seat_lost_by_object A8/).waitFor();
  await page.screenshot({ path: `${shots}/admin-home-found-phone.png`, fullPage: true });
  await found.getByRole('button', { name: 'Mark handled… A8' }).click();
  await page.getByLabel('What was done for A8').fill('Voided the stray ticket');
  await found.getByRole('button', { name: 'Save' }).click();
  await page.getByText('A8 marked handled.').waitFor();
  await page.getByRole('row', { name: /Found before the showing/ }).waitFor({ state: 'detached' });
} finally {
  await browser.close();
}
