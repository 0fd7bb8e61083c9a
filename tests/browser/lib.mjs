// What the browser scripts share: launching Debian's Chromium headless,
// and the axe-core accessibility check.
import { chromium } from 'playwright-core';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export function launch() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    // The machine's network is closed: no background traffic, no QUIC.
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

/// axe-core in the page: no serious or critical accessibility violations.
/// It is evaluated by the test harness, which the pages' policy (no inline
/// script) does not govern; a script tag would be refused, as it should.
export async function checkAccessibility(page, what) {
  await page.evaluate(axeSource);
  const results = await page.evaluate(() => window.axe.run());
  const bad = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  assert.deepEqual(bad.map((v) => `${v.id}: ${v.help} (${v.nodes.length})`), [], `${what}: accessibility`);
}

/// A new buyer (own context, phone width) holds `seat` and reaches the
/// payment form.
export async function holdSeat(browser, base, sid, seat, viewport = { width: 390, height: 844 }) {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  page.setDefaultTimeout(15000);
  await page.goto(`${base}/showings/${sid}`);
  await page.getByRole('button', { name: `Seat ${seat}, available` }).click();
  await page.getByRole('button', { name: 'Hold these seats' }).click();
  await page.getByRole('timer').waitFor();
  return { context, page };
}

/// Waits for the order page after paying; if it does not come, fails with
/// what the page said instead.
export async function expectOrderPage(page, timeout = 30000) {
  try {
    await page.waitForURL(/\/orders\//, { timeout });
  } catch (error) {
    const said = await page.locator('#messages, #hold-messages, #pay-messages').allInnerTexts().then((t) => t.join(' / ')).catch(() => '(no messages)');
    throw new Error(`no order page after paying; the page said: ${said}\n${error.message}`);
  }
}

/// Fills the payment form with the Square stand-in's approved test card.
export async function fillTestCard(page) {
  await page.getByLabel('Name').fill('Ana Lima');
  await page.getByLabel('E-mail').fill('ana@example.com');
  await page.getByLabel('Card number').fill('4111 1111 1111 1111');
  await page.getByLabel('Expiry (MM/YY)').fill('12/30');
  await page.getByLabel('CVV').fill('123');
  await page.getByLabel('Postal code').fill('94103');
}

/// A page in a new context of its own: a phone by default, in US English.
export async function newPage(browser, viewport = { width: 390, height: 844 }) {
  const context = await browser.newContext({ viewport, locale: 'en-US' });
  const page = await context.newPage();
  page.setDefaultTimeout(15000);
  return { context, page };
}

/// Staff signed in with the admin token on the admin home, at phone width
/// unless told.
export async function staffHome(browser, base, viewport) {
  const { context, page } = await newPage(browser, viewport);
  await page.goto(`${base}/admin`);
  await page.getByLabel('Admin token').fill(process.env.ADMIN_TOKEN);
  await page.getByRole('button', { name: 'Sign in' }).click();
  return { context, page };
}

/// Staff signed in with the admin token on a desktop-sized page.
export async function staffPage(browser, base) {
  const { context, page } = await staffHome(browser, base, { width: 1280, height: 900 });
  await page.getByRole('link', { name: 'New showing' }).waitFor();
  return { context, page };
}
