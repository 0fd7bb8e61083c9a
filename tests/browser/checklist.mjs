// The admin home lists the first-deploy checklist while a setting is
// wrong (CHECKLIST=wrong: PUBLIC_URL is http://), on a phone, and not once
// every line is right (CHECKLIST=right), where registering the local site
// for Apple Pay is refused with the reason. Run by tests/e2e/tests/browser.rs
// with BASE_URL, ADMIN_TOKEN and SCREENSHOT_DIR.
import assert from 'node:assert/strict';
import { checkAccessibility, launch, staffHome } from './lib.mjs';

const base = process.env.BASE_URL;
const shots = process.env.SCREENSHOT_DIR;

const browser = await launch();
try {
  const { page } = await staffHome(browser, base);
  await page.getByRole('heading', { name: 'Needs attention' }).waitFor();
  const setup = page.getByRole('region', { name: 'Before you sell' });
  if (process.env.CHECKLIST === 'wrong') {
    await setup.waitFor();
    await setup.getByRole('listitem').filter({ hasText: 'PUBLIC_URL (to fix): http://tickets.cinema.example/ must start with https://' }).waitFor();
    await setup.getByRole('listitem').filter({ hasText: 'SQUARE_WEBHOOK_URL: signatures are checked against' }).waitFor();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `the page is ${overflow}px wider than the phone`);
    await checkAccessibility(page, 'the admin home with its checklist');
    await page.screenshot({ path: `${shots}/admin-checklist-phone.png`, fullPage: true });
  } else {
    // The list is drawn, and hidden in the same step, once health answers.
    await page.waitForFunction(() => document.getElementById('checklist').children.length > 0);
    assert.equal(await setup.isVisible(), false, 'no checklist once every line is right');
    // A local address cannot be registered for Apple Pay, and the page says why.
    await page.getByRole('button', { name: 'Register this site for Apple Pay' }).click();
    await page.getByRole('alert').filter({ hasText: "Apple Pay needs the site's own https:// address in PUBLIC_URL" }).waitFor();
  }
  console.log('1 passed, 0 failed');
} finally {
  await browser.close();
}
