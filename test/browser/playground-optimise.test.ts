// The playground's Optimise tab in a real browser against the real server: ranges from the template's
// typed params, the objective, live progress to the end, the combinations table and the heatmap as the
// server reports them, and a combination opened as a run in the result pane.
import { describe, expect, it } from 'bun:test';
import type { Page } from 'playwright-core';
import { browserStage, docScreenshot, loginThroughForm, newPage, noBrowser, screenshot, PLAYGROUND_RUNNER } from './support.ts';

const END_TIMEOUT = 600_000;
/** Playwright's bound on each wait (default 30 s): a run's curve read at load average 30 can take longer. */
const WAIT_MS = 120_000;

async function apiGet(page: Page, path: string): Promise<any> {
  return page.evaluate(`fetch(${JSON.stringify(path)}).then((r) => r.json())`);
}

async function setRange(page: Page, name: string, min: number, max: number, step: number) {
  await page.fill(`input[name=${name}-min]`, String(min));
  await page.fill(`input[name=${name}-max]`, String(max));
  await page.fill(`input[name=${name}-step]`, String(step));
}

const usd = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', minimumFractionDigits: 2, maximumFractionDigits: 2 });
const money = (v: number | null | undefined) => (v === null || v === undefined ? '—' : usd.format(v));
const text = (page: Page, sel: string) => page.$eval(sel, (e: any) => e.textContent.trim());
const attr = (page: Page, sel: string, name: string) => page.$eval(sel, (e: any, n: string) => e.getAttribute(n), name);

async function openTemplate(page: Page, server: { base: string }, dates: [string, string]) {
  await page.goto(`${server.base}/#/playground`);
  await page.click('[data-template=sma_cross]');
  await page.selectOption('select[name=instrument]', 'NQ');
  await page.selectOption('select[name=timeframe]', '1m');
  await page.fill('input[name=startDate]', dates[0]);
  await page.fill('input[name=endDate]', dates[1]);
  await page.click('[data-testid=optimise-tab]');
}

/** Reloads the playground, opens the Optimise tab and reopens optimisation `id` from the list. */
async function reopen(page: Page, id: string) {
  await page.reload();
  await page.waitForSelector('[data-template=sma_cross]');
  await page.click('[data-testid=optimise-tab]');
  await page.click(`[data-testid=optimisation-row][data-id="${id}"]`);
  await page.waitForFunction(`document.querySelector('[data-testid=optimise-progress]')?.getAttribute('data-optimization-id') === ${JSON.stringify(id)}`);
}

describe.skipIf(noBrowser)('console: playground optimisation', () => {
  const stage = browserStage(PLAYGROUND_RUNNER);

  it('searches two params of sma_cross, shows progress, the combinations and the heatmap, and opens one as a run', async () => {
    const { page, errors, context } = await newPage(stage.browser);
    page.setDefaultTimeout(WAIT_MS);
    await loginThroughForm(page, stage.server);
    errors.length = 0;
    await page.goto(`${stage.server.base}/#/playground`);
    await page.click('[data-template=sma_cross]');
    await page.selectOption('select[name=instrument]', 'NQ');
    await page.selectOption('select[name=timeframe]', '1m');
    await page.fill('input[name=startDate]', '2025-03-04');
    await page.fill('input[name=endDate]', '2025-03-04');
    await page.click('[data-testid=optimise-tab]');
    // One row per number param of the template, at its current value.
    expect(await page.$$eval('.pg-ranges tbody tr td.mono', (els: any[]) => els.map((e) => e.textContent))).toEqual(['fast', 'slow', 'size']);
    expect(await page.inputValue('input[name=fast-min]')).toBe('10');
    await setRange(page, 'fast', 5, 10, 5);
    await setRange(page, 'slow', 20, 40, 20);
    await page.selectOption('select[name=objective]', 'net_pnl');
    await page.click('[data-testid=optimise-start]');
    await page.waitForSelector('[data-testid=optimise-progress]');
    await page.waitForFunction(`document.querySelector('[data-testid=optimise-status]')?.textContent === 'completed'`, undefined, { timeout: END_TIMEOUT });
    await page.waitForSelector('[data-testid=optimise-heatmap]');
    expect(await page.textContent('[data-testid=optimise-progress]')).toContain('4 / 4 combinations');

    // The table is the server's page, best first.
    const rows = await page.$$eval('[data-testid=optimise-row]', (els: any[]) => els.map((e) => [...e.querySelectorAll('td')].map((td: any) => td.textContent)));
    expect(rows.length).toBe(4);
    const cells = await page.$$eval('[data-testid=heat-cell]', (els: any[]) => els.map((e) => Number(e.textContent)));
    expect(cells.length).toBe(4);
    const objectives = rows.map((r: string[]) => Number(r[3]));
    expect(objectives).toEqual([...objectives].sort((a, b) => b - a));
    expect([...cells].sort((a, b) => b - a)).toEqual(objectives);
    await screenshot(page, 'playground-optimise');

    // A row opens its combination as a run in the result pane.
    await page.click('[data-testid=optimise-row] >> nth=0');
    await page.waitForFunction(`document.querySelector('[data-testid=run-status]')?.textContent === 'completed'`, undefined, { timeout: 60_000 });
    const runId = await page.$eval('[data-testid=run-head]', (el: any) => el.getAttribute('data-execution-id'));
    const ex = (await apiGet(page, `/api/playground/executions/${runId}`)).execution;
    expect(ex).toMatchObject({ status: 'completed', templateId: 'sma_cross', startDate: '2025-03-04', timeframe: '1m' });
    expect([String(ex.params.fast), String(ex.params.slow)]).toEqual([rows[0][0], rows[0][1]]);

    // After a reload the tab lists the user's optimisations as the server does, and reopens this one.
    const id = await attr(page, '[data-testid=optimise-progress]', 'data-optimization-id');
    await reopen(page, id);
    await page.waitForSelector('[data-testid=optimise-heatmap]');
    const listed = (await apiGet(page, '/api/playground/optimizations')).optimizations;
    const listRows = await page.$$eval('[data-testid=optimisation-row]', (els: any[]) => els.map((e) => [e.getAttribute('data-id'), ...[...e.querySelectorAll('td')].slice(1).map((td: any) => td.textContent)]));
    expect(listRows).toEqual(listed.map((o: any) => [o.id, 'sma_cross', 'NQ 1m · 2025-03-04', 'grid', 'Net P&L', 'completed', '4 / 4', String(o.best.objective)]));
    expect(await page.$$eval('[data-testid=optimise-row]', (els: any[]) => els.map((e) => [...e.querySelectorAll('td')].map((td: any) => td.textContent).slice(0, -1)))).toEqual(rows.map((r: string[]) => r.slice(0, -1)));
    expect(await page.$$eval('[data-testid=heat-cell]', (els: any[]) => els.map((e) => Number(e.textContent)))).toEqual(cells);
    expect(errors).toEqual([]);
    await context.close();
  }, END_TIMEOUT + 60_000);

  it('runs a walk-forward: windows with their best params, in-sample beside out-of-sample equity, the stitched figures', async () => {
    const { page, errors, context } = await newPage(stage.browser);
    page.setDefaultTimeout(WAIT_MS);
    await loginThroughForm(page, stage.server);
    errors.length = 0;
    // One trade date with data cannot hold a window: the refusal sits under the walk-forward fields.
    await openTemplate(page, stage.server, ['2025-03-04', '2025-03-04']);
    await page.check('input[name=walkForward]');
    await page.fill('input[name=inSampleDays]', '3');
    await page.fill('input[name=outOfSampleDays]', '1');
    await page.click('[data-testid=optimise-start]');
    await page.waitForSelector('[data-testid=optimise-error-walkForward]');
    expect(await text(page, '[data-testid=optimise-error-walkForward]')).toBe('The span holds 1 trade dates with data: too few for one in-sample and one out-of-sample part');

    // Tue 2025-02-25 to Fri 02-28: two in-sample dates, one out-of-sample → two windows of two combinations.
    await page.fill('input[name=startDate]', '2025-02-25');
    await page.fill('input[name=endDate]', '2025-02-28');
    await setRange(page, 'fast', 5, 10, 5);
    await setRange(page, 'slow', 30, 30, 1);
    await page.fill('input[name=inSampleDays]', '2');
    await page.click('[data-testid=optimise-start]');
    await page.waitForFunction(`document.querySelector('[data-testid=optimise-status]')?.textContent === 'completed'`, undefined, { timeout: END_TIMEOUT });
    await page.waitForSelector('[data-testid=walk-forward]');
    expect(await page.$('[data-testid=optimise-error-walkForward]')).toBeNull();
    expect(await page.textContent('[data-testid=optimise-progress]')).toContain('6 / 6 combinations');
    const id = await attr(page, '[data-testid=optimise-progress]', 'data-optimization-id');
    const wf = (await apiGet(page, `/api/playground/optimizations/${id}`)).optimization.walkForward;
    expect(wf.windows.length).toBe(2);

    // Each window: its dates, its best params and both parts' figures, as the server reports them.
    const rows = await page.$$eval('[data-testid=wf-window]', (els: any[]) => els.map((e) => [...e.querySelectorAll('td')].map((td: any) => td.textContent)));
    expect(rows).toEqual(wf.windows.map((w: any, k: number) => [
      String(k + 1), `${w.inSample.startDate} → ${w.inSample.endDate}`, `fast=${w.best.params.fast}`,
      money(w.best.statistics.totalPnl), String(w.best.statistics.totalTrades), w.outOfSample.startDate,
      money(w.outOfSampleRun.statistics.totalPnl), String(w.outOfSampleRun.statistics.totalTrades),
    ]));
    // The in-sample figures beside the stitched out-of-sample ones, a row per figure.
    const oos = wf.outOfSample.results;
    const perTrade = (pnl: number, n: number) => (n ? money(pnl / n) : '—');
    const figures = await page.$$eval('[data-testid=wf-figure]', (els: any[]) => els.map((e) => [...e.children].map((c: any) => c.textContent)));
    expect(figures).toEqual([
      ['Net P&L', money(wf.inSample.totalPnl), money(oos.totalPnl)],
      ['Trades', String(wf.inSample.totalTrades), String(oos.totalTrades)],
      ['Per trade', perTrade(wf.inSample.totalPnl, wf.inSample.totalTrades), perTrade(oos.totalPnl, oos.totalTrades)],
      ['Win rate', '—', `${oos.winRate}%`],
      ['Profit factor', '—', String(oos.profitFactor ?? '—')],
      ['Max drawdown', '—', money(oos.maxDrawdown)],
      ['Return', '—', `${oos.returnPct}%`],
    ]);

    // The last window is shown first: its in-sample run's equity beside its out-of-sample run's.
    const pair = async (k: number) => {
      await page.waitForSelector(`[data-testid=wf-pair][data-window="${k}"] [data-testid=wf-out-of-sample-chart][data-points]:not([data-points="0"])`);
      await page.waitForSelector(`[data-testid=wf-pair][data-window="${k}"] [data-testid=wf-in-sample-chart]:not([data-points="0"])`);
      const w = wf.windows[k];
      expect(await attr(page, '[data-testid=wf-in-sample-run]', 'data-run-id')).toBe(w.best.runId);
      expect(await attr(page, '[data-testid=wf-out-of-sample-run]', 'data-run-id')).toBe(w.outOfSampleRun.runId);
      for (const [part, runId] of [['in-sample', w.best.runId], ['out-of-sample', w.outOfSampleRun.runId]]) {
        const ex = (await apiGet(page, `/api/playground/executions/${runId}`)).execution;
        expect(Number(await attr(page, `[data-testid=wf-${part}-chart]`, 'data-last-equity'))).toBe(ex.equityCurve.at(-1).equity);
        expect(Number(await attr(page, `[data-testid=wf-${part}-chart]`, 'data-first-time'))).toBe(Date.parse(ex.equityCurve[0].time) / 1000);
      }
    };
    await pair(1);
    expect(Number(await attr(page, '[data-testid=wf-stitched-chart]', 'data-last-equity'))).toBe(wf.outOfSample.equityCurve.at(-1).equity);
    await page.$eval('[data-testid=wf-windows]', (e: any) => e.scrollIntoView({ block: 'start' }));
    await docScreenshot(page, 'playground-walk-forward');
    await page.click('[data-testid=wf-window] >> nth=0');
    await pair(0);
    // A window's run opens in the result pane.
    await page.click('[data-testid=wf-out-of-sample-run] button');
    await page.waitForFunction(`document.querySelector('[data-testid=run-head]')?.getAttribute('data-execution-id') === ${JSON.stringify(wf.windows[0].outOfSampleRun.runId)}`);

    // Reopened from the list after a reload: the same windows and figures.
    await reopen(page, id);
    await page.waitForSelector('[data-testid=walk-forward]');
    expect(await page.$$eval('[data-testid=wf-window]', (els: any[]) => els.map((e) => [...e.querySelectorAll('td')].map((td: any) => td.textContent)))).toEqual(rows);
    expect(await page.$$eval('[data-testid=wf-figure]', (els: any[]) => els.map((e) => [...e.children].map((c: any) => c.textContent)))).toEqual(figures);
    expect(await text(page, `[data-testid=optimisation-row][data-id="${id}"] td:nth-child(4)`)).toBe('grid · walk-forward 2/1');
    await pair(1);
    expect(errors).toEqual([]);
    await context.close();
  }, END_TIMEOUT + 60_000);

  it('reopening an optimisation puts its market, dates, ranges and search back in the form, so Run repeats it; a failed combination shows its error', async () => {
    const { page, errors, context } = await newPage(stage.browser);
    page.setDefaultTimeout(WAIT_MS);
    await loginThroughForm(page, stage.server);
    errors.length = 0;
    await openTemplate(page, stage.server, ['2025-03-04', '2025-03-05']);
    await setRange(page, 'fast', 5, 10, 5);
    await setRange(page, 'slow', 20, 20, 1);
    await page.selectOption('select[name=objective]', 'sharpe');
    await page.fill('input[name=minTrades]', '1');
    await page.click('[data-testid=optimise-start]');
    await page.waitForFunction(`document.querySelector('[data-testid=optimise-status]')?.textContent === 'completed'`, undefined, { timeout: END_TIMEOUT });
    const first = await attr(page, '[data-testid=optimise-progress]', 'data-optimization-id');

    // The form moves on to another market and other ranges; reopening the optimisation brings its own back.
    await page.selectOption('select[name=timeframe]', '5m');
    await page.fill('input[name=startDate]', '2025-03-10');
    await page.fill('input[name=endDate]', '2025-03-10');
    await setRange(page, 'fast', 30, 30, 1);
    await reopen(page, first);
    const form = async () => ({
      instrument: await page.inputValue('select[name=instrument]'), timeframe: await page.inputValue('select[name=timeframe]'),
      startDate: await page.inputValue('input[name=startDate]'), endDate: await page.inputValue('input[name=endDate]'),
      fast: [await page.inputValue('input[name=fast-min]'), await page.inputValue('input[name=fast-max]'), await page.inputValue('input[name=fast-step]')],
      slow: [await page.inputValue('input[name=slow-min]'), await page.inputValue('input[name=slow-max]')],
      objective: await page.inputValue('select[name=objective]'), method: await page.inputValue('select[name=method]'), minTrades: await page.inputValue('input[name=minTrades]'),
    });
    await page.waitForFunction(`document.querySelector('input[name=startDate]')?.value === '2025-03-04'`);
    expect(await form()).toEqual({
      instrument: 'NQ', timeframe: '1m', startDate: '2025-03-04', endDate: '2025-03-05', fast: ['5', '10', '5'], slow: ['20', '20'], objective: 'sharpe', method: 'grid', minTrades: '1',
    });
    // Run again: the same search.
    await page.click('[data-testid=optimise-start]');
    await page.waitForFunction(`document.querySelector('[data-testid=optimise-progress]')?.getAttribute('data-optimization-id') !== ${JSON.stringify(first)}`);
    await page.waitForFunction(`document.querySelector('[data-testid=optimise-status]')?.textContent === 'completed'`, undefined, { timeout: END_TIMEOUT });
    const second = await attr(page, '[data-testid=optimise-progress]', 'data-optimization-id');
    const request = (o: any) => ({ ...o, id: undefined, status: undefined, progress: undefined, best: undefined, createdAt: undefined, completedAt: undefined });
    const [a, b] = [(await apiGet(page, `/api/playground/optimizations/${first}`)).optimization, (await apiGet(page, `/api/playground/optimizations/${second}`)).optimization];
    expect(request(b)).toEqual(request(a));

    // A combination that failed (started through the API: code raising for x = 2) says why in its row.
    const raising = 'def on_bar(ctx, bar):\n    if ctx.params["x"] == 2:\n        raise ValueError("x is two")\n';
    const started = await page.evaluate(`fetch('/api/playground/optimize', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(${JSON.stringify({
      instrument: 'NQ', startDate: '2025-03-04', timeframe: '1m', code: raising, params: { x: { min: 1, max: 2, step: 1 } },
    })}) }).then((r) => r.json())`) as any;
    expect(started.success).toBe(true);
    for (let o = null as any; o?.status !== 'completed'; await Bun.sleep(200)) o = (await apiGet(page, `/api/playground/optimizations/${started.optimizationId}`)).optimization;
    await reopen(page, started.optimizationId);
    await page.waitForSelector('[data-testid=optimise-row-error]');
    const cs = (await apiGet(page, `/api/playground/optimizations/${started.optimizationId}/combinations?sort=index`)).combinations;
    expect(cs.map((c: any) => [c.status, c.error?.split('\n').at(-1) ?? null])).toEqual([['completed', null], ['failed', 'ValueError: x is two']]);
    expect(await page.$$eval('[data-testid=optimise-row-error]', (els: any[]) => els.map((e) => [e.textContent, e.getAttribute('title')]))).toEqual([['failed: ValueError: x is two', cs[1].error]]);
    expect(errors).toEqual([]);
    await context.close();
  }, 2 * END_TIMEOUT + 60_000);

  it('searches a random sample under constraints; a refused field shows the server\'s message beside it', async () => {
    const { page, errors, context } = await newPage(stage.browser);
    page.setDefaultTimeout(WAIT_MS);
    await loginThroughForm(page, stage.server);
    errors.length = 0;
    await openTemplate(page, stage.server, ['2025-03-04', '2025-03-04']);
    await setRange(page, 'fast', 5, 20, 5);
    await page.selectOption('select[name=method]', 'random');
    await page.fill('input[name=count]', '0');
    await page.click('[data-testid=optimise-start]');
    await page.waitForSelector('[data-testid=optimise-error-method]');
    expect(await text(page, '[data-testid=optimise-error-method]')).toBe('count must be a whole number from 1 to 500 with method random');
    await page.fill('input[name=count]', '3');
    await page.fill('input[name=minTrades]', '-1');
    await page.click('[data-testid=optimise-start]');
    await page.waitForSelector('[data-testid=optimise-error-minTrades]');
    expect(await page.$('[data-testid=optimise-error-method]')).toBeNull();
    expect(await text(page, '[data-testid=optimise-error-minTrades]')).toBe('minTrades must be a whole number of at least 0');
    await page.fill('input[name=minTrades]', '');
    await page.fill('input[name=maxDrawdown]', '-5');
    await page.click('[data-testid=optimise-start]');
    await page.waitForSelector('[data-testid=optimise-error-maxDrawdown]');
    expect(await text(page, '[data-testid=optimise-error-maxDrawdown]')).toBe('maxDrawdown must be a number of USD of at least 0');

    // Three of the four values of fast, none with 100,000 trades: every combination runs, none is the best.
    await page.fill('input[name=maxDrawdown]', '');
    await page.fill('input[name=minTrades]', '100000');
    await page.selectOption('select[name=objective]', 'win_rate');
    await page.click('[data-testid=optimise-start]');
    await page.waitForFunction(`document.querySelector('[data-testid=optimise-status]')?.textContent === 'completed'`, undefined, { timeout: END_TIMEOUT });
    await page.waitForSelector('[data-testid=optimise-combinations]');
    expect(await page.$('[data-testid=optimise-error-maxDrawdown]')).toBeNull();
    expect(await page.textContent('[data-testid=optimise-progress]')).toContain('3 / 3 combinations');
    await page.waitForSelector('[data-testid=optimise-no-best]');
    const id = await attr(page, '[data-testid=optimise-progress]', 'data-optimization-id');
    const o = (await apiGet(page, `/api/playground/optimizations/${id}`)).optimization;
    expect(o).toMatchObject({ method: 'random', count: 3, seed: 1, objective: 'win_rate', constraints: { minTrades: 100000, maxDrawdown: null }, best: null });
    const rows = await page.$$eval('[data-testid=optimise-row]', (els: any[]) => els.map((e) => [...e.querySelectorAll('td')].map((td: any) => td.textContent)));
    expect(rows.length).toBe(3);
    expect(new Set(rows.map((r: string[]) => r[0])).size).toBe(3);
    for (const r of rows) expect(['5', '10', '15', '20']).toContain(r[0]);
    expect(rows.map((r: string[]) => r.at(-1))).toEqual(['✗', '✗', '✗']);
    await page.$eval('[data-testid=optimise]', (e: any) => e.scrollIntoView({ block: 'start' }));
    await screenshot(page, 'playground-optimise-search');
    expect(errors).toEqual([]);
    await context.close();
  }, END_TIMEOUT + 60_000);
});
