// The replay desk as a trader's daily tool (defects traders met), in a real browser against a server
// that holds more than a year of data: every held day can be started on, a month's jump draws at
// once, the hotkeys trade like the ticket, a session can be left and resumed, chips at one price do
// not hide each other, and times read one way.
import { describe, expect, it } from 'bun:test';
import type { Page } from 'playwright-core';
import { browserStage, loginThroughForm, newPage, noBrowser, screenshot } from './support.ts';

/** Longer than the 365 day bars one History read may hold: the range must come from the server. */
const SPAN = { DATA_START_DATE: '2024-01-01', DATA_END_DATE: '2025-03-14' };

async function text(page: Page, sel: string): Promise<string> {
  return ((await page.textContent(sel)) ?? '').trim();
}

async function chartAttr(page: Page, name: string): Promise<string> {
  return (await page.getAttribute('[data-testid=chart]', `data-${name}`)) ?? '';
}

/** `1,234 / 5,000` → [1234, 5000] */
async function progress(page: Page): Promise<[number, number]> {
  const [a, b] = (await text(page, '[data-testid=progress]')).split('/').map((s) => Number(s.replace(/[^0-9]/g, '')));
  return [a, b];
}

/** Rows of a table as arrays of cell texts. */
async function rows(page: Page, testid: string): Promise<string[][]> {
  return page.$$eval(`[data-testid=${testid}] tbody tr`, (trs: any[]) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td: any) => td.textContent.trim())));
}

async function openDesk(page: Page, stage: ReturnType<typeof browserStage>): Promise<void> {
  await loginThroughForm(page, stage.server);
  await page.goto(`${stage.server.base}/#/desk`);
  await page.waitForSelector('[data-testid=data-last]');
}

async function startSession(page: Page, date: string, timeframe = '1m'): Promise<void> {
  await page.fill('input[name=startDate]', date);
  await page.selectOption('select[name=timeframe]', timeframe);
  await page.click('text=Start replay');
  await page.waitForSelector('[data-testid=desk]');
  await page.waitForFunction("Number(document.querySelector('[data-testid=chart]')?.dataset.bars) > 0 && !document.querySelector('.chart-loading')");
}

describe.skipIf(noBrowser)('console: the desk reaches all the data and draws long jumps at once', () => {
  const stage = browserStage(SPAN);

  it('offers every day the server holds, and starts on the README’s 2025-03-03', async () => {
    const { page, errors, context } = await newPage(stage.browser);
    await openDesk(page, stage);
    expect(await text(page, '[data-testid=data-first]')).toBe('2024-01-01');
    expect(await text(page, '[data-testid=data-last]')).toBe('2025-03-14');
    expect(await page.getAttribute('input[name=startDate]', 'max')).toBe('2025-03-14');
    expect(await page.getAttribute('input[name=startDate]', 'min')).toBe('2024-01-01');
    await page.fill('input[name=startDate]', '2025-03-03');
    expect(await page.$eval('input[name=startDate]', (el: any) => el.validity.valid)).toBe(true);
    await startSession(page, '2025-03-03');
    await page.click('[data-testid=step]');
    await page.waitForFunction("document.querySelector('[data-testid=progress]').textContent.trim().startsWith('1 /')");
    expect(await text(page, '[data-testid=sim-time]')).toBe('2025-03-03 00:01:00');
    expect(errors.filter((e) => !e.includes('401'))).toEqual([]);
    await context.close();
  }, 120_000);

  it('a one-month jump on 1 m bars draws every bar, up to the jump’s time', async () => {
    const { page, errors, context } = await newPage(stage.browser);
    await openDesk(page, stage);
    await startSession(page, '2025-02-03');
    const history = Number(await chartAttr(page, 'bars'));
    expect(history).toBe(500);
    await page.fill('input[name=jumpTo]', '2025-03-03 00:00');
    const t0 = Date.now();
    await page.click('[data-testid=jump]');
    // Drawn: the chart's last bar is the last one before the jump's time (one setData puts every bar
    // in at once). Timed, not asserted (the machine is shared); the target is 1 s.
    await page.waitForFunction("document.querySelector('[data-testid=chart]').dataset.lastTime === '2025-03-02T23:59:00.000Z'", undefined, { timeout: 60_000 });
    const drawnMs = Date.now() - t0;
    const [played, total] = await progress(page);
    const load = (await Bun.file('/proc/loadavg').text()).split(' ').slice(0, 3).join(' ');
    console.log(`jump draw ms ${drawnMs}: one-month jump, ${played} bars of 1 m (chart append ${await chartAttr(page, 'append-ms')} ms; load ${load})`);
    expect(played).toBeGreaterThan(20_000);
    expect(played).toBeLessThan(total);
    expect(Number(await chartAttr(page, 'bars'))).toBe(history + played);
    expect(Number(await chartAttr(page, 'volume-bars'))).toBe(history + played);
    // The last bar drawn is the last one before the jump's time, and the clock (its close) reads the jump's time.
    expect(await chartAttr(page, 'last-time')).toBe('2025-03-02T23:59:00.000Z');
    expect(await text(page, '[data-testid=sim-time]')).toBe('2025-03-03 00:00:00');
    expect(errors.filter((e) => !e.includes('401'))).toEqual([]);
    await context.close();
  }, 120_000);
});

describe.skipIf(noBrowser)('console: the desk trades and leaves sessions as a trader expects', () => {
  const stage = browserStage();

  it('B places a market buy with the ticket’s stop-loss and take-profit, like the Buy button', async () => {
    const { page, errors, context } = await newPage(stage.browser);
    await openDesk(page, stage);
    await startSession(page, '2025-03-10');
    await page.click('[data-testid=step]');
    await page.waitForFunction("document.querySelector('[data-testid=progress]').textContent.trim().startsWith('1 /')");
    await page.fill('input[name=slTicks]', '40');
    await page.fill('input[name=tpTicks]', '80');
    await page.focus('[data-testid=step]');
    await page.keyboard.press('b');
    await page.waitForSelector('[data-testid=positions] tbody tr');
    await page.waitForFunction("document.querySelectorAll('[data-testid=orders] tbody tr').length === 2");
    const pos = (await rows(page, 'positions'))[0];
    expect(pos.slice(0, 2)).toEqual(['Long', '1']);
    const avg = Number(pos[2]);
    // NQ ticks are 0.25: 40 ticks under and 80 ticks over the fill.
    const legs = (await rows(page, 'orders')).map((r) => r.slice(1, 5));
    expect(legs).toContainEqual(['Sell', 'STP', '1', (avg - 10).toFixed(2)]);
    expect(legs).toContainEqual(['Sell', 'LMT', '1', (avg + 20).toFixed(2)]);
    expect(errors.filter((e) => !e.includes('401'))).toEqual([]);
    await context.close();
  }, 120_000);

  it('leaves a session without ending it, resumes it from the list, and asks before ending it', async () => {
    const { page, errors, context } = await newPage(stage.browser);
    await openDesk(page, stage);
    await startSession(page, '2025-03-11');
    const history = Number(await chartAttr(page, 'bars'));
    await page.click('[data-testid=step]');
    await page.keyboard.press('n');
    await page.waitForFunction("document.querySelector('[data-testid=progress]').textContent.trim().startsWith('2 /')");
    const [, total] = await progress(page);
    const accountId = Number(await page.evaluate("localStorage.getItem('rd.desk.current')"));

    // Leave: the start form again, with the session in the live list and a note saying so.
    await page.click('[data-testid=leave]');
    await page.waitForSelector(`[data-testid=live-sessions] tr[data-account-id="${accountId}"]`);
    expect(await text(page, '[data-testid=notice]')).toContain('is still live');
    // A reload opens on the start form: the page left the session.
    await page.reload();
    await page.waitForSelector(`[data-testid=live-sessions] tr[data-account-id="${accountId}"]`);
    expect(await page.$('[data-testid=desk]')).toBeNull();

    // Resume: where it stood, chart and progress.
    await page.click(`[data-testid=live-sessions] tr[data-account-id="${accountId}"] >> text=Resume`);
    await page.waitForSelector('[data-testid=desk]');
    await page.waitForFunction("Number(document.querySelector('[data-testid=chart]')?.dataset.bars) > 0 && !document.querySelector('.chart-loading')");
    expect(await progress(page)).toEqual([2, total]);
    expect(Number(await chartAttr(page, 'bars'))).toBe(history + 2);

    // End asks first; keeping it changes nothing.
    await page.click('[data-testid=end]');
    await page.waitForSelector('[data-testid=end-confirm]');
    await page.click('[data-testid=end-no]');
    expect(await page.$('[data-testid=end-confirm]')).toBeNull();
    await page.click('[data-testid=step]');
    await page.waitForFunction("document.querySelector('[data-testid=progress]').textContent.trim().startsWith('3 /')");
    expect(await page.$('[data-testid=final-result]')).toBeNull();
    await page.click('[data-testid=end]');
    await page.click('[data-testid=end-yes]');
    await page.waitForSelector('[data-testid=final-result]');

    // The live list's End asks too.
    await page.click('[data-testid=final-result] button');
    await startSession(page, '2025-03-12');
    const second = Number(await page.evaluate("localStorage.getItem('rd.desk.current')"));
    await page.click('[data-testid=leave]');
    const row = `[data-testid=live-sessions] tr[data-account-id="${second}"]`;
    await page.waitForSelector(row);
    expect(await page.$(`[data-testid=live-sessions] tr[data-account-id="${accountId}"]`)).toBeNull();
    await page.click(`${row} button:has-text("End")`);
    await page.waitForSelector(`${row} [data-testid=end-row-confirm]`);
    await page.click(`${row} >> text=Keep`);
    expect(await page.$(`${row} [data-testid=end-row-confirm]`)).toBeNull();
    await page.click(`${row} button:has-text("End")`);
    await page.click(`${row} [data-testid=end-row-confirm] button.sell`);
    await page.waitForSelector(row, { state: 'detached' });
    expect(errors.filter((e) => !e.includes('401'))).toEqual([]);
    await context.close();
  }, 120_000);

  it('chips of working orders at one price, or a tick apart, do not cover each other, and each cancels its order', async () => {
    const { page, errors, context } = await newPage(stage.browser);
    await openDesk(page, stage);
    await startSession(page, '2025-03-12');
    await page.click('[data-testid=step]');
    await page.waitForFunction("document.querySelector('[data-testid=progress]').textContent.trim().startsWith('1 /')");
    const last = Number(await chartAttr(page, 'last-close'));
    await page.click('.seg button[data-type=Limit]');
    const prices = [last - 5, last - 5, last - 5.25];
    for (const [i, p] of prices.entries()) {
      await page.fill('input[name=limitPrice]', p.toFixed(2));
      await page.click('[data-testid=buy]');
      await page.waitForFunction(`document.querySelectorAll('[data-testid=chart-orders] [data-order-id]').length === ${i + 1}`);
    }
    const boxes = await page.$$eval('[data-testid=chart-orders] [data-order-id]', (els: any[]) =>
      els.map((el) => {
        const r = el.getBoundingClientRect();
        return { id: Number(el.dataset.orderId), left: r.left, right: r.right, top: r.top, bottom: r.bottom };
      }),
    );
    const overlap = (a: (typeof boxes)[0], b: (typeof boxes)[0]) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
    for (const a of boxes) for (const b of boxes) if (a.id !== b.id) expect(overlap(a, b)).toBe(false);
    // Each chip's × cancels its own order, the lowest price's first.
    const ids = (await rows(page, 'orders')).map((r) => Number(r[0]));
    const byPrice = (await rows(page, 'orders')).sort((a, b) => Number(a[4]) - Number(b[4])).map((r) => Number(r[0]));
    for (const [n, id] of byPrice.entries()) {
      await page.click(`[data-testid=chart-orders] [data-order-id="${id}"] button`);
      await page.waitForFunction(`document.querySelectorAll('[data-testid=orders] tbody tr').length === ${ids.length - n - 1}`);
      expect((await rows(page, 'orders')).map((r) => Number(r[0]))).not.toContain(id);
    }
    // A price the engine refuses (at or below 0) is refused next to the ticket's prices, and no chip appears.
    await page.fill('input[name=limitPrice]', '-15.00');
    await page.click('[data-testid=buy]');
    await page.waitForSelector('[data-testid=ticket-price-error]');
    // In the ticket's words, not the API's field name (issue 30, defect 6).
    expect(await text(page, '[data-testid=ticket-price-error]')).toBe('Limit price must be greater than 0');
    expect(await page.$('[data-testid=chart-orders] [data-order-id]')).toBeNull();
    expect(errors.filter((e) => !e.includes('401'))).toEqual([]);
    await context.close();
  }, 120_000);

  it('reads one time everywhere: the clock is the close of the last bar, fills never later, the jump box in UTC 24-hour', async () => {
    const { page, errors, context } = await newPage(stage.browser);
    await openDesk(page, stage);
    await startSession(page, '2025-03-13');
    await page.click('[data-testid=step]');
    await page.keyboard.press('n');
    await page.keyboard.press('n');
    await page.waitForFunction("document.querySelector('[data-testid=progress]').textContent.trim().startsWith('3 /')");
    expect(await chartAttr(page, 'last-time')).toBe('2025-03-13T00:02:00.000Z');
    expect(await text(page, '[data-testid=sim-time]')).toBe('2025-03-13 00:03:00');
    // The jump box offers an hour after the clock, written as the clock is (no locale, no 12-hour time).
    expect(await page.getAttribute('input[name=jumpTo]', 'type')).toBe('text');
    expect(await page.inputValue('input[name=jumpTo]')).toBe('2025-03-13 01:03');

    // A market buy fills inside the played bars: never later than the clock.
    await page.focus('[data-testid=step]');
    await page.keyboard.press('b');
    await page.waitForSelector('[data-testid=fills] tbody tr');
    const fillTime = (await rows(page, 'fills'))[0][0];
    expect(fillTime).toMatch(/^2025-03-13 \d\d:\d\d:\d\d$/);
    expect(fillTime <= (await text(page, '[data-testid=sim-time]'))).toBe(true);

    // A jump to 13:30 leaves the clock at 13:30; a time that is not one is refused with the format.
    await page.fill('input[name=jumpTo]', '2025-03-13 13:30');
    await page.click('[data-testid=jump]');
    await page.waitForFunction("document.querySelector('[data-testid=sim-time]').textContent.trim() === '2025-03-13 13:30:00'");
    expect(await chartAttr(page, 'last-time')).toBe('2025-03-13T13:29:00.000Z');
    expect(await page.inputValue('input[name=jumpTo]')).toBe('2025-03-13 14:30');
    await page.fill('input[name=jumpTo]', '3/13/2025 2:30 PM');
    await page.click('[data-testid=jump]');
    await page.waitForSelector('.desk-bar .error');
    expect(await text(page, '.desk-bar .error')).toContain('YYYY-MM-DD HH:MM (UTC)');
    expect(await text(page, '[data-testid=sim-time]')).toBe('2025-03-13 13:30:00');
    expect(errors.filter((e) => !e.includes('401'))).toEqual([]);
    await context.close();
  }, 120_000);

  it('at 1280×720 the session bar stays on one line and the tables begin above the fold', async () => {
    const context = await stage.browser.newContext({ viewport: { width: 1280, height: 720 } });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await openDesk(page, stage);
    await startSession(page, '2025-03-14');
    await page.click('[data-testid=step]');
    await page.waitForFunction("document.querySelector('[data-testid=progress]').textContent.trim().startsWith('1 /')");
    // Every item of the bar (instrument, clock, each control) on one line.
    const tops = await page.$$eval('.bar-row > *, .bar-row .controls > *', (els: any[]) => els.map((el) => Math.round(el.getBoundingClientRect().top + el.getBoundingClientRect().height / 2)));
    expect(Math.max(...tops) - Math.min(...tops)).toBeLessThanOrEqual(4);
    // The tables' headings and column heads are on screen without scrolling, the chart right above them.
    for (const t of ['positions', 'orders', 'fills']) {
      const bottom = await page.$eval(`[data-testid=${t}] thead`, (el: any) => el.getBoundingClientRect().bottom);
      expect(bottom).toBeLessThanOrEqual(720);
    }
    const chartBottom = await page.$eval('.chart-wrap', (el: any) => el.getBoundingClientRect().bottom);
    const tablesTop = await page.$eval('.desk-below', (el: any) => el.getBoundingClientRect().top);
    expect(tablesTop - chartBottom).toBeLessThanOrEqual(12);
    await page.focus('[data-testid=step]');
    await screenshot(page, 'desk-1280');
    expect(errors).toEqual([]);
    await context.close();
  }, 120_000);

  it('an ended session shows its statistics (round trips, win rate, averages, largest, profit factor, drawdown) and keeps them', async () => {
    const { page, errors, context } = await newPage(stage.browser);
    await openDesk(page, stage);
    await startSession(page, '2025-03-06');
    const accountId = Number(await page.evaluate("localStorage.getItem('rd.desk.current')"));
    // Two round trips at market, ten bars each.
    for (let i = 0; i < 2; i++) {
      await page.focus('[data-testid=step]');
      await page.keyboard.press('b');
      await page.waitForSelector('[data-testid=positions] tbody tr');
      await page.keyboard.press('Shift+ArrowRight');
      await page.waitForFunction(`document.querySelector('[data-testid=progress]').textContent.trim().startsWith('${10 * (i + 1)} /')`);
      await page.keyboard.press('s');
      await page.waitForFunction(`document.querySelectorAll('[data-testid=fills] tbody tr').length === ${2 * (i + 1)}`);
      await page.waitForFunction("document.querySelectorAll('[data-testid=positions] tbody tr').length === 0");
    }
    await page.click('[data-testid=end]');
    await page.click('[data-testid=end-yes]');
    await page.waitForSelector('[data-testid=final-result] [data-testid=session-results]');
    const api: any = await page.evaluate(`fetch('/api/auth/replay-results/${accountId}').then((r) => r.json())`);
    const r = api.results;
    expect(r.totalTrades).toBe(2);
    const usd = (v: number) => v.toLocaleString('en-US', { style: 'currency', currency: 'USD' });
    const expected = {
      trades: `2 · ${r.winningTrades} won · ${r.losingTrades} lost`,
      'win-rate': `${r.winRate.toFixed(2)}%`,
      'average-win': usd(r.averageWin),
      'average-loss': usd(r.averageLoss),
      'largest-win': usd(r.largestWin),
      'largest-loss': usd(r.largestLoss),
      'profit-factor': r.profitFactor === null ? '— (no loss)' : r.profitFactor.toFixed(2),
      'max-drawdown': usd(r.maxDrawdown),
    };
    const shown = async (scope: string) =>
      Object.fromEntries(await Promise.all(Object.keys(expected).map(async (k) => [k, await text(page, `${scope} [data-testid=result-${k}]`)])));
    expect(await shown('[data-testid=final-result]')).toEqual(expected);
    expect(await text(page, '[data-testid=final-balance]')).toBe(usd(r.finalBalance));

    // Kept: the start form lists the ended session, and its statistics are the same.
    await page.click('[data-testid=final-result] button');
    const row = `[data-testid=ended-sessions] tr[data-account-id="${accountId}"]`;
    await page.waitForSelector(row);
    await page.click(`${row} button`);
    await page.waitForSelector('[data-testid=ended-sessions] [data-testid=session-results]');
    expect(await shown('[data-testid=ended-sessions]')).toEqual(expected);
    expect(errors.filter((e) => !e.includes('401'))).toEqual([]);
    await context.close();
  }, 120_000);

  it('a session started in one browser opens whole in another: chart, clock, last price and progress', async () => {
    const a = await newPage(stage.browser);
    await openDesk(a.page, stage);
    await startSession(a.page, '2025-03-07', '5m');
    const history = Number(await chartAttr(a.page, 'bars'));
    await a.page.click('[data-testid=step]');
    await a.page.keyboard.press('Shift+ArrowRight');
    await a.page.waitForFunction("document.querySelector('[data-testid=progress]').textContent.trim().startsWith('11 /')");
    const accountId = Number(await a.page.evaluate("localStorage.getItem('rd.desk.current')"));
    const clock = await text(a.page, '[data-testid=sim-time]');
    const last = await text(a.page, '[data-testid=last-price]');
    const lastTime = await chartAttr(a.page, 'last-time');

    // Another browser (its own storage): the session is in the live list and opens as it stands.
    const b = await newPage(stage.browser);
    await openDesk(b.page, stage);
    await b.page.click(`[data-testid=live-sessions] tr[data-account-id="${accountId}"] >> text=Resume`);
    await b.page.waitForSelector('[data-testid=desk]');
    await b.page.waitForFunction("Number(document.querySelector('[data-testid=chart]')?.dataset.bars) > 0 && !document.querySelector('.chart-loading')");
    expect(Number(await chartAttr(b.page, 'bars'))).toBe(history + 11);
    expect(await chartAttr(b.page, 'last-time')).toBe(lastTime);
    expect(await text(b.page, '[data-testid=sim-time]')).toBe(clock);
    expect(await text(b.page, '[data-testid=last-price]')).toBe(last);
    expect((await progress(b.page))[0]).toBe(11);
    expect(await text(b.page, '.desk-bar .chip')).toBe('5m');
    expect(await text(b.page, '[data-testid=balance]')).toBe('$50,000.00');
    expect(await text(b.page, '[data-testid=realized]')).toBe('$0.00');
    for (const x of [a, b]) {
      expect(x.errors.filter((e) => !e.includes('401'))).toEqual([]);
      await x.context.close();
    }
  }, 120_000);

});

// Its own server: the earlier family allows one live session a user, and the tests above leave theirs.
describe.skipIf(noBrowser)('console: a session a bot started through the earlier family', () => {
  const stage = browserStage();

  it('a session a bot started on trade dates (the earlier family, from 23:00Z the evening before) opens with its history before that time and its bars from it', async () => {
    const api = async (path: string, body: unknown, token?: string) => {
      const res = await fetch(`${stage.server.base}/api/legacy-sim/${path}`, {
        method: 'POST', headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) }, body: JSON.stringify(body),
      });
      return res.json() as Promise<any>;
    };
    const { userName, apiKey } = stage.server.creds;
    const token = (await api('Auth/loginKey', { userName, apiKey })).token as string;
    const started = await api('Replay/start', { instrumentSymbol: 'NQ', startDate: '2025-03-04', timeframe: '1m' }, token);
    expect(started).toMatchObject({ success: true, startTime: '2025-03-03T23:00:00Z' });
    expect((await api('Replay/step', { accountId: started.accountId, steps: 3 }, token)).success).toBe(true);

    const b = await newPage(stage.browser);
    await openDesk(b.page, stage);
    const info = await b.page.evaluate(async (id) => (await fetch(`/api/auth/replay-sessions/${id}`)).json(), started.accountId) as any;
    expect(info.historyBars).toBeGreaterThan(0);
    await b.page.click(`[data-testid=live-sessions] tr[data-account-id="${started.accountId}"] >> text=Resume`);
    await b.page.waitForSelector('[data-testid=desk]');
    await b.page.waitForFunction("Number(document.querySelector('[data-testid=chart]')?.dataset.bars) > 0 && !document.querySelector('.chart-loading')");
    // The history, then the three bars played from 23:00Z (not from that day's midnight).
    expect(Number(await chartAttr(b.page, 'bars'))).toBe(info.historyBars + 3);
    expect(await chartAttr(b.page, 'last-time')).toBe('2025-03-03T23:02:00.000Z');
    expect((await progress(b.page))[0]).toBe(3);
    expect(b.errors.filter((e) => !e.includes('401'))).toEqual([]);
    await api('Replay/end', { accountId: started.accountId }, token);
    await b.context.close();
  }, 120_000);
});
