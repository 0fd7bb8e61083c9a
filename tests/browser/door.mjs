// Door staff sign in with the showing's PIN and scan a ticket by typing its
// code (as a handheld scanner does): the first scan admits, the second is
// flagged with the time of the first. A wrong PIN is refused at sign-in,
// the page keeps its door session and never the PIN, a ticket number
// typed from a ticket page (SHORT_CODE) admits, and a ticket found by its
// buyer's whole e-mail (asked online) or seat is admitted from the list.
// Wrong PINs guessed from three other networks lock those networks out,
// not the door's: the page goes on checking tickets online. Staff then
// draw a new PIN, which ends the session: the page checks scans itself,
// says to sign in again, and sends nothing more with it; a new sign-in
// with the new PIN works. Run by tests/e2e/tests/browser.rs, which passes
// TICKET_CODE, SHORT_CODE, DOOR_PIN and ADMIN_TOKEN.
import assert from 'node:assert/strict';
import { checkAccessibility, launch } from './lib.mjs';

const base = process.env.BASE_URL;
const shots = process.env.SCREENSHOT_DIR;

// Wrong PINs from three other networks, eleven each: each network is
// locked out after ten (src/routes/door/credential.rs), and a fourth
// network still signs in with the right PIN.
async function guessFromElsewhere() {
  for (const network of ['203.0.113.1', '203.0.113.2', '203.0.113.3']) {
    for (let guess = 0; guess < 11; guess += 1) {
      const reply = await fetch(`${base}/api/door/checkin`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-door-pin': '0000000000', 'cf-connecting-ip': network },
        body: JSON.stringify({ code: 'guess', showing_id: process.env.SHOWING_ID }),
      });
      assert.equal(reply.status, guess < 10 ? 401 : 429, `${network} guess ${guess}`);
    }
  }
  const open = await fetch(`${base}/api/door/showings/${process.env.SHOWING_ID}/manifest`, { headers: { 'x-door-pin': process.env.DOOR_PIN, 'cf-connecting-ip': '203.0.113.9' } });
  assert.equal(open.status, 200, 'the right PIN signs in from a fourth network');
}
// The PIN staff draw at the end, for the last sign-in.
let newPin = null;

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
    const kept = await page.evaluate(() => JSON.stringify({ session: { ...sessionStorage }, local: { ...localStorage } }));
    assert.ok(!kept.includes(process.env.DOOR_PIN), 'the PIN is not kept');
    const signin = JSON.parse(await page.evaluate(() => sessionStorage.getItem('door-signin')));
    assert.deepEqual(Object.keys(signin).sort(), ['device', 'session', 'showingId'], 'the door session is');
    if (name === 'desktop') await guessFromElsewhere();
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
    // A buyer with no code to show is found by their whole e-mail (asked
    // online: a part finds nothing), or name, or seat, and admitted by the
    // same check-in as a scan.
    const find = page.getByLabel("Find a ticket by the buyer's name, e-mail or seat");
    if (name === 'phone') {
      await find.fill('bo@ex');
      await page.getByRole('button', { name: 'Find', exact: true }).click();
      await page.getByText('0 tickets match.').waitFor();
    }
    await find.fill(name === 'phone' ? 'BO@EXAMPLE.COM' : 'a4');
    await page.getByRole('button', { name: 'Find', exact: true }).click();
    await page.getByText('1 ticket match.').waitFor();
    await page.locator('#found li').filter({ hasText: 'Seat A4 · Bo Chen · ' }).waitFor();
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
      const drawn = await fetch(`${base}/api/admin/showings/${process.env.SHOWING_ID}/door-pin`, {
        method: 'POST',
        headers: { authorization: `Bearer ${process.env.ADMIN_TOKEN}` },
      });
      assert.equal(drawn.status, 200);
      newPin = (await drawn.json()).pin;
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
  // The old PIN no longer signs in; the new one does, whatever the
  // guesses from other networks.
  const late = await browser.newPage();
  await late.goto(`${base}/door`);
  await late.getByLabel('Showing').selectOption(process.env.SHOWING_ID);
  await late.getByLabel('Door PIN (or staff door token)').fill(process.env.DOOR_PIN);
  await late.getByRole('button', { name: 'Start scanning' }).click();
  await late.getByRole('alert').filter({ hasText: 'Wrong PIN or token for this showing.' }).waitFor();
  await late.getByLabel('Door PIN (or staff door token)').fill(newPin);
  await late.getByRole('button', { name: 'Start scanning' }).click();
  await late.getByText('Checking Paris, Texas').waitFor();
  await late.close();
  console.log('1 passed, 0 failed');
} finally {
  await browser.close();
}
