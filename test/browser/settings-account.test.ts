// Settings for a trader in a real browser: a time zone that every time on the desk follows (the
// clock, the jump box, the fills), the start form's default instrument and timeframe, and a password
// change that needs the current password and signs out the account's other browsers.
import { describe, expect, it } from 'bun:test';
import type { Page } from 'playwright-core';
import { browserStage, docScreenshot, loginThroughForm, newPage, noBrowser } from './support.ts';

async function text(page: Page, sel: string): Promise<string> {
  return ((await page.textContent(sel)) ?? '').trim();
}

async function openSettings(page: Page, base: string): Promise<void> {
  await page.click('nav >> text=Settings');
  await page.waitForSelector('[data-testid=display-preferences]');
  await page.waitForSelector('select[name=defaultSymbol] option:nth-child(2)', { state: 'attached' });
  expect(page.url()).toBe(`${base}/#/settings`);
}

describe.skipIf(noBrowser)('console: settings for a trader', () => {
  const stage = browserStage();

  it('shows the desk in Chicago time and starts the form on the chosen instrument and timeframe', async () => {
    const { page, errors, context } = await newPage(stage.browser);
    await loginThroughForm(page, stage.server);
    await openSettings(page, stage.server.base);
    await page.selectOption('select[name=timeZone]', 'America/Chicago');
    await page.selectOption('select[name=defaultSymbol]', 'ES');
    await page.selectOption('select[name=defaultTimeframe]', '5m');
    expect(await text(page, '[data-testid=time-zone-example]')).toContain(' CT now');

    await page.click('nav >> text=Replay desk');
    await page.waitForSelector('[data-testid=data-last]');
    expect(await page.$eval('select[name=contract]', (s: any) => s.selectedOptions[0].textContent)).toContain('ES');
    expect(await page.inputValue('select[name=timeframe]')).toBe('5m');
    await page.selectOption('select[name=timeframe]', '1m');
    await page.fill('input[name=startDate]', '2025-03-03');
    await page.click('text=Start replay');
    await page.waitForSelector('[data-testid=desk]');
    await page.click('[data-testid=step]');
    // 00:01 UTC on March 3rd is 18:01 on the 2nd in Chicago (CST, UTC−6).
    await page.waitForFunction("document.querySelector('[data-testid=sim-time]').textContent.includes('18:01')");
    expect(await text(page, '[data-testid=sim-time]')).toBe('2025-03-02 18:01:00');
    expect(await text(page, '[data-testid=sim-time] + span')).toBe('CT');
    // The jump box speaks Chicago time too: 08:30 CT is the cash open, 14:30 UTC, on the server.
    await page.fill('input[name=jumpTo]', '2025-03-03 08:30');
    await page.click('[data-testid=jump]');
    await page.waitForFunction("document.querySelector('[data-testid=sim-time]').textContent.startsWith('2025-03-03 08:30')");
    const accountId = Number(await page.evaluate('localStorage.getItem("rd.desk.current")'));
    expect(accountId).toBeGreaterThan(0);
    const info: any = await page.evaluate(`fetch('/api/auth/replay-sessions/${accountId}').then((r) => r.json())`);
    expect(info.currentTime).toBe('2025-03-03T14:30:00Z');
    expect(errors.filter((e) => !e.includes('/api/auth/me'))).toEqual([]);
    await context.close();
  }, 120_000);

  it('changes the password with the current one; other browsers are signed out, this one stays', async () => {
    const a = await newPage(stage.browser);
    const b = await newPage(stage.browser);
    await loginThroughForm(a.page, stage.server);
    await loginThroughForm(b.page, stage.server);
    await openSettings(a.page, stage.server.base);
    const fill = async (current: string, next: string, again = next) => {
      await a.page.fill('input[name=currentPassword]', current);
      await a.page.fill('input[name=newPassword]', next);
      await a.page.fill('input[name=newPasswordAgain]', again);
    };
    await fill('not the password', 'a new passphrase for the desk');
    await a.page.click('text=Change password');
    await a.page.waitForSelector('[data-testid=password-form] ~ .error');
    expect(await text(a.page, '[data-testid=password-form] ~ .error')).toBe('The current password is wrong');
    await fill(stage.server.creds.password, 'a new passphrase for the desk', 'a different one');
    expect(await a.page.isDisabled('text=Change password')).toBe(true);
    await fill(stage.server.creds.password, 'a new passphrase for the desk');
    await a.page.click('text=Change password');
    await a.page.waitForSelector('[data-testid=password-changed]');
    await a.page.mouse.move(5, 895);
    await a.page.evaluate('document.activeElement.blur()');
    await docScreenshot(a.page, 'settings');
    await a.page.setViewportSize({ width: 1280, height: 720 });
    await docScreenshot(a.page, 'settings-1280');

    // This browser stays signed in; the other is sent to the sign-in form on its next call.
    await a.page.reload();
    await a.page.waitForSelector('[data-testid=user-email]');
    await b.page.reload();
    await b.page.waitForSelector('input[name=password]');
    await b.page.fill('input[name=email]', stage.server.creds.userName);
    await b.page.fill('input[name=password]', stage.server.creds.password);
    await b.page.click('button[type=submit]');
    await b.page.waitForSelector('.error');
    await b.page.fill('input[name=password]', 'a new passphrase for the desk');
    await b.page.click('button[type=submit]');
    await b.page.waitForSelector('[data-testid=user-email]');
    expect(a.errors.filter((e) => !e.includes('/api/auth/me') && !e.includes('401'))).toEqual([]);
    await a.context.close();
    await b.context.close();
  }, 120_000);
});
