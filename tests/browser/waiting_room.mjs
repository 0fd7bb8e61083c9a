// The waiting page at phone width: a buyer behind another in the line
// sees their place and the one ahead, then, once the line reaches them,
// the seat map to choose from. Run by tests/e2e/tests/browser.rs with
// SHOWING_ID (a showing on sale since it was made, behind a waiting room
// of 3 a minute: the second in line waits 20 s from the opening, far more
// than a page takes to open, so it is seen waiting).
import assert from 'node:assert/strict';
import { checkAccessibility, launch, newPage } from './lib.mjs';

const base = process.env.BASE_URL;
const sid = process.env.SHOWING_ID;

const browser = await launch();
try {
  // Someone else joins first and takes place 1.
  const { page: first } = await newPage(browser);
  await first.goto(`${base}/showings/${sid}`);
  await first.getByText('It is your turn: choose your seats.').waitFor();

  const { page } = await newPage(browser);
  // A page waiting in line opens no socket to the showing's object (the
  // line's answers tell it what it needs); once admitted, it follows the map.
  const sockets = [];
  page.on('websocket', (socket) => sockets.push(socket.url()));
  await page.goto(`${base}/showings/${sid}`);
  await page.getByRole('heading', { name: 'Waiting room' }).waitFor();
  await page.getByText(/^You are number 2 in line: you are next\.$/).waitFor();
  assert.ok(await page.getByRole('button', { name: 'Find the best seats' }).isDisabled(), 'no seats before the line reaches you');
  await checkAccessibility(page, 'the waiting room');
  assert.deepEqual(sockets, [], 'no live map while waiting');
  const following = page.waitForEvent('websocket', { timeout: 40000 });
  // The line reaches this buyer: the page moves by itself.
  await page.getByText('It is your turn: choose your seats.').waitFor({ timeout: 40000 });
  assert.match((await following).url(), new RegExp(`/api/showings/${sid}/live$`));
  assert.ok(await page.locator('#waiting').isHidden());
  await page.getByRole('button', { name: 'Seat A4, available' }).click();
  await page.getByRole('button', { name: 'Hold these seats' }).click();
  await page.getByText('Held: A4.').waitFor();
  await page.getByRole('button', { name: 'Release seats' }).click();
  await page.getByText('Seats released.').waitFor();
} finally {
  await browser.close();
}
