// Challenges & payouts in a real browser: challenge accounts made with the admin CLI appear with
// their status, phase and rule figures (GET /api/auth/challenges); a performance-phase account
// shows its payout eligibility, reasons and figures as the API states them, an ineligible one's
// request button is disabled, and an evaluation account says why it has no payouts and
// shows its floors and target; an ended one reads as ended.
import { describe, expect, it } from 'bun:test';
import type { Page } from 'playwright-core';
import { loginThroughForm, newPage, noBrowser, screenshot, adminCli, browserStage } from './support.ts';

async function text(page: Page, selector: string): Promise<string> {
  return ((await page.textContent(selector)) ?? '').trim();
}

/** The cells of a challenge row as a person reads them. */
async function row(page: Page, accountId: number): Promise<string[]> {
  return page.$$eval(`[data-testid=challenge-accounts] tr[data-account-id="${accountId}"] td`, (tds: any[]) => tds.map((td) => td.textContent.trim()));
}

/** POST on the current family from inside the page (the session cookie goes along). */
async function simCall(page: Page, path: string, body: unknown): Promise<any> {
  return page.evaluate(
    `fetch('/api/sim/${path}', { method: 'POST', headers: { 'content-type': 'application/json' }, body: ${JSON.stringify(JSON.stringify(body))} }).then((r) => r.json())`,
  );
}

/** One challenge account as GET /api/auth/challenges states it (read in the page, with its cookie). */
async function challengeOf(page: Page, accountId: number): Promise<any> {
  const r: any = await page.evaluate("fetch('/api/auth/challenges').then((r) => r.json())");
  return r.challenges.find((c: any) => c.accountId === accountId);
}

/** The value of one of the selected account's rule figures. */
async function ruleValue(page: Page, id: string): Promise<string> {
  return text(page, `[data-testid=challenge-detail] [data-testid=rule-${id}] .value`);
}

const usd = (v: number) => v.toLocaleString('en-US', { style: 'currency', currency: 'USD' });

describe.skipIf(noBrowser)('console: challenges and payouts', () => {
  const stage = browserStage();

  it('lists challenge accounts with status and phase, and shows payout eligibility with its reasons', async () => {
    const email = stage.server.creds.userName;
    const evaluation = adminCli(stage.server, ['challenge', 'create', '--email', email, '--plan', '50K']);
    const funded = adminCli(stage.server, ['challenge', 'create', '--email', email, '--plan', '100K', '--phase', 'performance', '--policy', 'consistency']);
    const ended = adminCli(stage.server, ['challenge', 'create', '--email', email, '--plan', '150K']);
    adminCli(stage.server, ['challenge', 'end', '--account', String(ended.accountId)]);

    const { page, errors, context } = await newPage(stage.browser);
    await loginThroughForm(page, stage.server);
    errors.length = 0; // the signed-out shell's 401 from /api/auth/me before logging in
    await page.goto(`${stage.server.base}/#/challenges`);
    await page.waitForSelector('[data-testid=challenge-accounts] tbody tr');

    // Account, plan, status, phase, balance; active accounts first.
    expect(await row(page, evaluation.accountId)).toEqual([evaluation.name, '50K', 'Active', 'Evaluation', '$50,000.00']);
    expect(await row(page, funded.accountId)).toEqual([funded.name, '100K', 'Active', 'Performance (funded)', '$100,000.00']);
    expect(await row(page, ended.accountId)).toEqual([ended.name, '150K', 'Ended', 'Evaluation', '$150,000.00']);
    const order = await page.$$eval('[data-testid=challenge-accounts] tbody tr', (trs: any[]) => trs.map((tr) => Number(tr.getAttribute('data-account-id'))));
    expect(order).toEqual([funded.accountId, evaluation.accountId, ended.accountId]);

    // The performance-phase account: eligibility as the API states it, reasons in words.
    await page.click(`[data-testid=challenge-accounts] tr[data-account-id="${funded.accountId}"]`);
    await page.waitForSelector(`[data-testid=challenge-detail][data-account-id="${funded.accountId}"] [data-testid=eligibility]`);
    const fundedApi = await challengeOf(page, funded.accountId);
    expect(fundedApi.profitTarget).toBeNull();
    expect(await ruleValue(page, 'target')).toBe('—');
    expect(await ruleValue(page, 'trailing-floor')).toBe(usd(fundedApi.trailingFloor));
    expect(await text(page, '[data-testid=challenge-detail] [data-testid=challenge-phase]')).toBe('Performance (funded)');
    const api = (await simCall(page, 'Payout/eligibility', { accountId: funded.accountId })).eligibility;
    expect(api.eligible).toBe(false);
    expect(await text(page, '[data-testid=eligibility-status]')).toBe('Not eligible yet');
    const reasons = await page.$$eval('[data-testid=eligibility-reasons] li', (lis: any[]) => lis.map((li) => li.textContent));
    expect(reasons).toEqual(api.reasons);
    expect(reasons).toEqual([
      '0 of 3 winning days (closed profit of at least $150.00 on a finished trade date) since the performance phase began',
      'No net profit since the performance phase began',
    ]);
    expect(await text(page, '[data-testid=rule-winning-days] .value')).toBe(`0 / ${api.requiredWinningDays}`);
    expect(await text(page, '[data-testid=rule-winning-days] .sub')).toBe('each at least $150.00 closed profit');
    expect(await text(page, '[data-testid=rule-net-profit] .value')).toBe('$0.00');
    expect(await text(page, '[data-testid=rule-consistency] .value')).toBe(`best day ≤ ${api.consistencyPct}%`);
    expect(await page.getAttribute('[data-testid=rule-winning-days]', 'class')).toContain('unmet');

    // Not eligible: the request button and the amount are disabled, and the form says why; nothing is paid.
    expect(await page.isDisabled('[data-testid=payout-form] button[type=submit]')).toBe(true);
    expect(await page.isDisabled('[data-testid=payout-form] input[name=amount]')).toBe(true);
    expect(await text(page, '[data-testid=payout-closed]')).toBe('Requests open once the account is eligible (the reasons above).');
    expect(await text(page, '[data-testid=payouts-empty]')).toBe('No payouts yet.');
    expect((await simCall(page, 'Payout/history', { accountId: funded.accountId })).payouts).toEqual([]);
    expect(await text(page, '[data-testid=challenge-balance]')).toBe('$100,000.00');
    await screenshot(page, 'challenges');

    // The evaluation account: the server's reason, no payout form.
    await page.click(`[data-testid=challenge-accounts] tr[data-account-id="${evaluation.accountId}"]`);
    await page.waitForSelector(`[data-testid=challenge-detail][data-account-id="${evaluation.accountId}"]`);
    expect(await text(page, '[data-testid=eligibility-note] p')).toBe('Account is not in the performance phase');
    expect(await page.$('[data-testid=payout-form]')).toBeNull();
    expect(await text(page, '[data-testid=challenge-detail] [data-testid=challenge-phase]')).toBe('Evaluation');
    // Its rule state as GET /api/auth/challenges states it: a fresh 50K evaluation.
    const fresh = await challengeOf(page, evaluation.accountId);
    expect(fresh).toMatchObject({ trailingFloor: 48_000, dailyLossFloor: null, effectiveFloor: 48_000, profitTarget: 3_000, tradingDays: 0, minTradingDays: 2 });
    expect(await ruleValue(page, 'trailing-floor')).toBe('$48,000.00');
    expect(await text(page, '[data-testid=rule-trailing-floor] .label')).toBe('Trailing flooreffective');
    expect(await ruleValue(page, 'daily-loss-floor')).toBe('—');
    expect(await text(page, '[data-testid=rule-daily-loss-floor] .sub')).toBe("$1,000.00 under the day's start");
    expect(await ruleValue(page, 'floor-room')).toBe('$2,000.00');
    expect(await ruleValue(page, 'target')).toBe('$0.00 / $3,000.00');
    expect(await ruleValue(page, 'best-day')).toBe('$0.00');
    expect(await text(page, '[data-testid=rule-best-day] .sub')).toBe('must stay below 50% of profit');
    expect(await ruleValue(page, 'trading-days')).toBe('0 / 2');
    expect(await text(page, '[data-testid=rule-trading-days] .sub')).toBe('max 5 contracts');
    expect(await page.$('[data-testid=challenge-outcome]')).toBeNull();

    // The ended account reads as ended, with what that means; its figures stay.
    await page.click(`[data-testid=challenge-accounts] tr[data-account-id="${ended.accountId}"]`);
    await page.waitForSelector(`[data-testid=challenge-detail][data-account-id="${ended.accountId}"]`);
    expect(await text(page, '[data-testid=challenge-detail] [data-testid=challenge-status]')).toBe('Ended');
    expect((await challengeOf(page, ended.accountId)).status).toBe('ended');
    expect(await text(page, '[data-testid=challenge-outcome]')).toBe('Ended before a pass or a violation; it takes no more orders.');
    expect(await ruleValue(page, 'trailing-floor')).toBe('$145,500.00');
    expect(await ruleValue(page, 'target')).toBe(`$0.00 / ${usd((await challengeOf(page, ended.accountId)).profitTarget)}`);
    await screenshot(page, 'challenges-ended');
    expect(errors).toEqual([]);
    await context.close();
  }, 90_000);
});
