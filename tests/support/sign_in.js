// sign_in.js -- signs in to the fixture app (tests/support/auth_app.c) with
// Playwright and writes what it keeps of the session:
//   node sign_in.js BASE USER PASSWORD STATE_OUT [COOKIES_OUT]
// STATE_OUT: context.storageState() (Playwright's own writer), after the
// app's home page ran (it sets localStorage "auth-note"). COOKIES_OUT: the
// same cookies as a Netscape cookies.txt, the format curl and browser
// extensions export (#HttpOnly_ lines, 0 for a session cookie).
// Chromium: $UIAP_CHROMIUM, else /usr/bin/chromium (playwright-core brings none).
const fs = require('fs');
const { chromium } = require('playwright-core');

function netscape(cookies) {
  const lines = ['# Netscape HTTP Cookie File'];
  for (const c of cookies) {
    const sub = c.domain.startsWith('.') ? 'TRUE' : 'FALSE';
    const exp = c.expires > 0 ? Math.floor(c.expires) : 0;
    lines.push([(c.httpOnly ? '#HttpOnly_' : '') + c.domain, sub, c.path, c.secure ? 'TRUE' : 'FALSE',
                exp, c.name, c.value].join('\t'));
  }
  return lines.join('\n') + '\n';
}

(async () => {
  const [base, user, password, stateOut, cookiesOut] = process.argv.slice(2);
  const browser = await chromium.launch({
    executablePath: process.env.UIAP_CHROMIUM || '/usr/bin/chromium',
    args: process.getuid && process.getuid() === 0 ? ['--no-sandbox'] : [],
  });
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(base + '/auth/login');
  await page.fill('input[name=user]', user);
  await page.fill('input[name=password]', password);
  await Promise.all([page.waitForURL('**/auth/app/'), page.click('button[type=submit]')]);
  await page.waitForFunction(() => localStorage.getItem('auth-note'));
  await context.storageState({ path: stateOut });
  if (cookiesOut) fs.writeFileSync(cookiesOut, netscape(await context.cookies()));
  await browser.close();
})().catch((e) => { console.error('sign_in.js: ' + e.message); process.exit(1); });
