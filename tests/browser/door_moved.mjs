// A ticket staff moved to another seat, at a door with no network. Run by
// tests/e2e/tests/browser.rs with the moved ticket's old code (OLD_CODE),
// the code of the ticket that replaced it (NEW_CODE) and the door PIN. A
// device that fetched its ticket list online, then lost the network,
// refuses the old code as moved, naming the new seat, and admits the new
// one, each marked offline; back online, it sends both scans.
import { launch, newPage } from './lib.mjs';

const base = process.env.BASE_URL;
const sid = process.env.SHOWING_ID;
const shots = process.env.SCREENSHOT_DIR;

async function scan(page, code, expected) {
  const input = page.getByLabel('Ticket code (a handheld scanner types it here)');
  await input.fill(code);
  await input.press('Enter');
  await page.getByRole('status').filter({ hasText: expected }).filter({ hasText: 'Checked offline' }).waitFor();
}

const browser = await launch();
try {
  const { context, page } = await newPage(browser);
  await page.goto(`${base}/door`);
  await page.getByLabel('Showing').selectOption(sid);
  await page.getByLabel('Door PIN (or staff door token)').fill(process.env.DOOR_PIN);
  await page.getByRole('button', { name: 'Start scanning' }).click();
  await page.getByText(/^Online · no scans waiting · ticket list from /).waitFor();
  await context.setOffline(true);
  await scan(page, process.env.OLD_CODE, 'Moved to seat B4');
  await page.getByRole('status').filter({ hasText: "the holder's new ticket is for seat B4" }).waitFor();
  await page.screenshot({ path: `${shots}/door-moved-offline-phone.png`, fullPage: true });
  await scan(page, process.env.NEW_CODE, 'Admitted');
  await page.getByText(/2 scans waiting to be sent/).waitFor();
  await context.setOffline(false);
  await page.getByText(/^Online · no scans waiting/).waitFor();
  console.log('1 passed, 0 failed');
} finally {
  await browser.close();
}
