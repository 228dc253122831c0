// The journal in a real browser: a session a bot traded and ended is listed with its statistics;
// opened, it shows its round trips with their P&L, its balance curve and its chart with the trades
// marked (read-only: no ticket, no session controls); notes on the session and on a trade are kept
// by the server (a reload shows them), at 1440×900 and 1280×720.
import { describe, expect, it } from 'bun:test';
import type { Page } from 'playwright-core';
import { browserStage, docScreenshot, loginThroughForm, newPage, noBrowser, type Server, simCaller } from './support.ts';

/** A 5 m NQ session: three round trips (long, short, long) over a morning, then ended. */
async function tradedSession(server: Server): Promise<number> {
  const call = await simCaller(server);
  const s = await call('Replay/start', { instrumentSymbol: 'NQ', startDate: '2025-03-03', endDate: '2025-03-04', timeframe: '5m' });
  const accountId: number = s.accountId;
  const contractId: string = s.instrument.contractId;
  const market = (side: number, size: number) => call('Order/place', { accountId, contractId, type: 2, side, size });
  await call('Replay/jumpTo', { accountId, targetTime: '2025-03-03T14:30:00Z' });
  for (const [side, size, bars] of [[0, 2, 6], [1, 2, 9], [1, 1, 7], [0, 1, 12], [0, 1, 5], [1, 1, 10]]) {
    await market(side, size);
    await call('Replay/step', { accountId, steps: bars });
  }
  await call('Replay/end', { accountId });
  return accountId;
}

async function rows(page: Page, testid: string): Promise<string[][]> {
  return page.$$eval(`[data-testid=${testid}] tbody tr`, (trs: any[]) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td: any) => (td.querySelector('input')?.value ?? td.textContent).trim())));
}

describe.skipIf(noBrowser)('console: the journal', () => {
  const stage = browserStage();

  it('lists an ended session, opens its trades, curve and marked chart, and keeps notes', async () => {
    const accountId = await tradedSession(stage.server);
    const journal = await (await fetch(`${stage.server.base}/api/auth/journal`, { headers: { cookie: '' } })).status;
    expect(journal).toBe(401);
    const { page, errors, context } = await newPage(stage.browser);
    await loginThroughForm(page, stage.server);
    await page.click('nav >> text=Journal');
    await page.waitForSelector('[data-testid=journal-sessions]');
    const listed = await rows(page, 'journal-sessions');
    expect(listed).toHaveLength(1);
    // Ended · instrument · timeframe · replayed span · trades · win rate · net · PF · max DD · note
    expect(listed[0][2]).toBe('5m');
    expect(listed[0][3]).toBe('2025-03-03 00:00 → 2025-03-03 18:35');
    expect(listed[0][4]).toBe('3');

    await page.click(`[data-account-id="${accountId}"]`);
    await page.waitForSelector('[data-testid=journal-trades]');
    expect(page.url()).toContain(`#/journal?id=${accountId}`);
    const trades = await rows(page, 'journal-trades');
    expect(trades.map((r) => r.slice(0, 3))).toEqual([['1', 'Long', '2'], ['2', 'Short', '1'], ['3', 'Long', '1']]);
    expect(trades[0][3]).toBe('2025-03-03 14:30:00');
    // The statistics are the server's: the sum of the rows is the net P&L shown.
    const api = await page.evaluate(`fetch('/api/auth/journal/${accountId}').then((r) => r.json())`) as any;
    expect(api.trades.map((t: any) => t.pnl)).toHaveLength(3);
    expect(await page.textContent('[data-testid=stat-trades]')).toBe('3');
    // The header names the contract traded on the replayed date, beside the API's name for today's front.
    expect((await page.textContent('[data-testid=journal-contract] [data-testid=replayed-contract]'))?.trim()).toBe('NQH5');
    expect((await page.textContent('[data-testid=journal-contract] [data-testid=contract-name]'))?.trim()).toBe(`API ${api.contract.name}`);
    expect(Math.round(api.trades.reduce((a: number, t: any) => a + t.pnl, 0) * 100) / 100).toBe(api.results.totalPnl);
    // The chart: every bar the session showed (history and played), one marker per entry and exit.
    await page.waitForSelector('[data-testid=journal-chart][data-state=ready]');
    expect(Number(await page.getAttribute('[data-testid=journal-chart]', 'data-bars'))).toBe(api.historyBars + api.barsPlayed);
    expect(await page.getAttribute('[data-testid=journal-chart]', 'data-markers')).toBe('6');
    expect(await page.getAttribute('[data-testid=equity-chart]', 'data-points')).toBe(String(api.equity.length));
    expect(await page.getAttribute('[data-testid=equity-chart]', 'data-last-equity')).toBe(String(api.results.finalBalance));
    // Read-only: nothing here trades or moves a session.
    expect(await page.$('[data-testid=ticket]')).toBeNull();
    expect(await page.$('[data-testid=step]')).toBeNull();

    await page.fill('[data-testid=note-session]', 'Faded the open twice; the trend day punished the short.');
    await page.click('[data-testid=save-note-session]');
    await page.waitForSelector('[data-testid=note-saved-session]');
    await page.fill('[data-testid=note-2]', 'Shorted into strength: wait for a lower high.');
    await page.press('[data-testid=note-2]', 'Enter');
    await page.waitForSelector('[data-testid=note-saved-2]');
    await page.mouse.move(5, 895);
    await page.evaluate('document.activeElement.blur(); window.scrollTo(0, 0)');
    await docScreenshot(page, 'journal');
    await page.setViewportSize({ width: 1280, height: 720 });
    await page.evaluate('window.scrollTo(0, 0)');
    await docScreenshot(page, 'journal-1280');

    await page.reload();
    await page.waitForSelector('[data-testid=journal-trades]');
    expect(await page.inputValue('[data-testid=note-session]')).toBe('Faded the open twice; the trend day punished the short.');
    expect(await page.inputValue('[data-testid=note-2]')).toBe('Shorted into strength: wait for a lower high.');
    expect(await page.inputValue('[data-testid=note-1]')).toBe('');
    await page.click('[data-testid=journal-back]');
    await page.waitForSelector('[data-testid=journal-sessions]');
    expect((await rows(page, 'journal-sessions'))[0][9]).toBe('Faded the open twice; the trend day punished the short.');
    // The sign-in page's first /me is a 401 by design.
    expect(errors.filter((e) => !e.includes('/api/auth/me'))).toEqual([]);
    await context.close();
  }, 120_000);
});

describe.skipIf(noBrowser)('console: the journal of a December 2024 session', () => {
  // A server whose data is early December 2024: NQ's front month then was NQZ4 (it rolled to NQH5 on
  // 12 December, eight days before the third Friday).
  const stage = browserStage({ DATA_START_DATE: '2024-12-02', DATA_END_DATE: '2024-12-06' });

  it('reads the front month of the replayed date in the header and the list, the API name beside it', async () => {
    const call = await simCaller(stage.server);
    const s = await call('Replay/start', { instrumentSymbol: 'NQ', startDate: '2024-12-03', timeframe: '5m' });
    await call('Replay/step', { accountId: s.accountId, steps: 3 });
    await call('Replay/end', { accountId: s.accountId });
    const { page, errors, context } = await newPage(stage.browser);
    await loginThroughForm(page, stage.server);
    await page.goto(`${stage.server.base}/#/journal?id=${s.accountId}`);
    await page.waitForSelector('[data-testid=journal-contract]');
    const api = (await page.evaluate(`fetch('/api/auth/journal/${s.accountId}').then((r) => r.json())`)) as any;
    expect(api.currentTime.slice(0, 10)).toBe('2024-12-03');
    expect(await page.textContent('[data-testid=journal-contract] [data-testid=replayed-contract]')).toBe('NQZ4');
    expect(await page.textContent('[data-testid=journal-contract] [data-testid=contract-name]')).toBe(`API ${api.contract.name}`);
    await page.click('[data-testid=journal-back]');
    await page.waitForSelector('[data-testid=journal-sessions]');
    expect((await rows(page, 'journal-sessions'))[0][1]).toStartWith('NQZ4');
    expect(errors.filter((e) => !e.includes('/api/auth/me'))).toEqual([]);
    await context.close();
  }, 120_000);
});
