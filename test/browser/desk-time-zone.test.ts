// One bar, one time (issue 30, defect 2): with Chicago time chosen, the desk's chart axis and OHLC
// legend name the same wall time as its clock, in CT, and so does the journal's chart. The axis is
// drawn on a canvas: the chart keeps the last label it drew on its element (`data-axis-mark`).
import { describe, expect, it } from 'bun:test';
import type { Page } from 'playwright-core';
import { closeClean, deskPage, WAIT } from './desk-support.ts';
import { browserStage, docScreenshot, noBrowser } from './support.ts';

const CT = new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Chicago', hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit' });

/** `2025-03-02 18:09` in Chicago. */
function chicago(epochS: number): string {
  const p = Object.fromEntries(CT.formatToParts(new Date(epochS * 1000)).map((x) => [x.type, x.value]));
  return `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute}`;
}

/** What the axis label of kind `kind` at `epochS` reads in Chicago (time-format.ts' zonedTickMark). */
function chicagoMark(epochS: number, kind: number): string {
  const t = chicago(epochS);
  if (kind === 0) return t.slice(0, 4);
  if (kind === 1) return t.slice(0, 7);
  if (kind === 2) return t.slice(11, 16) === '00:00' ? t.slice(5, 10) : `${t.slice(5, 10)} ${t.slice(11, 16)}`;
  return t.slice(11, 16);
}

/** The last axis label a chart drew: its time, kind and text. */
async function axisMark(page: Page, sel: string): Promise<{ epochS: number; kind: number; label: string }> {
  await page.waitForFunction(`!!document.querySelector('${sel}')?.dataset.axisMark`, undefined, WAIT);
  const [t, k, ...label] = (await page.getAttribute(sel, 'data-axis-mark'))!.split('|');
  return { epochS: Number(t), kind: Number(k), label: label.join('|') };
}

describe.skipIf(noBrowser)('console: the time zone beyond the clock', () => {
  const stage = browserStage();

  it('with Chicago time chosen, the chart axis, the legend and the journal’s chart read CT, as the clock does', async () => {
    const { page, ...opened } = await deskPage(stage);
    await page.evaluate("localStorage.setItem('rd.timeZone', 'America/Chicago')");
    await page.reload();
    await page.waitForSelector('[data-testid=start-form] select[name=contract] option', { state: 'attached' });
    await page.fill('input[name=startDate]', '2025-03-03');
    await page.selectOption('select[name=timeframe]', '1m');
    await page.click('text=Start replay');
    await page.waitForSelector('[data-testid=link][data-state=up]', WAIT);
    await page.click('[data-testid=step]');
    await page.waitForFunction("document.querySelector('[data-testid=sim-time]').textContent.trim() === '2025-03-02 18:01:00'", undefined, WAIT);
    // The last bar opens at 00:00 UTC, 18:00 CT the day before: the legend names it so, with its zone.
    expect((await page.textContent('[data-testid=legend-time]'))?.trim()).toBe('2025-03-02 18:00 CT');
    const mark = await axisMark(page, '[data-testid=chart]');
    expect(mark.label).toBe(chicagoMark(mark.epochS, mark.kind));
    if (mark.kind >= 2) expect(mark.label).not.toContain(new Date(mark.epochS * 1000).toISOString().slice(11, 16));
    await page.setViewportSize({ width: 1280, height: 720 });
    await page.mouse.move(5, 5);
    await docScreenshot(page, 'desk-chicago-1280');

    const accountId = Number(await page.evaluate("localStorage.getItem('rd.desk.current')"));
    await page.click('[data-testid=end]');
    await page.click('[data-testid=end-yes]');
    await page.waitForSelector('[data-testid=final-result]', WAIT);
    await page.goto(`${stage.server.base}/#/journal?id=${accountId}`);
    await page.waitForSelector('[data-testid=journal-chart][data-state=ready]', WAIT);
    const j = await axisMark(page, '[data-testid=journal-chart]');
    expect(j.label).toBe(chicagoMark(j.epochS, j.kind));
    expect(await page.textContent('[data-testid=journal-detail]')).toContain('CT');
    await closeClean(opened);
  }, 120_000);
});
