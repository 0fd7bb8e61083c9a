// Turnstile on: the showing page and the order-links page show the widget
// (the stand-in of its script) and send its token, so a buyer holds, pays
// and asks for their links as before; the page's policy lets the widget's
// script run. Run by tests/e2e/tests/browser.rs with the test secret that
// always passes.
import assert from 'node:assert/strict';
import { expectOrderPage, fillTestCard, launch, newPage } from './lib.mjs';

const base = process.env.BASE_URL;
const sid = process.env.SHOWING_ID;

const browser = await launch();
try {
  const { context, page } = await newPage(browser);
  const blocked = [];
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) blocked.push(message.text());
  });
  await page.goto(`${base}/showings/${sid}`);
  await page.getByText('Success (test widget)').waitFor();
  await page.getByRole('button', { name: 'Seat A2, available' }).click();
  await page.getByRole('button', { name: 'Hold these seats' }).click();
  await page.getByRole('timer').waitFor();
  await fillTestCard(page);
  await page.getByRole('button', { name: 'Pay now' }).click();
  await expectOrderPage(page);
  await page.getByRole('heading', { name: 'Seat A2' }).waitFor();

  await page.goto(`${base}/orders/find`);
  await page.getByText('Success (test widget)').waitFor();
  await page.getByLabel('E-mail address').fill('ana@example.com');
  await page.getByRole('button', { name: 'Send me my order links' }).click();
  await page.getByText(/a message with their links is on its way/).waitFor();
  assert.deepEqual(blocked, [], 'nothing was blocked by the policy');
  await context.close();
  console.log('1 passed, 0 failed');
} finally {
  await browser.close();
}
