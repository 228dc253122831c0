// Rewinding on the desk by branching (issue 30): "Step back" makes a branch at the previous bar's
// close and the desk switches to it, saying so; the original keeps what was done at the current bar
// (the API says so) and is resumed from the branch's chip. "Branch here" keeps what stood before
// the current bar (a position). The journal shows the family side by side with each one's
// statistics, and lists a branch under its parent. Screenshots at 1440×900 and 1280×720.
import { describe, expect, it } from 'bun:test';
import type { Page } from 'playwright-core';
import { closeClean, deskPage, jumpUntilClock, WAIT } from './desk-support.ts';
import { adminCli, browserStage, docScreenshot, noBrowser, screenshot } from './support.ts';

/** A current-family call made from the page with its cookie. */
function api(page: Page, path: string, body: unknown): Promise<any> {
  return page.evaluate(
    ([p, b]) => fetch(`/api/sim/${p}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(b) }).then((r) => r.json()),
    [path, body] as const,
  );
}

/** The session as the console's listing states it (GET /api/auth/replay-sessions/:id). */
const described = (page: Page, accountId: number): Promise<any> => page.evaluate((id) => fetch(`/api/auth/replay-sessions/${id}`).then((r) => r.json()), accountId);

async function rows(page: Page, testid: string): Promise<string[][]> {
  return page.$$eval(`[data-testid=${testid}] tbody tr`, (trs: any[]) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td: any) => td.textContent.trim())));
}

const current = (page: Page) => page.evaluate("Number(localStorage.getItem('rd.desk.current'))") as Promise<number>;

/** A 1 m NQ session started on the desk on `date`, drawn and live; its account and contract. */
async function startSession(page: Page, date: string, account?: number): Promise<{ accountId: number; contractId: string }> {
  await page.waitForSelector('[data-testid=start-form] select[name=contract] option', { state: 'attached' });
  await page.fill('input[name=startDate]', date);
  await page.selectOption('select[name=timeframe]', '1m');
  if (account !== undefined) await page.selectOption('select[name=account]', String(account));
  await page.click('text=Start replay');
  await page.waitForSelector('[data-testid=desk]', WAIT);
  await page.waitForFunction("Number(document.querySelector('[data-testid=chart]')?.dataset.bars) > 0 && !document.querySelector('.chart-loading')", undefined, WAIT);
  await page.waitForSelector('[data-testid=link][data-state=up]', WAIT);
  const accountId = await current(page);
  const contractId = JSON.parse((await page.evaluate(`localStorage.getItem('rd.desk.session.${accountId}')`)) as string).contract.id;
  // The session the desk shows is the one asked for (a start date typed and kept), at its first bar.
  const shown = await described(page, accountId);
  expect({ start: shown.startTime.slice(0, 10), index: shown.currentIndex }).toEqual({ start: date, index: 0 });
  return { accountId, contractId };
}

/** Clicks `button` (step-back, branch-here) and waits until the desk is on another session, drawn; that session's account. */
async function branchOnDesk(page: Page, button: string, from: number): Promise<number> {
  await page.click(`[data-testid=${button}]`);
  await page.waitForFunction(`Number(localStorage.getItem('rd.desk.current')) !== ${from}`, undefined, WAIT);
  await page.waitForSelector('[data-testid=branch-parent]', WAIT);
  await page.waitForFunction("Number(document.querySelector('[data-testid=chart]')?.dataset.bars) > 0 && !document.querySelector('.chart-loading')", undefined, WAIT);
  return current(page);
}

const clockText = (page: Page) => page.textContent('[data-testid=sim-time]').then((t) => (t ?? '').trim());

describe.skipIf(noBrowser)('console: step back and branch on the desk, and the family in the journal', () => {
  const stage = browserStage();

  it('Step back after an order at the current bar: the desk is on a branch at the previous close without it, says so, and the original keeps it', async () => {
    const opened = await deskPage(stage);
    const { page } = opened;
    const { accountId, contractId } = await startSession(page, '2025-03-04');
    // At the session's first bar there is nothing to step back to: disabled, with the reason.
    expect(await page.isDisabled('[data-testid=step-back]')).toBe(true);
    expect(await page.getAttribute('[data-testid=step-back]', 'title')).toBe('At the session’s first bar: there is no earlier bar to step back to');
    await jumpUntilClock(page, '2025-03-04 10:00', '2025-03-04 10:00:00');
    const placed = await api(page, 'Order/place', { accountId, contractId, type: 2, side: 0, size: 1 });
    expect(placed.success).toBe(true);
    await page.waitForSelector('[data-testid=positions] tbody tr', WAIT);

    const branchId = await branchOnDesk(page, 'step-back', accountId);
    expect(branchId).not.toBe(accountId);
    const parentName = (await described(page, accountId)).name;
    expect(await page.textContent('[data-testid=branch-note]')).toBe(`Stepped back to 09:59 UTC on a branch of ${parentName}; the original session is kept (Journal / live sessions)`);
    expect((await page.textContent('[data-testid=branch-parent]'))!.trim()).toBe(`Branch of ${parentName} at 09:59 UTC · resume`);
    // The clock is the server's, the branch time.
    const branch = await described(page, branchId);
    expect(branch.currentTime).toBe('2025-03-04T09:59:00Z');
    expect(branch.branch).toEqual({ parentAccountId: accountId, time: '2025-03-04T09:59:00Z', practiceOf: null });
    await page.waitForFunction("document.querySelector('[data-testid=sim-time]').textContent.trim() === '2025-03-04 09:59:00'", undefined, WAIT);
    // The order is not on the branch; the original still has it, and its position.
    expect((await api(page, 'Order/search', { accountId: branchId, startTimestamp: '2025-01-01T00:00:00Z' })).orders).toEqual([]);
    expect((await api(page, 'Position/searchOpen', { accountId: branchId })).positions).toEqual([]);
    expect((await api(page, 'Order/search', { accountId, startTimestamp: '2025-01-01T00:00:00Z' })).orders.map((o: any) => o.id)).toEqual([placed.orderId]);
    expect((await api(page, 'Position/searchOpen', { accountId })).positions.map((p: any) => [p.type, p.size])).toEqual([[1, 1]]);
    expect(await rows(page, 'positions')).toEqual([]);
    await docScreenshot(page, 'desk-branch-1440');
    await page.setViewportSize({ width: 1280, height: 720 });
    await docScreenshot(page, 'desk-branch-1280');
    await page.setViewportSize({ width: 1440, height: 900 });

    // The note goes once the branch moves on; the chip stays.
    await page.click('[data-testid=step]');
    await page.waitForSelector('[data-testid=branch-note]', { state: 'detached', ...WAIT });
    expect(await clockText(page)).toBe('2025-03-04 10:00:00');
    // The chip resumes the original, which still has its position.
    await page.click('[data-testid=branch-parent]');
    await page.waitForFunction(`Number(localStorage.getItem('rd.desk.current')) === ${accountId}`, undefined, WAIT);
    await page.waitForSelector('[data-testid=positions] tbody tr', WAIT);
    expect((await rows(page, 'positions'))[0].slice(0, 2)).toEqual(['Long', '1']);
    expect(await page.$('[data-testid=branch-parent]')).toBeNull();

    // ← steps back as the button does (keys.ts): the original again to 09:59, without its order.
    await page.click('[data-testid=sim-time]'); // the desk's keys, not a field's
    await page.keyboard.press('ArrowLeft');
    await page.waitForFunction(`![${accountId}, ${branchId}].includes(Number(localStorage.getItem('rd.desk.current')))`, undefined, WAIT);
    await page.waitForSelector('[data-testid=branch-note]', WAIT);
    const byKey = await current(page);
    expect((await described(page, byKey)).branch).toEqual({ parentAccountId: accountId, time: '2025-03-04T09:59:00Z', practiceOf: null });
    expect((await api(page, 'Position/searchOpen', { accountId: byKey })).positions).toEqual([]);
    await closeClean(opened);
  }, 240_000);

  it('Branch here keeps the position held before the current bar; the journal shows the family side by side and lists the branch under its parent', async () => {
    const opened = await deskPage(stage);
    const { page } = opened;
    const { accountId, contractId } = await startSession(page, '2025-03-05');
    await jumpUntilClock(page, '2025-03-05 14:30', '2025-03-05 14:30:00');
    expect((await api(page, 'Order/place', { accountId, contractId, type: 2, side: 0, size: 2 })).success).toBe(true);
    await page.waitForSelector('[data-testid=positions] tbody tr', WAIT);
    await jumpUntilClock(page, '2025-03-05 14:40', '2025-03-05 14:40:00');

    const branchId = await branchOnDesk(page, 'branch-here', accountId);
    const parentName = (await described(page, accountId)).name;
    expect(await page.textContent('[data-testid=branch-note]')).toBe(`Branched at 14:40 UTC on a branch of ${parentName}; the original session is kept (Journal / live sessions)`);
    await page.waitForFunction("document.querySelector('[data-testid=sim-time]').textContent.trim() === '2025-03-05 14:40:00'", undefined, WAIT);
    expect((await described(page, branchId)).currentTime).toBe('2025-03-05T14:40:00Z');
    await page.waitForSelector('[data-testid=positions] tbody tr', WAIT);
    expect((await rows(page, 'positions'))[0].slice(0, 2)).toEqual(['Long', '2']);
    expect((await api(page, 'Position/searchOpen', { accountId: branchId })).positions.map((p: any) => [p.type, p.size])).toEqual([[1, 2]]);

    // Two different endings: the original sells at 15:00, the branch at 14:50; both ended.
    expect((await api(page, 'Order/place', { accountId: branchId, contractId, type: 2, side: 1, size: 2 })).success).toBe(true);
    await api(page, 'Replay/jumpTo', { accountId: branchId, targetTime: '2025-03-05T14:50:00Z' });
    await api(page, 'Replay/jumpTo', { accountId, targetTime: '2025-03-05T15:00:00Z' });
    expect((await api(page, 'Order/place', { accountId, contractId, type: 2, side: 1, size: 2 })).success).toBe(true);
    await api(page, 'Replay/step', { accountId, steps: 1 });
    expect((await api(page, 'Replay/end', { accountId: branchId })).success).toBe(true);
    expect((await api(page, 'Replay/end', { accountId })).success).toBe(true);
    const journal: any[] = ((await page.evaluate(() => fetch('/api/auth/journal').then((r) => r.json()))) as any).sessions;
    const stats = (id: number) => journal.find((s) => s.accountId === id).results;

    await page.goto(`${stage.server.base}/#/journal?id=${branchId}`);
    await page.waitForSelector('[data-testid=family-table] tbody tr', WAIT);
    const family = await rows(page, 'family-table');
    const money = (n: number) => new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' }).format(n);
    for (const [i, id] of [accountId, branchId].entries()) {
      const r = stats(id);
      expect(r.totalTrades).toBe(1);
      expect(family[i].slice(2, 6)).toEqual(['1', `${r.winRate.toFixed(1)}%`, money(r.totalPnl), money(r.totalPnl)]);
    }
    expect(family.map((r) => r[1])).toEqual(['root', '2025-03-05 14:40']);
    expect(stats(accountId).totalPnl).not.toBe(stats(branchId).totalPnl);
    expect(await page.getAttribute('[data-testid=family-table] tr[data-current=true]', 'data-account-id')).toBe(String(branchId));
    await page.locator('[data-testid=journal-family]').scrollIntoViewIfNeeded();
    await docScreenshot(page, 'journal-family-1440');
    await page.setViewportSize({ width: 1280, height: 720 });
    await docScreenshot(page, 'journal-family-1280');
    await page.setViewportSize({ width: 1440, height: 900 });

    // The root's row links to its detail, which shows the same family with the root highlighted.
    await page.click(`[data-testid=family-table] tr[data-account-id="${accountId}"] a`);
    await page.waitForSelector(`[data-testid=family-table] tr[data-current=true][data-account-id="${accountId}"]`, WAIT);
    // In the list the branch follows its parent, marked.
    await page.goto(`${stage.server.base}/#/journal`);
    await page.waitForSelector('[data-testid=journal-sessions] tbody tr', WAIT);
    const order = await page.$$eval('[data-testid=journal-sessions] tbody tr', (trs: any[]) => trs.map((tr) => Number(tr.dataset.accountId)));
    expect(order.indexOf(branchId)).toBe(order.indexOf(accountId) + 1);
    expect((await page.textContent(`[data-testid=journal-sessions] tr[data-account-id="${branchId}"] [data-testid=branch-mark]`))!.trim()).toBe(`↳ branch of ${accountId} at 2025-03-05 14:40`);
    await closeClean(opened);
  }, 240_000);

  it('a challenge session’s branch is practice: marked so, its own rule state shown, never the evaluation’s, and no payout anywhere; while playing, branching waits for a pause', async () => {
    const ch = adminCli(stage.server, ['challenge', 'create', '--email', stage.server.creds.userName, '--plan', '50K']);
    const opened = await deskPage(stage);
    const { page } = opened;
    const { accountId } = await startSession(page, '2025-03-11', ch.accountId);
    await jumpUntilClock(page, '2025-03-11 15:00', '2025-03-11 15:00:00');
    await page.click('[data-testid=play]');
    await page.waitForFunction("document.querySelector('[data-testid=step-back]').disabled && document.querySelector('[data-testid=branch-here]').disabled", undefined, WAIT);
    expect(await page.getAttribute('[data-testid=step-back]', 'title')).toBe('Pause first: a branch starts from a bar that stays put');
    await page.click('[data-testid=play]');
    await page.waitForFunction("!document.querySelector('[data-testid=branch-here]').disabled", undefined, WAIT);

    const branchId = await branchOnDesk(page, 'branch-here', accountId);
    const info = await described(page, branchId);
    expect([info.challenge, info.branch.practiceOf]).toEqual([null, ch.accountId]);
    expect((await page.textContent('[data-testid=branch-practice]'))!.trim()).toBe('practice');
    await screenshot(page, 'desk-branch-practice');
    // Its rules are shown from its own state; the challenge's evaluation (GET /api/auth/challenges) is never read for it.
    await page.waitForSelector('[data-testid=challenge]', WAIT);
    expect((await page.textContent('[data-testid=challenge] .ch-sub .mono'))!.trim()).toBe(`Practice · rules of challenge ${ch.accountId}`);
    const heads = await page.$$eval('[data-testid=challenge] h3, [data-testid=challenge-phase]', (els: any[]) => els.map((e) => e.textContent.trim()));
    expect(heads).toEqual(['Practice rules', 'Practice of the evaluation']);
    await page.click('[data-testid=step]');
    await page.waitForSelector('[data-testid=branch-note]', { state: 'detached', ...WAIT });
    await page.waitForTimeout(1500);
    expect(await page.getAttribute('[data-testid=challenge]', 'data-detail-status')).toBeNull();
    expect(await page.$$eval('[data-testid=desk] button, [data-testid=desk] a', (els: any[]) => els.filter((e) => /payout|withdraw/i.test(e.textContent)).length)).toBe(0);
    await closeClean(opened);
  }, 240_000);

  it('Branch at… a typed time: a time not yet played is refused in the trader’s words; a played bar’s close branches there', async () => {
    const opened = await deskPage(stage);
    const { page } = opened;
    const { accountId } = await startSession(page, '2025-03-06');
    await jumpUntilClock(page, '2025-03-06 10:00', '2025-03-06 10:00:00');
    await page.fill('input[name=branchAt]', '2025-03-06 11:00');
    await page.click('[data-testid=branch-at]');
    await page.waitForSelector('.desk-bar .error', WAIT);
    expect((await page.textContent('.desk-bar .error'))!.trim()).toBe(
      "Branch at: 2025-03-06 11:00 UTC is not a bar already played; pick a time after the session's start, 2025-03-06 00:00 UTC, and at most its clock, 2025-03-06 10:00 UTC",
    );
    await page.fill('input[name=branchAt]', '2025-03-06 09:30');
    const branchId = await branchOnDesk(page, 'branch-at', accountId);
    const parentName = (await described(page, accountId)).name;
    expect(await page.textContent('[data-testid=branch-note]')).toBe(`Branched at 09:30 UTC on a branch of ${parentName}; the original session is kept (Journal / live sessions)`);
    expect((await described(page, branchId)).currentTime).toBe('2025-03-06T09:30:00Z');
    await page.waitForFunction("document.querySelector('[data-testid=sim-time]').textContent.trim() === '2025-03-06 09:30:00'", undefined, WAIT);
    expect(await page.$('.desk-bar .error')).toBeNull();
    await closeClean(opened);
  }, 240_000);
});
