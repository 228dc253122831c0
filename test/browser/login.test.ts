// The console's shell in a real browser: the login form, a wrong password's message, the signed-in
// header, and logging out.
import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import type { Browser } from 'playwright-core';
import { launchBrowser, loginThroughForm, newPage, noBrowser, screenshot, startServer, type Server } from './support.ts';

describe.skipIf(noBrowser)('console: login', () => {
  let server: Server;
  let browser: Browser;
  beforeAll(async () => {
    server = await startServer();
    browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('refuses a wrong password with a readable message, then signs in and out', async () => {
    const { page, errors, context } = await newPage(browser);
    await page.goto(`${server.base}/`);
    await page.fill('input[name=email]', server.creds.userName);
    await page.fill('input[name=password]', 'not-the-password');
    await page.click('button[type=submit]');
    await page.waitForSelector('[role=alert]');
    expect(await page.textContent('[role=alert]')).toBe('Invalid credentials');
    await screenshot(page, 'login-refused');

    await loginThroughForm(page, server);
    expect(await page.textContent('[data-testid=user-email]')).toBe(server.creds.userName);
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
