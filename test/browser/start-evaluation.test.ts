// Challenges from the console in a real browser: a user with no challenge picks a plan (the sizes
// and rules the server has), reads its rules, starts an evaluation without the admin CLI, sees its
// phases; the server's limit of evaluations under way shows on the page and refuses a fourth.
import { describe, expect, it } from 'bun:test';
import type { Page } from 'playwright-core';
import { adminCli, browserStage, docScreenshot, loginThroughForm, newPage, noBrowser } from './support.ts';

async function text(page: Page, selector: string): Promise<string> {
  return ((await page.textContent(selector)) ?? '').trim();
}

async function steps(page: Page): Promise<string[]> {
  return page.$$eval('[data-testid=challenge-phases] li', (lis: any[]) => lis.map((li) => `${li.dataset.step}:${li.dataset.state}`));
}

describe.skipIf(noBrowser)('console: starting an evaluation', () => {
  const stage = browserStage();

  it('picks a plan, starts it, shows its phases, and stops at the limit', async () => {
    const { page, errors, context } = await newPage(stage.browser);
    await loginThroughForm(page, stage.server);
    await page.click('nav >> text=Challenges & payouts');
    await page.waitForSelector('[data-testid=challenges-empty]');
    await page.waitForSelector('[data-testid=plan-rules]');
    expect(await text(page, '[data-testid=evaluations-under-way]')).toBe('0 of 3 evaluations under way.');

    await page.selectOption('select[name=planSize]', '100K');
    await page.selectOption('select[name=planPolicy]', 'consistency');
    const rules = await text(page, '[data-testid=plan-rules]');
    expect(rules).toContain('Starting balance$100,000.00');
    expect(rules).toContain('Profit target$6,000.00');
    await page.click('[data-testid=start-evaluation-button]');
    await page.waitForSelector('[data-testid=challenge-accounts] tr[data-account-id]');
    const listed: any = await page.evaluate("fetch('/api/auth/challenges').then((r) => r.json())");
    expect(listed.challenges).toHaveLength(1);
    const c = listed.challenges[0];
    expect(c.plan).toEqual({ key: '100K-consistency', size: '100K', policy: 'consistency', dailyLossMode: 'hard' });
    expect(await page.getAttribute('[data-testid=challenge-detail]', 'data-account-id')).toBe(String(c.accountId));
    expect(await steps(page)).toEqual(['evaluation:current', 'performance:ahead', 'payouts:ahead']);
    expect(await text(page, '[data-testid=evaluations-under-way]')).toBe('1 of 3 evaluations under way.');

    // A funded account (made by an administrator) shows the evaluation done.
    const funded = adminCli(stage.server, ['challenge', 'create', '--email', stage.server.creds.userName, '--plan', '50K', '--phase', 'performance']);
    await page.reload();
    await page.click(`[data-testid=challenge-accounts] tr[data-account-id="${funded.accountId}"]`);
    await page.waitForSelector(`[data-testid=challenge-detail][data-account-id="${funded.accountId}"]`);
    expect(await steps(page)).toEqual(['evaluation:done', 'performance:current', 'payouts:current']);

    // Two more fill the user's three; the button stops and the server refuses a fourth.
    for (const n of [2, 3]) {
      await page.click('[data-testid=start-evaluation-button]');
      await page.waitForSelector(`[data-testid=evaluations-under-way]:has-text("${n} of 3")`);
    }
    expect(await text(page, '[data-testid=evaluations-under-way]')).toBe('3 of 3 evaluations under way: one must pass, fail or be ended before another starts.');
    expect(await page.isDisabled('[data-testid=start-evaluation-button]')).toBe(true);
    const fourth: any = await page.evaluate("fetch('/api/auth/challenges', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ planKey: '50K-standard' }) }).then((r) => r.json())");
    expect(fourth).toEqual({ success: false, errorCode: 2, errorMessage: 'You have 3 evaluations under way, the most one user may have: one must pass, fail or be ended before another starts' });

    await page.click(`[data-testid=challenge-accounts] tr[data-account-id="${c.accountId}"]`);
    await page.mouse.move(5, 895);
    await docScreenshot(page, 'challenges');
    await page.setViewportSize({ width: 1280, height: 720 });
    await docScreenshot(page, 'challenges-1280');
    expect(errors.filter((e) => !e.includes('/api/auth/me'))).toEqual([]);
    await context.close();
  }, 120_000);
});
