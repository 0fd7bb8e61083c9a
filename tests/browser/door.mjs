// Door staff sign in with the showing's PIN and scan a ticket by typing its
// code (as a handheld scanner does): the first scan admits, the second is
// flagged with the time of the first. Run by tests/e2e/tests/browser.rs,
// which passes TICKET_CODE and DOOR_PIN.
import { checkAccessibility, launch } from './lib.mjs';

const base = process.env.BASE_URL;
const shots = process.env.SCREENSHOT_DIR;

const browser = await launch();
try {
  for (const [name, viewport] of [['phone', { width: 390, height: 844 }], ['desktop', { width: 1280, height: 900 }]]) {
    const page = await browser.newPage({ viewport });
    page.setDefaultTimeout(15000);
    await page.goto(`${base}/door`);
    await page.getByLabel('Showing').selectOption(process.env.SHOWING_ID);
    await page.getByLabel('Door PIN (or staff door token)').fill(process.env.DOOR_PIN);
    await page.getByRole('button', { name: 'Start scanning' }).click();
    const code = page.getByLabel('Ticket code (a handheld scanner types it here)');
    await code.fill(process.env.TICKET_CODE);
    await code.press('Enter');
    const first = name === 'phone' ? 'Admitted' : 'Already scanned at';
    await page.getByRole('status').filter({ hasText: first }).waitFor();
    await page.getByText('Admitted 1 of 1 sold').waitFor();
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
    await checkAccessibility(page, 'the door page');
    await page.close();
  }
  console.log('1 passed, 0 failed');
} finally {
  await browser.close();
}
