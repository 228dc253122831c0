// The playground's Optimise tab in a real browser against the real server: ranges from the template's
// typed params, the objective, live progress to the end, the combinations table and the heatmap as the
// server reports them, and a combination opened as a run in the result pane.
import { describe, expect, it } from 'bun:test';
import type { Page } from 'playwright-core';
import { browserStage, loginThroughForm, newPage, noBrowser, screenshot } from './support.ts';

const END_TIMEOUT = 600_000;

async function apiGet(page: Page, path: string): Promise<any> {
  return page.evaluate(`fetch(${JSON.stringify(path)}).then((r) => r.json())`);
}

async function setRange(page: Page, name: string, min: number, max: number, step: number) {
  await page.fill(`input[name=${name}-min]`, String(min));
  await page.fill(`input[name=${name}-max]`, String(max));
  await page.fill(`input[name=${name}-step]`, String(step));
}

describe.skipIf(noBrowser)('console: playground optimisation', () => {
  const stage = browserStage();

  it('searches two params of sma_cross, shows progress, the combinations and the heatmap, and opens one as a run', async () => {
    const { page, errors, context } = await newPage(stage.browser);
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
    expect(errors).toEqual([]);
    await context.close();
  }, END_TIMEOUT + 60_000);
});
