// Door staff sign in with the showing's PIN and scan a ticket by typing its
// code (as a handheld scanner does): the first scan admits, the second is
// flagged with the time of the first. A wrong PIN is refused at sign-in,
// a ticket number typed from a ticket page (SHORT_CODE) admits, and a
// ticket found by its buyer's e-mail or seat is admitted from the list.
// Wrong PINs guessed from three other networks then lock the PIN: a new
// sign-in is refused, but the page already signed in goes on checking
// tickets online with the session it was given. Staff then set the PIN
// again, which ends the session: the page checks scans itself, says to
// sign in again, and sends nothing more with it. Run by
// tests/e2e/tests/browser.rs, which passes TICKET_CODE, SHORT_CODE,
// DOOR_PIN and ADMIN_TOKEN.
import assert from 'node:assert/strict';
import { checkAccessibility, launch } from './lib.mjs';

const base = process.env.BASE_URL;
const shots = process.env.SCREENSHOT_DIR;

// Wrong PINs from three networks, in turn, until the PIN is locked for
// every network: at thirty within ten minutes (desk/src/door.rs), counting
// the phone's wrong PIN at sign-in.
async function lockThePin() {
  let guesses = 0;
  for (;;) {
    const reply = await fetch(`${base}/api/door/checkin`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-door-pin': '0000', 'cf-connecting-ip': `203.0.113.${guesses % 3 + 1}` },
      body: JSON.stringify({ code: 'guess', showing_id: process.env.SHOWING_ID, device: 'guesser' }),
    });
    if (reply.status === 429) break;
    assert.equal(reply.status, 401, `guess ${guesses}`);
    guesses += 1;
    assert.ok(guesses <= 30, 'locked by thirty wrong PINs');
  }
  const locked = await fetch(`${base}/api/door/showings/${process.env.SHOWING_ID}/manifest`, { headers: { 'x-door-pin': process.env.DOOR_PIN, 'cf-connecting-ip': '203.0.113.9' } });
  assert.equal(locked.status, 429, 'the right PIN is refused from a fourth network too');
}

const browser = await launch();
try {
  for (const [name, viewport] of [['phone', { width: 390, height: 844 }], ['desktop', { width: 1280, height: 900 }]]) {
    const page = await browser.newPage({ viewport });
    page.setDefaultTimeout(15000);
    await page.goto(`${base}/door`);
    await page.getByLabel('Showing').selectOption(process.env.SHOWING_ID);
    if (name === 'phone') {
      // A wrong PIN is refused at once, before any ticket is scanned.
      await page.getByLabel('Door PIN (or staff door token)').fill('0000');
      await page.getByRole('button', { name: 'Start scanning' }).click();
      await page.getByRole('alert').filter({ hasText: 'Wrong PIN or token for this showing.' }).waitFor();
      assert.equal(await page.locator('#scanner').isHidden(), true, 'no scanning with a wrong PIN');
    }
    await page.getByLabel('Door PIN (or staff door token)').fill(process.env.DOOR_PIN);
    await page.getByRole('button', { name: 'Start scanning' }).click();
    // The scanner names the showing it checks.
    await page.getByText('Checking Paris, Texas').waitFor();
    if (name === 'desktop') await lockThePin();
    const code = page.getByLabel('Ticket code (a handheld scanner types it here)');
    await code.fill(process.env.TICKET_CODE);
    await code.press('Enter');
    const first = name === 'phone' ? 'Admitted' : 'Already scanned at';
    await page.getByRole('status').filter({ hasText: first }).waitFor();
    // The number under a ticket's QR code, typed as it reads.
    await code.fill(process.env.SHORT_CODE);
    await code.press('Enter');
    await page.getByRole('status').filter({ hasText: first }).filter({ hasText: 'Seat A3' }).waitFor();
    // On the desktop pass, the phone has admitted all three already.
    await page.getByText(`Admitted ${name === 'phone' ? 2 : 3} of 3 sold`).waitFor();
    // A buyer with no code to show is found by e-mail (or name, or seat)
    // and admitted by the same check-in as a scan.
    await page.getByLabel("Find a ticket by the buyer's name, e-mail or seat").fill(name === 'phone' ? 'BO@EX' : 'a4');
    await page.getByRole('button', { name: 'Find', exact: true }).click();
    await page.getByText('1 ticket match.').waitFor();
    await page.locator('#found li').filter({ hasText: 'Seat A4 · Bo Chen · bo@example.com' }).waitFor();
    await page.getByRole('button', { name: 'Admit seat A4' }).click();
    await page.getByRole('status').filter({ hasText: first }).filter({ hasText: 'Seat A4' }).waitFor();
    await page.getByText('Admitted 3 of 3 sold').waitFor();
    await page.locator('#found li').filter({ hasText: 'Seat A4' }).filter({ hasText: 'admitted' }).waitFor();
    await page.screenshot({ path: `${shots}/door-${name}.png`, fullPage: true });
    await code.fill(process.env.TICKET_CODE);
    await code.press('Enter');
    await code.fill('v1.forged');
    await code.press('Enter');
    await page.getByRole('status').filter({ hasText: 'Invalid ticket' }).waitFor();
    // The second scan of the ticket was flagged, in order, before the forged one.
    await code.fill(process.env.TICKET_CODE);
    await code.press('Enter');
    await page.getByRole('status').filter({ hasText: 'Already scanned at' }).waitFor();
    // Every answer came from the Worker, the lock notwithstanding.
    assert.equal(await page.locator('#result .mark').count(), 0, 'not checked offline');
    assert.match(await page.locator('#state').textContent(), /^Online · no scans waiting/);
    await checkAccessibility(page, 'the door page');
    if (name === 'desktop') {
      const set = await fetch(`${base}/api/admin/showings/${process.env.SHOWING_ID}/door-pin`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${process.env.ADMIN_TOKEN}` },
        body: JSON.stringify({ pin: process.env.DOOR_PIN }),
      });
      assert.equal(set.status, 204);
      const sent = [];
      page.on('request', (request) => { if (request.url().includes('/api/door/')) sent.push(request.url()); });
      await code.fill(process.env.TICKET_CODE);
      await code.press('Enter');
      await page.getByRole('status').filter({ hasText: 'Already scanned at' }).filter({ hasText: 'Checked offline' }).waitFor();
      await page.getByText(/1 scan waiting to be sent · the server no longer takes this sign-in/).waitFor();
      await code.fill(process.env.SHORT_CODE);
      await code.press('Enter');
      await page.getByText(/2 scans waiting to be sent · the server no longer takes this sign-in/).waitFor();
      assert.deepEqual(sent.map((url) => new URL(url).pathname), ['/api/door/checkin'], 'one refused check-in, then nothing');
      page.once('dialog', (dialog) => dialog.accept());
    }
    // Signing out goes back to choosing a showing.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Start scanning' }).waitFor();
    assert.equal(await page.locator('#scanner').isHidden(), true);
    await page.close();
  }
  // A new sign-in with the right PIN waits out the lock.
  const late = await browser.newPage();
  await late.goto(`${base}/door`);
  await late.getByLabel('Showing').selectOption(process.env.SHOWING_ID);
  await late.getByLabel('Door PIN (or staff door token)').fill(process.env.DOOR_PIN);
  await late.getByRole('button', { name: 'Start scanning' }).click();
  await late.getByRole('alert').filter({ hasText: 'Too many wrong PINs for this showing.' }).waitFor();
  await late.close();
  console.log('1 passed, 0 failed');
} finally {
  await browser.close();
}
