// The playground in a real browser: a template run to completion (progress, statistics, equity and
// drawdown, trades in the table and on the price chart), a run of thousands of trades (every one on
// the chart, grouped by zoom; a row click moves the chart to its trade), a strategy saved and its run listed, a
// Python error pointed at the user's line, a paced run stopped midway, and a run started elsewhere
// followed (Run answered "already running") and stopped. Figures on the page are compared with the
// execution the server reports (read in the page, with the session cookie).
import { describe, expect, it } from 'bun:test';
import type { Page } from 'playwright-core';
import { loginThroughForm, newPage, noBrowser, screenshot, browserStage, PLAYGROUND_RUNNER } from './support.ts';

const RUN_TIMEOUT = 120_000;
const usd = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', minimumFractionDigits: 2, maximumFractionDigits: 2 });

async function text(page: Page, selector: string): Promise<string> {
  return ((await page.textContent(selector)) ?? '').trim();
}

async function data(page: Page, selector: string, name: string): Promise<string | null> {
  return page.$eval(selector, (el: any, n: string) => el.getAttribute(n), name);
}

/** GET on the API from inside the page (the HttpOnly cookie goes along). */
async function apiGet(page: Page, path: string): Promise<any> {
  return page.evaluate(`fetch(${JSON.stringify(path)}).then((r) => r.json())`);
}

async function setMarket(page: Page, m: { instrument: string; timeframe: string; startDate: string; endDate: string }) {
  await page.selectOption('select[name=instrument]', m.instrument);
  await page.selectOption('select[name=timeframe]', m.timeframe);
  await page.fill('input[name=startDate]', m.startDate);
  await page.fill('input[name=endDate]', m.endDate);
}

/** The execution the run header shows (null before any run). */
async function shownExecution(page: Page): Promise<string | null> {
  return page.$eval('[data-testid=run-head]', (el: any) => el.getAttribute('data-execution-id')).catch(() => null);
}

/**
 * Presses Run and waits for the new execution to end; returns its status as the page shows it.
 * The header must show another execution id first: the previous run's final status would otherwise
 * pass for this one's before it starts.
 */
async function runToEnd(page: Page): Promise<string> {
  const before = await shownExecution(page);
  await page.click('[data-testid=run]');
  await page.waitForFunction(
    `(() => {
      const h = document.querySelector('[data-testid=run-head]');
      const s = document.querySelector('[data-testid=run-status]');
      const id = h && h.getAttribute('data-execution-id');
      return !!id && id !== ${JSON.stringify(before)} && s && s.textContent !== 'running';
    })()`,
    undefined,
    { timeout: RUN_TIMEOUT },
  );
  return text(page, '[data-testid=run-status]');
}

/** POST on the playground from inside the page (the session cookie goes along, JSON for the CSRF guard). */
async function apiPost(page: Page, path: string, body: unknown): Promise<any> {
  return page.evaluate(
    `fetch(${JSON.stringify(path)}, { method: 'POST', headers: { 'content-type': 'application/json' }, body: ${JSON.stringify(JSON.stringify(body))} }).then((r) => r.json())`,
  );
}

/** The log lines the Logs tab shows: [bar time as shown, text]. */
async function shownLogs(page: Page): Promise<[string, string][]> {
  return page.$$eval('[data-testid=logs] .pg-log-line', (els: any[]) =>
    els.map((e) => [e.querySelector('[data-testid=log-time]').textContent, e.querySelector('[data-testid=log-text]').textContent]),
  );
}

/** A line's bar time as the Logs tab shows it (UTC, to the second; blank before the first bar). */
const logTime = (iso: string | null) => (iso === null ? '' : iso.slice(0, 19).replace('T', ' '));

/** Replaces the editor's whole text, as a person pasting over it would. */
async function replaceCode(page: Page, code: string) {
  await page.click('.cm-content');
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Delete');
  await page.keyboard.insertText(code);
}

describe.skipIf(noBrowser)('console: playground', () => {
  const stage = browserStage(PLAYGROUND_RUNNER);

  it(
    'runs a template to completion: progress, statistics, equity curve and drawdown, trades in the list and on the price chart',
    async () => {
      const { page, errors, context } = await newPage(stage.browser);
      await loginThroughForm(page, stage.server);
      errors.length = 0; // the signed-out shell's 401 from /api/auth/me before logging in
      await page.goto(`${stage.server.base}/#/playground`);
      await page.waitForSelector('[data-template=ema_atr_trend]');

      // The gallery shows every template with its category and difficulty.
      const templates = ((await (await fetch(`${stage.server.base}/api/playground/templates`)).json()) as any).templates as any[];
      expect(await page.$$eval('[data-testid=templates] [data-template]', (els: any[]) => els.map((e) => e.getAttribute('data-template')))).toEqual(
        templates.map((t) => t.id),
      );
      expect(await text(page, '[data-template=opening_range_breakout] .pg-tags')).toBe('breakoutadvanced');

      // The params form follows the template's typed params: one input each, at its default, with its bounds.
      await page.click('[data-template=ema_atr_trend]');
      const ema = templates.find((t) => t.id === 'ema_atr_trend');
      for (const p of ema.params) {
        const input = `[data-testid=params-form] input[name=${p.name}]`;
        expect(Number(await page.inputValue(input))).toBe(p.default);
        expect(await data(page, input, 'min')).toBe(String(p.min));
        expect(await data(page, input, 'max')).toBe(String(p.max));
      }
      expect(await page.$$eval('[data-testid=params-form] input', (els: any[]) => els.length)).toBe(ema.params.length);
      // The editor holds the template's code, highlighted, with line numbers.
      expect(await page.$$eval('.cm-lineNumbers .cm-gutterElement', (els: any[]) => els.length)).toBeGreaterThan(10);
      expect(await page.$$eval('.cm-content span[class]', (els: any[]) => els.length)).toBeGreaterThan(10);

      await setMarket(page, { instrument: 'NQ', timeframe: '5m', startDate: '2025-03-03', endDate: '2025-03-05' });
      expect(await runToEnd(page)).toBe('completed');
      await page.waitForSelector('[data-testid=price-chart][data-markers]:not([data-markers="0"])', { timeout: 60_000 });

      const id = await data(page, '[data-testid=run-head]', 'data-execution-id');
      const ex = (await apiGet(page, `/api/playground/executions/${id}`)).execution;
      expect(ex.status).toBe('completed');
      expect(ex.templateId).toBe('ema_atr_trend');
      expect(ex.startDate).toBe('2025-03-03');
      expect(ex.endDate).toBe('2025-03-05');
      expect(ex.totalTrades).toBeGreaterThan(0);

      // Progress: the whole run, and the bar full.
      const total = ex.progress.barsTotal.toLocaleString('en-US');
      expect(await text(page, '[data-testid=run-bars]')).toBe(`${total} / ${total} bars`);
      expect(await data(page, '[data-testid=run-progress]', 'data-pct')).toBe('100.0');

      // Statistics as the server computed them, and the trade list agreeing with the count.
      const rows = await page.$$eval('[data-testid=trades] tbody tr', (els: any[]) => els.length);
      expect(await text(page, '[data-testid=stat-trades]')).toBe(String(rows));
      expect(rows).toBe(ex.totalTrades);
      expect(await text(page, '[data-testid=stat-net-pnl]')).toBe(usd.format(ex.results.totalPnl));
      expect(await text(page, '[data-testid=stat-win-rate]')).toBe(`${ex.results.winRate.toFixed(2)}%`);
      expect(await text(page, '[data-testid=stat-max-drawdown]')).toBe(usd.format(ex.results.maxDrawdown));
      expect(await text(page, '[data-testid=stat-final-balance]')).toBe(usd.format(ex.results.finalBalance));
      const lastRowPnl = await text(page, '[data-testid=trades] tbody tr:last-child td:last-child');
      expect(lastRowPnl).toBe(usd.format(ex.trades[ex.trades.length - 1].pnl));

      // The equity curve and its drawdown, point for point.
      expect(Number(await data(page, '[data-testid=equity-chart]', 'data-points'))).toBe(ex.equityCurve.length);
      expect(ex.equityCurve.length).toBeGreaterThan(0);
      expect(Number(await data(page, '[data-testid=equity-chart]', 'data-drawdown-points'))).toBe(ex.equityCurve.length);
      expect(Number(await data(page, '[data-testid=equity-chart]', 'data-last-equity'))).toBe(ex.equityCurve[ex.equityCurve.length - 1].equity);

      // Trades on the price chart: the run's bars, every trade, a mark per entry and exit (a
      // reversal shares one), drawn as at most that many markers (close ones share one).
      const bars = Number(await data(page, '[data-testid=price-chart]', 'data-bars'));
      expect(bars).toBe(ex.progress.barsTotal); // 5m is a History preset: one candle per run bar
      expect(Number(await data(page, '[data-testid=price-chart]', 'data-trades'))).toBe(ex.totalTrades);
      const marks = Number(await data(page, '[data-testid=price-chart]', 'data-marks'));
      expect(marks).toBeGreaterThanOrEqual(ex.totalTrades + 1);
      expect(marks).toBeLessThanOrEqual(2 * ex.totalTrades);
      const markers = Number(await data(page, '[data-testid=price-chart]', 'data-markers'));
      expect(markers).toBeGreaterThan(0);
      expect(markers).toBeLessThanOrEqual(marks);

      await page.waitForTimeout(300); // let the charts paint
      await screenshot(page, 'playground-result');

      // The logs tab shows what the strategy printed (or says that it printed nothing).
      await page.click('.pg-tabs button:has-text("Logs")');
      if (ex.logs.length === 0) expect(await text(page, '.pg-tab-body')).toContain('Nothing printed');
      else expect(await shownLogs(page)).toEqual(ex.logs.map((l: string, i: number) => [logTime(ex.logTimes[i]), l]));
      expect(errors).toEqual([]);
      await context.close();
    },
    RUN_TIMEOUT + 30_000,
  );

  it(
    'saves a template as a strategy, runs it, and lists the run with its figures; the strategy reopens after a reload',
    async () => {
      const { page, errors, context } = await newPage(stage.browser);
      await loginThroughForm(page, stage.server);
      errors.length = 0; // the signed-out shell's 401 from /api/auth/me before logging in
      await page.goto(`${stage.server.base}/#/playground`);
      await page.click('[data-template=sma_cross]');
      await page.fill('[data-testid=params-form] input[name=fast]', '5');
      await page.fill('input[name=strategy-name]', 'SMA 5/30 on NQ');
      await setMarket(page, { instrument: 'NQ', timeframe: '5m', startDate: '2025-03-04', endDate: '2025-03-04' });
      await page.click('button:has-text("Save as strategy")');
      await page.waitForSelector('[data-testid=save-message]');
      expect(await text(page, '[data-testid=save-message]')).toBe('Saved as a new strategy “SMA 5/30 on NQ”');
      // The list is read again after the save: wait for it rather than for the message alone.
      await page.waitForSelector('[data-testid=strategies] .pg-item-name', { timeout: 60_000 });
      expect(await page.$$eval('[data-testid=strategies] .pg-item-name', (els: any[]) => els.map((e) => e.textContent))).toEqual(['SMA 5/30 on NQ']);
      expect(await text(page, '[data-testid=runs-tab]')).toBe('Runs of SMA 5/30 on NQ 0');

      expect(await runToEnd(page)).toBe('completed');
      await page.waitForSelector('[data-testid=strategy-runs] tbody tr');
      const runRows = await page.$$eval('[data-testid=strategy-runs] tbody tr', (els: any[]) => els.map((e) => e.textContent));
      expect(runRows.length).toBe(1);
      expect(await text(page, '[data-testid=run-row-status]')).toBe('completed');
      expect(await text(page, '[data-testid=run-trades]')).toBe(await text(page, '[data-testid=stat-trades]'));
      expect(await text(page, '[data-testid=run-pnl]')).toBe(await text(page, '[data-testid=stat-net-pnl]'));
      expect(await text(page, '[data-testid=strategy-runs] .pg-params-cell')).toBe('fast=5 slow=30 size=1');
      expect(runRows[0]).toContain('NQ · 5m');
      expect(runRows[0]).toContain('2025-03-04');

      // The server recorded the run under the strategy, with the params the form held.
      const strategies = (await apiGet(page, '/api/playground/strategies')).strategies;
      expect(strategies.map((s: any) => s.name)).toEqual(['SMA 5/30 on NQ']);
      const runs = (await apiGet(page, `/api/playground/strategies/${strategies[0].id}/runs`)).runs;
      expect(runs.length).toBe(1);
      expect(runs[0].params).toEqual({ fast: 5, slow: 30, size: 1 });
      expect(await text(page, '[data-testid=run-trades]')).toBe(String(runs[0].totalTrades));
      await screenshot(page, 'playground-strategy-runs');

      // After a reload the strategy opens with its code, params and runs.
      await page.reload();
      await page.waitForSelector('[data-testid=strategies] [data-strategy]');
      await page.click('[data-testid=strategies] [data-strategy]');
      await page.waitForSelector('[data-testid=strategy-runs] tbody tr');
      expect(await page.inputValue('input[name=strategy-name]')).toBe('SMA 5/30 on NQ');
      expect(await page.inputValue('[data-testid=params-form] input[name=fast]')).toBe('5');
      expect(await page.$$eval('[data-testid=strategy-runs] tbody tr', (els: any[]) => els.length)).toBe(1);
      expect(await text(page, '.pg-kind')).toBe('Strategy');
      expect(errors).toEqual([]);
      await context.close();
    },
    RUN_TIMEOUT + 30_000,
  );

  it(
    'a run of thousands of trades: every trade on the chart, grouped at the fitted zoom; a row moves the chart to its trade; the equity chart spans the run',
    async () => {
      const { page, errors, context } = await newPage(stage.browser);
      await loginThroughForm(page, stage.server);
      errors.length = 0; // the signed-out shell's 401 from /api/auth/me before logging in
      await page.goto(`${stage.server.base}/#/playground`);
      await page.waitForSelector('[data-template=sma_cross]');
      await page.click('button:has-text("+ Blank")');
      // In on one bar, out on the next: a trade every two 1 m bars, over 5,000 of them in eight days.
      await replaceCode(page, 'def on_bar(ctx, bar):\n    if ctx.position.qty == 0:\n        ctx.buy(1)\n    else:\n        ctx.close()\n');
      await setMarket(page, { instrument: 'NQ', timeframe: '1m', startDate: '2025-03-03', endDate: '2025-03-12' });
      expect(await runToEnd(page)).toBe('completed');
      const id = await data(page, '[data-testid=run-head]', 'data-execution-id');
      const ex = (await apiGet(page, `/api/playground/executions/${id}`)).execution;
      expect(ex.tradesTotal).toBeGreaterThan(5000);
      expect(ex.trades.length).toBe(5000); // the execution carries the first 5,000: the page reads the rest

      // Every trade reaches the chart; at the fitted zoom (thousands of bars) marks that would
      // overlap share a marker, so far fewer markers are drawn than there are marks.
      const chart = '[data-testid=price-chart]';
      await page.waitForSelector(`${chart}[data-trades="${ex.tradesTotal}"]`, { timeout: 60_000 });
      const marks = Number(await data(page, chart, 'data-marks'));
      expect(marks).toBe(2 * ex.tradesTotal); // no reversals: an entry and an exit each
      const fitted = Number(await data(page, chart, 'data-markers'));
      expect(Number(await data(page, chart, 'data-grouped'))).toBeGreaterThan(0);
      expect(Number(await data(page, chart, 'data-cell-bars'))).toBeGreaterThan(1);
      expect(fitted).toBeLessThan(marks / 10);
      const chartWidth = await page.$eval(chart, (el: any) => el.clientWidth);
      expect(fitted).toBeLessThanOrEqual(2 * Math.ceil(chartWidth / 14) + 2); // a side's markers ≥ 14 px apart
      // Fitted, the whole run is in view.
      expect(Number(await data(page, chart, 'data-visible-from'))).toBeLessThanOrEqual(Date.parse(ex.trades[0].entryTime) / 1000);
      expect(Number(await data(page, chart, 'data-visible-to'))).toBeGreaterThanOrEqual(Date.parse(ex.equityCurve[ex.equityCurve.length - 1].time) / 1000 - 300);

      // The list holds every trade, 500 a page; the last page ends with the run's last trade.
      expect(await text(page, '[data-testid=trades-range]')).toBe(`1–500 of ${ex.tradesTotal.toLocaleString('en-US')}`);
      expect(await page.$$eval('[data-testid=trades] tbody tr', (els: any[]) => els.length)).toBe(500);
      const pages = Math.ceil(ex.tradesTotal / 500);
      for (let p = 1; p < pages; p++) await page.click('[data-testid=trades-pager] button:has-text("Later")');
      const tail = (await apiGet(page, `/api/playground/executions/${id}/trades?offset=${ex.tradesTotal - 1}&limit=1`)).trades[0];
      expect(await text(page, '[data-testid=trades] tbody tr:last-child td:first-child')).toBe(String(ex.tradesTotal));
      expect(await text(page, '[data-testid=trades] tbody tr:last-child td:last-child')).toBe(usd.format(tail.pnl));
      // The CSV link exports every trade: a header, one line a trade, the last one the run's last.
      const csvHref = await data(page, '[data-testid=trades-csv]', 'href');
      expect(csvHref).toBe(`/api/playground/executions/${id}/trades.csv`);
      const csv = ((await page.evaluate(`fetch(${JSON.stringify(csvHref)}).then((r) => r.text())`)) as string).split('\n');
      expect(csv.length).toBe(ex.tradesTotal + 2);
      expect(csv[csv.length - 2]).toBe([tail.side, tail.size, tail.entryTime, tail.entryPrice, tail.exitTime, tail.exitPrice, tail.pnl, tail.fees].join(','));

      // A row click moves the chart to that trade: its entry and exit in view, zoomed in, marked.
      const pick = ex.tradesTotal - 3;
      await page.click(`[data-testid=trades] tbody tr[data-index="${pick}"]`);
      await page.waitForSelector(`${chart}[data-focused="${pick}"]`);
      expect(await data(page, `[data-testid=trades] tbody tr.selected`, 'data-index')).toBe(String(pick));
      const picked = (await apiGet(page, `/api/playground/executions/${id}/trades?offset=${pick}&limit=1`)).trades[0];
      await page.waitForFunction(
        `(() => { const d = document.querySelector('${chart}').dataset; return Number(d.visibleTo) - Number(d.visibleFrom) < 86400; })()`,
        undefined,
        { timeout: 10_000 },
      );
      const from = Number(await data(page, chart, 'data-visible-from'));
      const to = Number(await data(page, chart, 'data-visible-to'));
      expect(from).toBeLessThanOrEqual(Date.parse(picked.entryTime) / 1000);
      expect(to).toBeGreaterThanOrEqual(Date.parse(picked.exitTime) / 1000 - 300); // the exit's 5 m bar
      // Zoomed in, only marks on one bar share a marker (at the fitted zoom, marks many bars apart
      // did), and the picked trade's entry and exit are drawn on their own.
      expect(Number(await data(page, chart, 'data-cell-bars'))).toBe(1);
      expect(Number(await data(page, chart, 'data-focused-markers'))).toBe(2);

      // The equity chart shows the run's whole span: its first and last points are in view.
      const eq = '[data-testid=equity-chart]';
      expect(Number(await data(page, eq, 'data-first-time'))).toBe(Date.parse(ex.equityCurve[0].time) / 1000);
      expect(Number(await data(page, eq, 'data-last-time'))).toBe(Date.parse(ex.equityCurve[ex.equityCurve.length - 1].time) / 1000);
      expect(Number(await data(page, eq, 'data-visible-from'))).toBeLessThanOrEqual(Date.parse(ex.equityCurve[0].time) / 1000);
      expect(Number(await data(page, eq, 'data-visible-to'))).toBeGreaterThanOrEqual(Date.parse(ex.equityCurve[ex.equityCurve.length - 1].time) / 1000);
      await screenshot(page, 'playground-many-trades');
      expect(errors).toEqual([]);
      await context.close();
    },
    RUN_TIMEOUT + 60_000,
  );

  it(
    "points a Python error at the user's line, with the traceback; a paced run shows progress and stops",
    async () => {
      const { page, errors, context } = await newPage(stage.browser);
      page.on('dialog', (d) => d.accept()); // "Discard your unsaved changes?" when leaving edited code
      await loginThroughForm(page, stage.server);
      errors.length = 0; // the signed-out shell's 401 from /api/auth/me before logging in
      await page.goto(`${stage.server.base}/#/playground`);
      await page.waitForSelector('[data-template=sma_cross]');
      await page.click('button:has-text("+ Blank")');
      await setMarket(page, { instrument: 'NQ', timeframe: '5m', startDate: '2025-03-04', endDate: '2025-03-04' });
      const code = [
        'def init(ctx):',
        '    ctx.n = 0',
        '',
        'def on_bar(ctx, bar):',
        '    ctx.n += 1; print("bar", ctx.n)',
        '    if ctx.n > 3:',
        '        ratio = bar.close / (ctx.n - ctx.n)',
        '',
      ].join('\n');
      await replaceCode(page, code);
      expect(await runToEnd(page)).toBe('failed');
      await page.waitForSelector('[data-testid=traceback]');
      const tb = await text(page, '[data-testid=traceback] pre');
      expect(tb).toContain('File "strategy.py", line 7, in on_bar');
      expect(tb).toContain('ZeroDivisionError');
      // The editor marks line 7: a highlighted line, a lint marker in the gutter, the message on hover.
      expect(await data(page, '[data-testid=editor]', 'data-error-line')).toBe('7');
      expect(await page.$$eval('.cm-error-line', (els: any[]) => els.map((e) => [e.getAttribute('data-error-line'), e.textContent]))).toEqual([
        ['7', '        ratio = bar.close / (ctx.n - ctx.n)'],
      ]);
      expect(await page.$$eval('.cm-lint-marker-error', (els: any[]) => els.length)).toBe(1);
      expect(await text(page, '[data-testid=traceback] .pg-traceback-head button')).toBe('line 7');
      // What it printed up to the failure is kept and shown with it, each line at its bar's open time
      // (the run opens at 23:00 UTC the day before, five minutes a bar).
      expect(await shownLogs(page)).toEqual([
        ['2025-03-03 23:00:00', 'bar 1'],
        ['2025-03-03 23:05:00', 'bar 2'],
        ['2025-03-03 23:10:00', 'bar 3'],
        ['2025-03-03 23:15:00', 'bar 4'],
      ]);
      await page.locator('[data-testid=logs]').scrollIntoViewIfNeeded();
      await screenshot(page, 'playground-logs');
      await screenshot(page, 'playground-error');

      // A syntax error: the line of the missing colon.
      await replaceCode(page, 'def on_bar(ctx, bar)\n    pass\n');
      expect(await runToEnd(page)).toBe('failed');
      await page.waitForSelector('[data-testid=editor][data-error-line="1"]');
      expect(await text(page, '[data-testid=traceback] pre')).toContain('SyntaxError');
      expect(await page.$$eval('.cm-error-line', (els: any[]) => els.map((e) => e.textContent))).toEqual(['def on_bar(ctx, bar)']);

      // Speed 1 paces the run (two bars a second): progress shows on the bar, then Stop ends it.
      await page.click('[data-template=sma_cross]');
      await page.selectOption('select[name=speed]', '1');
      await page.click('[data-testid=run]');
      await page.waitForFunction(`(() => { const b = document.querySelector('[data-testid=run-bars]'); return b && /^[1-9][0-9]* \\/ 276 bars$/.test(b.textContent); })()`, undefined, {
        timeout: RUN_TIMEOUT,
      });
      expect(await text(page, '[data-testid=run-status]')).toBe('running');
      expect(Number(await data(page, '[data-testid=run-progress]', 'data-pct'))).toBeGreaterThan(0);
      expect(Number(await data(page, '[data-testid=run-progress]', 'data-pct'))).toBeLessThan(100);
      await page.click('[data-testid=stop]');
      await page.waitForFunction(`document.querySelector('[data-testid=run-status]')?.textContent === 'stopped'`, undefined, { timeout: 60_000 });
      const done = Number((await text(page, '[data-testid=run-bars]')).split(' / ')[0]);
      expect(done).toBeGreaterThan(0);
      expect(done).toBeLessThan(276);

      // A run started elsewhere (a bot, another tab) is going: Run is refused with errorCode 11 and
      // the page follows that execution instead, with its progress; Stop ends it.
      const other = await apiPost(page, '/api/playground/run', { templateId: 'ema_atr_trend', instrument: 'NQ', timeframe: '5m', startDate: '2025-03-04', endDate: '2025-03-04', speed: 1 });
      expect(other.success).toBe(true);
      await page.click('[data-testid=run]');
      await page.waitForSelector(`[data-testid=run-head][data-execution-id="${other.executionId}"]`);
      expect(await text(page, '[data-testid=run-note]')).toBe(
        'A run was already going (one at a time): following it here (ema_atr_trend · NQ 5m · 2025-03-04). Stop ends it; then Run starts yours.',
      );
      await page.waitForFunction(`(() => { const b = document.querySelector('[data-testid=run-bars]'); return b && /^[1-9][0-9]* \\/ 276 bars$/.test(b.textContent); })()`, undefined, {
        timeout: RUN_TIMEOUT,
      });
      expect(await text(page, '[data-testid=run-status]')).toBe('running');
      expect(await page.$('.pg-work .error')).toBeNull();
      await screenshot(page, 'playground-attached');
      await page.click('[data-testid=stop]');
      await page.waitForFunction(`document.querySelector('[data-testid=run-status]')?.textContent === 'stopped'`, undefined, { timeout: 60_000 });
      expect((await apiGet(page, `/api/playground/executions/${other.executionId}`)).execution.status).toBe('stopped');
      expect(await page.isVisible('[data-testid=run]')).toBe(true);
      expect(errors).toEqual([]);
      await context.close();
    },
    RUN_TIMEOUT * 2,
  );
});
