// The playground for quants in a real browser, at 1440×900 and at 1280×720: the performance figures
// and monthly returns as the server reports them, the buy-and-hold benchmark, the strategy API
// reference in a side panel (the same text as docs/playground.md), the price chart naming the
// replayed contract, ctx.log lines with their time once, "Save as strategy" listing the run on screen,
// and the layout: the template title never under the buttons, the editor wrapping, the optimiser's
// results and walk-forward in the wide row under both columns, never clipped.
import { describe, expect, it } from 'bun:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { strategyReference } from '../../src/http/console/strategy-reference.ts';
import { browserStage, loginThroughForm, newPage, noBrowser, PLAYGROUND_RUNNER, screenshot, type Stage } from './support.ts';

const WAIT_MS = 120_000;
const END_TIMEOUT = 600_000;
const SIZES = [{ width: 1440, height: 900 }, { width: 1280, height: 720 }] as const;
const usd = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', minimumFractionDigits: 2, maximumFractionDigits: 2 });

const text = (page: Page, sel: string) => page.$eval(sel, (e: any) => e.textContent.trim());
const apiGet = (page: Page, path: string): Promise<any> => page.evaluate(`fetch(${JSON.stringify(path)}).then((r) => r.json())`);

/** A strategy that trades every 30 bars and logs every 50th bar with ctx.log. */
const CODE = [
  'def on_bar(ctx, bar):',
  '    if bar.index % 50 == 0:',
  "        ctx.log('bar', bar.index)",
  '    if bar.index % 30 == 0:',
  '        if ctx.position.qty <= 0:',
  '            ctx.buy(1 - ctx.position.qty)',
  '        else:',
  '            ctx.sell(2)',
  '',
].join('\n');

async function replaceCode(page: Page, code: string) {
  await page.click('.cm-content');
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Delete');
  await page.keyboard.insertText(code);
}

async function setMarket(page: Page, startDate: string, endDate: string) {
  await page.selectOption('select[name=instrument]', 'NQ');
  await page.selectOption('select[name=timeframe]', '5m');
  await page.fill('input[name=startDate]', startDate);
  await page.fill('input[name=endDate]', endDate);
}

/** The `##` and `###` headings of the reference cut from docs/playground.md, as text. */
function documentOutline(): string[] {
  const md = strategyReference(readFileSync(join(import.meta.dir, '..', '..', 'docs', 'playground.md'), 'utf8'));
  let fenced = false;
  const out: string[] = [];
  for (const line of md.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    if (!fenced && /^###? /.test(line)) out.push(line.replace(/^###? /, '').replaceAll('`', ''));
  }
  return out;
}

/** Boxes that overflow their container on the right or left, or a container that scrolls sideways (clipped content). */
async function clipped(page: Page, container: string, inner: string): Promise<string[]> {
  return page.$eval(container, (c: any, sel: string) => {
    const box = c.getBoundingClientRect();
    const bad: string[] = [];
    if (c.scrollWidth > c.clientWidth + 1) bad.push(`${sel}: container scrolls ${c.scrollWidth} > ${c.clientWidth}`);
    for (const e of c.querySelectorAll(sel)) {
      const r = e.getBoundingClientRect();
      if (r.right > box.right + 1 || r.left < box.left - 1) bad.push(`${e.tagName}.${e.className}: ${r.left}–${r.right} outside ${box.left}–${box.right}`);
    }
    return bad;
  }, inner);
}

/** The title and the buttons of the document head do not overlap, and the title shows its whole text. */
async function headFits(page: Page): Promise<{ overlap: boolean; nameCut: boolean }> {
  return page.evaluate(`(() => {
    const n = document.querySelector('.pg-name').getBoundingClientRect();
    const a = document.querySelector('.pg-head-actions').getBoundingClientRect();
    const overlap = n.right > a.left && n.left < a.right && n.bottom > a.top && n.top < a.bottom;
    const input = document.querySelector('.pg-name');
    return { overlap, nameCut: input.scrollWidth > input.clientWidth + 1 };
  })()`) as Promise<{ overlap: boolean; nameCut: boolean }>;
}

/** A fresh page signed in on the playground, at 1440×900; errors of the signed-out shell forgotten. */
async function openPlayground(stage: Stage) {
  const opened = await newPage(stage.browser);
  opened.page.setDefaultTimeout(WAIT_MS);
  opened.page.on('dialog', (d) => d.accept()); // "Discard your unsaved changes?" when leaving edited code
  await loginThroughForm(opened.page, stage.server);
  opened.errors.length = 0;
  await opened.page.goto(`${stage.server.base}/#/playground`);
  await opened.page.waitForSelector('[data-template=sma_cross]');
  return opened;
}

describe.skipIf(noBrowser)('console: playground for quants', () => {
  const stage = browserStage(PLAYGROUND_RUNNER);

  it('shows the performance figures, the benchmark and the months, the reference beside the editor, the replayed contract, ctx.log times once, and the saved run', async () => {
    const { page, errors, context } = await openPlayground(stage);
    await page.click('button:has-text("+ Blank")');
    // The Blank template points at the reference in the page, not at a file of the repository.
    expect(await text(page, '.cm-content')).not.toContain('docs/playground.md');
    expect(await text(page, '.cm-content')).toContain('The Reference button above lists ctx.');
    await replaceCode(page, CODE);
    await setMarket(page, '2025-02-26', '2025-03-06');
    await page.click('[data-testid=run]');
    await page.waitForFunction(`document.querySelector('[data-testid=run-status]')?.textContent === 'completed'`, undefined, { timeout: END_TIMEOUT });
    const id = await page.$eval('[data-testid=run-head]', (e: any) => e.getAttribute('data-execution-id'));
    const ex = (await apiGet(page, `/api/playground/executions/${id}`)).execution;
    const r = ex.results;

    // The figures as the server computed them (null shows as —).
    const two = (v: number | null) => (v === null ? '—' : v.toFixed(2));
    expect(await text(page, '[data-testid=stat-sharpe]')).toBe(two(r.sharpeRatio));
    expect(await text(page, '[data-testid=stat-sortino]')).toBe(two(r.sortinoRatio));
    expect(await text(page, '[data-testid=stat-calmar]')).toBe(two(r.calmarRatio));
    expect(await text(page, '[data-testid=stat-exposure]')).toBe(`${r.exposurePct.toFixed(2)}%`);
    expect(await text(page, '[data-testid=stat-expectancy]')).toBe(usd.format(r.expectancy));
    expect(r.sharpeRatio).not.toBeNull();
    expect(await text(page, '[data-testid=benchmark-pnl]')).toBe(usd.format(r.buyAndHold.pnl));
    expect(await text(page, '[data-testid=benchmark]')).toContain(`${r.buyAndHold.entryPrice} → ${r.buyAndHold.exitPrice}`);
    // A span over February and March: a row for 2025 with both months.
    expect(r.monthlyReturns.map((m: any) => m.month)).toEqual(['2025-02', '2025-03']);
    for (const m of r.monthlyReturns) expect(await text(page, `[data-testid=monthly-returns] td[data-month="${m.month}"]`)).toBe(m.returnPct.toFixed(2));

    // The price chart names the contract traded on the replayed dates, as the desk does.
    // ("Loading bars…" first: wait for the bars' own note.)
    await page.waitForFunction(`document.querySelector('[data-testid=price-chart-note]')?.textContent.includes(' · 5m bars')`);
    expect(await text(page, '[data-testid=price-chart-note]')).toStartWith('NQH5 · 5m bars');

    // ctx.log lines: the time in its column, not again in the text.
    await page.click('.pg-tabs button:has-text("Logs")');
    const shown = await page.$$eval('[data-testid=logs] .pg-log-line', (els: any[]) =>
      els.map((e) => [e.querySelector('[data-testid=log-time]').textContent, e.querySelector('[data-testid=log-text]').textContent]));
    expect(shown.length).toBe(ex.logs.length);
    expect(shown.length).toBeGreaterThan(5);
    shown.forEach(([time, line]: string[], i: number) => {
      const stamp = ex.logTimes[i].slice(0, 19).replace('T', ' ');
      expect(ex.logs[i]).toBe(`[${stamp}] ${line}`);
      expect(time).toBe(stamp);
      expect(line).toMatch(/^bar \d+$/);
    });

    for (const size of SIZES) {
      await page.setViewportSize(size);
      await page.evaluate('window.scrollTo(0, 0)');
      expect(await headFits(page)).toEqual({ overlap: false, nameCut: false });
      await page.waitForTimeout(300); // let the charts paint at the new width
      await screenshot(page, `playground-quants-result-${size.width}`);
      await page.evaluate(`document.querySelector('[data-testid=performance]').scrollIntoView({ block: 'start' })`);
      await screenshot(page, `playground-quants-performance-${size.width}`);

      // The reference: the document's sections in the outline, the panel inside the window.
      await page.click('[data-testid=reference-toggle]');
      expect(await page.$$eval('[data-testid=reference-outline] a', (els: any[]) => els.map((e) => e.textContent))).toEqual(documentOutline());
      expect(await clipped(page, 'body', '[data-testid=reference]')).toEqual([]);
      await page.click('[data-testid=reference-body] a[href="#fills"]');
      await page.waitForTimeout(200);
      const fillsTop = await page.$eval('[data-testid=reference-body] #fills', (e: any) => e.getBoundingClientRect().top - e.parentElement.getBoundingClientRect().top);
      expect(Math.abs(fillsTop)).toBeLessThan(40);
      await screenshot(page, `playground-quants-reference-${size.width}`);
      await page.click('[data-testid=reference-close]');
      expect(await page.$('[data-testid=reference]')).toBeNull();
    }
    // The Formulas button opens the reference at the statistics.
    await page.click('[data-testid=performance-formulas]');
    await page.waitForTimeout(200);
    expect(await page.$eval('[data-testid=reference-body] #statistics', (e: any) => Math.abs(e.getBoundingClientRect().top - e.parentElement.getBoundingClientRect().top))).toBeLessThan(40);
    await page.keyboard.press('Escape');
    expect(await page.$('[data-testid=reference]')).toBeNull();

    // Save as strategy: the run on screen is the new strategy's first run.
    await page.fill('input[name=strategy-name]', 'Every 30 bars');
    await page.click('button:has-text("Save as strategy")');
    await page.waitForSelector('[data-testid=strategy-runs] tbody tr.current');
    expect(await page.$$eval('[data-testid=strategy-runs] tbody tr', (els: any[]) => els.length)).toBe(1);
    expect(await text(page, '[data-testid=runs-tab]')).toBe('Runs of Every 30 bars 1');
    expect(await text(page, '[data-testid=run-pnl]')).toBe(usd.format(ex.totalPnl));
    expect(errors).toEqual([]);
    await context.close();
  }, END_TIMEOUT + 120_000);

  it('opens a long template title beside its buttons and wraps the editor\'s long lines at both sizes', async () => {
    const { page, errors, context } = await openPlayground(stage);
    await page.click('[data-template=opening_range_breakout]');
    for (const size of SIZES) {
      await page.setViewportSize(size);
      await page.waitForTimeout(200);
      expect(await page.inputValue('input[name=strategy-name]')).toBe('Opening range breakout');
      expect(await headFits(page)).toEqual({ overlap: false, nameCut: false });
      // Wrapped: nothing runs under the editor's right edge, and the docstring's lines are whole.
      expect(await page.$eval('.cm-content', (e: any) => e.classList.contains('cm-lineWrapping'))).toBe(true);
      expect(await page.$eval('.cm-scroller', (e: any) => e.scrollWidth <= e.clientWidth + 1)).toBe(true);
      await screenshot(page, `playground-quants-editor-${size.width}`);
    }
    expect(errors).toEqual([]);
    await context.close();
  }, WAIT_MS * 2);

  it('puts the optimiser\'s results and a walk-forward in the wide row under both columns, never clipped', async () => {
    const { page, errors, context } = await openPlayground(stage);
    await page.click('[data-template=sma_cross]');
    await setMarket(page, '2025-03-03', '2025-03-07');
    await page.click('[data-testid=optimise-tab]');
    for (const [name, [min, max, step]] of [['fast', [5, 10, 5]], ['slow', [20, 20, 5]]] as const) {
      await page.fill(`input[name=${name}-min]`, String(min));
      await page.fill(`input[name=${name}-max]`, String(max));
      await page.fill(`input[name=${name}-step]`, String(step));
    }
    await page.click('input[name=walkForward]');
    await page.fill('input[name=inSampleDays]', '2');
    await page.fill('input[name=outOfSampleDays]', '1');
    await page.click('[data-testid=optimise-start]');
    await page.waitForFunction(`document.querySelector('[data-testid=optimise-status]')?.textContent === 'completed'`, undefined, { timeout: END_TIMEOUT });
    await page.waitForSelector('[data-testid=wide-column] [data-testid=optimise-results] .pg-wf-chart canvas');
    for (const size of SIZES) {
      await page.setViewportSize(size);
      await page.waitForTimeout(400); // the charts follow the new width
      const widths = await page.evaluate(`(() => {
        const r = document.querySelector('[data-testid=optimise-results]').getBoundingClientRect();
        const w = document.querySelector('.pg-work').getBoundingClientRect();
        return { results: r.width, work: w.width, window: innerWidth };
      })()`) as { results: number; work: number; window: number };
      // Wider than the editor's column: the width of both columns (the window less the sidebar).
      expect(widths.results).toBeGreaterThan(widths.work + 300);
      expect(widths.results).toBeGreaterThan(widths.window * 0.7);
      expect(await clipped(page, '[data-testid=optimise-results]', 'table, .pg-wf-chart, canvas')).toEqual([]);
      expect(await clipped(page, 'body', '[data-testid=optimise-results]')).toEqual([]);
      await page.evaluate(`document.querySelector('[data-testid=optimise-results]').scrollIntoView({ block: 'start' })`);
      await screenshot(page, `playground-quants-walk-forward-${size.width}`);
    }
    expect(errors).toEqual([]);
    await context.close();
  }, END_TIMEOUT + 120_000);
});
