// Staff on a phone set what buyers of a showing may cancel, on its admin
// page: until 90 minutes before the start with a 10% fee, then a fixed fee
// of 1.50 USD, then back to the cinema's default; a cut-off the server
// refuses is told under its field. After each save the policy is read back
// through the API. Run by tests/e2e/tests/browser.rs with BASE_URL,
// SHOWING_ID (a USD showing whose own policy lets buyers exchange until 60
// minutes before and not cancel), ADMIN_TOKEN and SCREENSHOT_DIR; the
// cinema's default is to cancel until 120 minutes before, keeping 5%.
import assert from 'node:assert/strict';
import { checkAccessibility, launch, newPage } from './lib.mjs';

const base = process.env.BASE_URL;
const sid = process.env.SHOWING_ID;
const shots = process.env.SCREENSHOT_DIR;
const EXCHANGE = { until_minutes_before: 60 };

const browser = await launch();
try {
  const { page } = await newPage(browser);
  await page.goto(`${base}/admin?next=${encodeURIComponent(`/admin/showings/${sid}`)}`);
  await page.getByLabel('Admin token').fill(process.env.ADMIN_TOKEN);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`**/admin/showings/${sid}`);
  const card = page.locator('#policy-form');
  const state = page.locator('#policy-state');
  await state.filter({ hasText: "Buyers may not cancel their tickets online. This is the showing's own policy." }).waitFor();

  // The staff session's cookie reads what is stored.
  async function stored() {
    const reply = await page.request.get(`${base}/api/admin/showings/${sid}/policy`);
    assert.equal(reply.status(), 200);
    return reply.json();
  }

  // A cut-off over 30 days is the server's to refuse, under its field.
  await card.getByLabel('Buyers may cancel').check();
  const until = card.getByLabel('Until how many minutes before the start');
  await until.fill('50000');
  await card.getByLabel('A percentage').check();
  await card.getByLabel("Fee, in percent of each ticket's price").fill('10');
  await card.getByRole('button', { name: 'Save' }).click();
  await page.locator('#policy-until-error').filter({ hasText: 'at most 43200 minutes' }).waitFor();
  assert.equal(await until.getAttribute('aria-invalid'), 'true');
  assert.deepEqual((await stored()).policy.cancel, null, 'nothing saved');

  await until.fill('90');
  assert.equal(await until.getAttribute('aria-invalid'), null, 'a field changed loses its error');
  await card.getByText('That is until 90 minutes (1 hour 30 min) before the start.').waitFor();
  await card.getByRole('button', { name: 'Save' }).click();
  await card.getByRole('status').filter({ hasText: "Saved. Buyers may cancel until 90 minutes (1 hour 30 min) before the start, with a fee of 10% of each ticket's price." }).waitFor();
  assert.deepEqual(await stored(), {
    policy: { cancel: { until_minutes_before: 90, fee: { percent: 10 } }, exchange: EXCHANGE },
    own: true,
  }, 'the exchange is kept as it was');

  // A fixed fee is typed in dollars and stored in cents, exactly.
  await card.getByLabel('A fixed amount').check();
  await card.getByLabel('Fee per ticket, in USD').fill('1.50');
  await card.getByRole('button', { name: 'Save' }).click();
  await card.getByRole('status').filter({ hasText: 'with a fee of $1.50 on each ticket' }).waitFor();
  assert.deepEqual((await stored()).policy, {
    cancel: { until_minutes_before: 90, fee: { fixed: 150 } }, exchange: EXCHANGE,
  });
  assert.equal(await card.getByLabel('Fee per ticket, in USD').inputValue(), '1.50');
  await page.screenshot({ path: `${shots}/admin-policy-phone.png`, fullPage: true });
  await checkAccessibility(page, 'the showing page with its cancelling policy');

  await card.getByRole('button', { name: "Use the cinema's default" }).click();
  await state.filter({ hasText: "Buyers may cancel until 120 minutes (2 hours) before the start, with a fee of 5% of each ticket's price. This is the cinema's default" }).waitFor();
  const fallback = await stored();
  assert.equal(fallback.own, false);
  assert.deepEqual(fallback.policy.cancel, { until_minutes_before: 120, fee: { percent: 5 } });
  assert.equal(await card.getByRole('button', { name: "Use the cinema's default" }).isDisabled(), true);
  console.log('set a 10% fee, then a $1.50 fee, then the cinema default');
} finally {
  await browser.close();
}
