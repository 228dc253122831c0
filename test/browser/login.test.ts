// The console's shell in a real browser: the login form, a wrong password's message, the signed-in
// header, and logging out.
import { describe, expect, it } from 'bun:test';
import { loginThroughForm, newPage, noBrowser, screenshot, browserStage } from './support.ts';

describe.skipIf(noBrowser)('console: login', () => {
  const stage = browserStage();

  it('refuses a wrong password with a readable message, then signs in and out', async () => {
    const { page, errors, context } = await newPage(stage.browser);
    await page.goto(`${stage.server.base}/`);
    await page.fill('input[name=email]', stage.server.creds.userName);
    await page.fill('input[name=password]', 'not-the-password');
    await page.click('button[type=submit]');
    await page.waitForSelector('[role=alert]');
    expect(await page.textContent('[role=alert]')).toBe('Invalid credentials');
    await screenshot(page, 'login-refused');

    await loginThroughForm(page, stage.server);
    expect(await page.textContent('[data-testid=user-email]')).toBe(stage.server.creds.userName);
    expect(await page.textContent('.plan')).toBe('pro');
    // The session is an HttpOnly cookie: the page's script cannot read it.
    expect(await page.evaluate('document.cookie')).toBe('');

    await page.click('text=Log out');
    await page.waitForSelector('input[name=password]');
    await page.reload();
    await page.waitForSelector('input[name=password]');
    expect(errors.filter((e) => !e.includes('401'))).toEqual([]);
    await context.close();
  }, 60_000);
});
