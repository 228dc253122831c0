// The journal that teaches, in a real browser at 1440×900 and 1280×720: a trade picked in the
// table zooms the chart to it (its entry, stop and exit drawn as lines); marks of one bar merge
// into one; each trade shows its R (or "no stop"), MAE and MFE, prices to the tick; the session's
// calendar of daily P&L by CME trading day and the list's calendar across sessions show the
// server's figures; a tag typed on a trade filters the trades and the list.
import { describe, expect, it } from 'bun:test';
import type { Page } from 'playwright-core';
import { browserStage, docScreenshot, loginThroughForm, newPage, noBrowser, type Server, simCaller } from './support.ts';

/**
 * A 5 m NQ session over Monday and Tuesday: a long with a 400-tick stop-loss bracket, a short
 * without a stop, two round trips inside one bar (their four marks merge into two), and a long on
 * Tuesday; then ended.
 */
async function tradedSession(server: Server): Promise<number> {
  const call = await simCaller(server);
  const s = await call('Replay/start', { instrumentSymbol: 'NQ', startDate: '2025-03-03', endDate: '2025-03-05', timeframe: '5m' });
  const { accountId } = s;
  // [side, size, bars stepped after] (a jump instead, for a time); the first order with its bracket.
  const orders: Array<[number, number, number | string]> = [
    [0, 2, 6], [1, 2, 0], [1, 1, 9], [0, 1, 12], [0, 1, 0], [1, 1, 0], [0, 1, 0], [1, 1, '2025-03-04T15:00:00Z'], [0, 1, 8], [1, 1, 0],
  ];
  await call('Replay/jumpTo', { accountId, targetTime: '2025-03-03T14:30:00Z' });
  for (const [i, [side, size, then]] of orders.entries()) {
    await call('Order/place', { accountId, contractId: s.instrument.contractId, type: 2, side, size, ...(i === 0 ? { stopLossBracket: { ticks: 400 } } : {}) });
    if (typeof then === 'string') await call('Replay/jumpTo', { accountId, targetTime: then });
    else if (then > 0) await call('Replay/step', { accountId, steps: then });
  }
  await call('Replay/end', { accountId });
  return accountId;
}

const money = (v: number) => `${v < 0 ? '-' : ''}$${Math.abs(v).toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;

async function cells(page: Page, row: string): Promise<string[]> {
  return page.$$eval(`[data-testid=journal-trades] tr[data-trade="${row}"] td`, (tds: any[]) => tds.map((td) => (td.querySelector('input')?.value ?? td.textContent).trim()));
}

const viewOf = async (page: Page) => ({
  from: Date.parse((await page.getAttribute('[data-testid=journal-chart]', 'data-view-from')) ?? ''),
  to: Date.parse((await page.getAttribute('[data-testid=journal-chart]', 'data-view-to')) ?? ''),
});

describe.skipIf(noBrowser)('console: a journal that teaches', () => {
  const stage = browserStage({ DATA_START_DATE: '2025-03-03', DATA_END_DATE: '2025-03-05' });

  it('zooms to a picked trade, merges the marks of one bar, shows R, MAE/MFE, the daily P&L calendar, and filters by tag', async () => {
    const accountId = await tradedSession(stage.server);
    const { page, errors, context } = await newPage(stage.browser);
    await loginThroughForm(page, stage.server);
    await page.goto(`${stage.server.base}/#/journal?id=${accountId}`);
    await page.waitForSelector('[data-testid=journal-chart][data-state=ready]');
    await page.waitForSelector('[data-testid=trade-r-1]');
    const review = (await page.evaluate(`fetch('/api/auth/journal/${accountId}/review?timeZone=UTC').then((r) => r.json())`)) as any;
    expect(review.trades).toHaveLength(5);
    // Ten entries and exits, seven marks: trade 1's exit and trade 2's entry are sells of one bar, and trades 3
    // and 4 open and close in one bar (two buys, two sells).
    expect(await page.getAttribute('[data-testid=journal-chart]', 'data-markers')).toBe('7');

    // The row says what the server says: prices to the tick, R from the bracket's stop, "no stop" without one.
    const [t1, t2] = review.trades;
    expect(t1.initialStop).toBe(t1.entryPrice - 100);
    const row1 = await cells(page, '1');
    expect(row1.slice(0, 3)).toEqual(['1', 'Long', '2']);
    expect(row1[4]).toBe(t1.entryPrice.toFixed(2));
    expect(row1[7]).toBe('30m 00s');
    expect(row1[8]).toBe(money(t1.pnl));
    expect(row1[9]).toBe(`${t1.rMultiple >= 0 ? '+' : ''}${t1.rMultiple.toFixed(2)}R`);
    expect([row1[10], row1[11]]).toEqual([money(t1.mae), money(t1.mfe)]);
    expect((await cells(page, '2'))[9]).toBe('no stop');

    // Picking trade 2 zooms the chart to it: its entry and exit in view, at most 12 bars (an hour) either side.
    const before = await viewOf(page);
    await page.click('[data-testid=journal-trades] tr[data-trade="2"] td:nth-child(2)');
    await page.waitForSelector('[data-testid=journal-chart][data-picked="2"]');
    // The zoom lands after the pick is marked: wait for the view to narrow (the whole span's view also reaches the exit).
    await page.waitForFunction(
      `(() => { const d = document.querySelector('[data-testid=journal-chart]').dataset; return Date.parse(d.viewTo) >= ${Date.parse(t2.exitTime)} && Date.parse(d.viewFrom) >= ${Date.parse(t2.entryTime) - 65 * 60_000}; })()`,
    );
    const after = await viewOf(page);
    expect(after.from).toBeLessThanOrEqual(Date.parse(t2.entryTime));
    expect(after.to).toBeGreaterThanOrEqual(Date.parse(t2.exitTime));
    expect(after.from).toBeGreaterThanOrEqual(Date.parse(t2.entryTime) - 65 * 60_000);
    expect(after.to).toBeLessThanOrEqual(Date.parse(t2.exitTime) + 65 * 60_000);
    expect(after.to - after.from).toBeLessThan(before.to - before.from);
    expect(await page.getAttribute('[data-testid=journal-chart]', 'data-price-lines')).toBe('2');
    expect(await page.getAttribute('tr[data-trade="2"]', 'class')).toContain('picked');

    // The session's calendar: Monday and Tuesday with the server's figures, the week's total beside them.
    const days = review.stats.calendar;
    expect(days.map((d: any) => d.date)).toEqual(['2025-03-03', '2025-03-04']);
    for (const d of days) expect(await page.textContent(`[data-testid=session-review] [data-testid=calendar-day-${d.date}] .cal-pnl`)).toBe(money(d.pnl));
    const week = Math.round((days[0].pnl + days[1].pnl) * 100) / 100;
    expect((await page.textContent('[data-testid=session-review] [data-testid=calendar-week-2025-03-03]'))?.trim()).toBe(money(week));
    expect(await page.textContent('[data-testid=session-review] [data-testid=stat-expectancy]')).toBe(money(review.stats.expectancy));

    await page.mouse.move(5, 895);
    await docScreenshot(page, 'journal-zoom');
    await page.setViewportSize({ width: 1280, height: 720 });
    // By keyboard: Tab to a row, Enter picks it.
    await page.focus('[data-testid=journal-trades] tr[data-trade="5"]');
    await page.keyboard.press('Enter');
    await page.waitForSelector('[data-testid=journal-chart][data-picked="5"]');
    await page.mouse.move(5, 715);
    await docScreenshot(page, 'journal-zoom-1280');
    await page.evaluate(`document.querySelector('[data-testid=session-review]').scrollIntoView()`);
    await docScreenshot(page, 'journal-calendar-1280');

    // The list: what all sessions teach, under them; then a tag typed on a trade filters the trades and the list.
    await page.click('[data-testid=journal-back]');
    await page.waitForSelector('[data-testid=journal-summary] [data-testid=pnl-calendar]');
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.mouse.move(5, 895);
    await docScreenshot(page, 'journal-calendar');

    await page.goto(`${stage.server.base}/#/journal?id=${accountId}`);
    await page.waitForSelector('[data-testid=tags-1]');
    await page.fill('[data-testid=tags-1]', 'A+ Setup, trend');
    await page.press('[data-testid=tags-1]', 'Enter');
    await page.waitForFunction(`document.querySelector('[data-testid=tags-1]').value === 'a+ setup, trend'`);
    await page.selectOption('[data-testid=trade-tag-filter]', 'trend');
    await page.waitForFunction(`document.querySelectorAll('[data-testid=journal-trades] tbody tr').length === 1`);
    expect(await page.getAttribute('[data-testid=journal-trades] tbody tr', 'data-trade')).toBe('1');

    await page.click('[data-testid=journal-back]');
    await page.fill('[data-testid=journal-tag]', 'Trend');
    await page.click('[data-testid=journal-tag-apply]');
    await page.waitForSelector('[data-testid=journal-summary] >> text=trades tagged “trend” · 1 trades');
    // The one tagged trade's P&L is the expectancy of the tagged trades.
    expect(await page.textContent('[data-testid=journal-summary] [data-testid=stat-expectancy]')).toBe(money(t1.pnl));
    // In Chicago time (Settings' choice, kept in this browser) the hours of entry are CT's and say so; the trading days stay the CME's.
    await page.evaluate(`localStorage.setItem('rd.timeZone', 'America/Chicago')`);
    await page.reload();
    await page.fill('[data-testid=journal-tag]', '');
    await page.waitForSelector('[data-testid=journal-summary] >> text=By hour of entry (CT)');
    expect(await page.$$eval('[data-testid=journal-summary] [data-testid=by-hour] tbody td:first-child', (tds: any[]) => tds.map((td) => td.textContent))).toEqual(['08:00', '09:00', '10:00']);
    expect(await page.$$eval('[data-testid=journal-summary] .cal-day:not(.cal-empty) .cal-date', (s: any[]) => s.map((x) => x.textContent))).toEqual(['03-03', '03-04']);
    await page.goto(`${stage.server.base}/#/journal?id=${accountId}`);
    await page.waitForSelector('text=Chart · trades marked · times CT');
    expect((await cells(page, '1'))[3]).toBe('2025-03-03 08:30:00');
    await page.click('[data-testid=journal-back]');
    await page.fill('[data-testid=journal-tag]', 'nothing');
    await page.click('[data-testid=journal-tag-apply]');
    await page.waitForSelector('text=No ended session carries “nothing”.');
    expect(errors.filter((e) => !e.includes('/api/auth/me'))).toEqual([]);
    await context.close();
  }, 240_000);
});
