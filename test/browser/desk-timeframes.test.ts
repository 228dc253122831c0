// Two timeframes of one session side by side (issue 30), in headless Chromium against the real
// server: a 1 m NQ session, a second pane of NQ at 15 m chosen from the layout, twenty steps; the
// 15 m pane's last bar is the fold of the 1 m bars played since its bucket began (read from the
// chart: its legend and dataset), both panes' clocks are the server's, a change of the pane's width
// reads no bars (neither pane's) and gives the keys back to the desk, the order, fill, position and
// drawing of the session are on both panes, and the layout survives a reload. Screenshots at 1440×900 and 1280×720 go to test/.screenshots, and to
// docs/screenshots/ with UPDATE_DOC_SCREENSHOTS=1.
import { describe, expect, it } from 'bun:test';
import type { Page } from 'playwright-core';
import { closeClean, deskPage, WAIT } from './desk-support.ts';
import { browserStage, docScreenshot, noBrowser, type Stage } from './support.ts';

type Bar = { t: string; o: number; h: number; l: number; c: number; v: number };

const OTHER = '[data-testid=pane]:not(.primary)';

async function text(page: Page, sel: string): Promise<string> {
  return ((await page.textContent(sel)) ?? '').trim();
}

async function post(page: Page, path: string, body: Record<string, unknown>): Promise<any> {
  return page.evaluate(
    `fetch('${path}', { method: 'POST', headers: { 'content-type': 'application/json' }, body: ${JSON.stringify(JSON.stringify(body))} }).then((r) => r.json())`,
  );
}

/** The session as the server states it (GET /api/auth/replay-sessions/:id). */
function serverSession(page: Page, accountId: number): Promise<any> {
  return page.evaluate((id) => fetch(`/api/auth/replay-sessions/${id}`).then((r) => r.json()), accountId);
}

/** 1 m bars of a contract opening from `fromIso` and ending by the clock, as History serves them. */
async function barsUpTo(page: Page, contractId: string, fromIso: string, clockIso: string): Promise<Bar[]> {
  const r = await post(page, '/api/sim/History/retrieveBars', { contractId, unit: 2, unitNumber: 1, startTime: fromIso, endTime: clockIso, limit: 20000 });
  return r.bars.filter((b: Bar) => Date.parse(b.t) >= Date.parse(fromIso) && Date.parse(b.t) + 60_000 <= Date.parse(clockIso));
}

/** The other pane's last bar as its chart draws it: the legend (no bar hovered) and the chart's dataset. */
async function lastBarOf(page: Page) {
  const legend = `${OTHER} [data-testid=legend]`;
  return {
    time: Number(await page.getAttribute(legend, 'data-time')),
    o: await text(page, `${legend} [data-testid=legend-open]`),
    h: await text(page, `${legend} [data-testid=legend-high]`),
    l: await text(page, `${legend} [data-testid=legend-low]`),
    c: await text(page, `${legend} [data-testid=legend-close]`),
    v: await text(page, `${legend} [data-testid=legend-volume]`),
    lastClose: await page.getAttribute(`${OTHER} [data-testid=pane-chart]`, 'data-last-close'),
  };
}

/** The fold of 1 m bars into one, as a 15 m bar: first open, highest high, lowest low, last close, volumes summed. */
function fold(bars: Bar[], bucketIso: string) {
  const c = bars[bars.length - 1].c;
  return {
    time: Date.parse(bucketIso) / 1000,
    o: bars[0].o.toFixed(2),
    h: Math.max(...bars.map((b) => b.h)).toFixed(2),
    l: Math.min(...bars.map((b) => b.l)).toFixed(2),
    c: c.toFixed(2),
    v: String(bars.reduce((n, b) => n + b.v, 0)),
    lastClose: String(c),
  };
}

/** A signed-in page that started a 1 m session on 2025-03-03 from the desk's form (`more`: its other instruments' options), the session's account. */
async function startSession(stage: Stage, more: (page: Page) => Promise<void> = async () => undefined) {
  const opened = await deskPage(stage);
  const { page } = opened;
  await page.waitForSelector('[data-testid=data-last]', WAIT);
  await page.fill('input[name=startDate]', '2025-03-03');
  await page.selectOption('select[name=timeframe]', '1m');
  await more(page);
  await page.click('text=Start replay');
  await page.waitForFunction("Number(document.querySelector('[data-testid=chart]')?.dataset.bars) > 0 && !document.querySelector('.chart-loading')", undefined, WAIT);
  return { ...opened, accountId: Number(await page.evaluate("localStorage.getItem('rd.desk.current')")) };
}

/** Ends the session (the user's live sessions are counted), then no page error and the context closed. */
async function endAndClose(opened: Awaited<ReturnType<typeof startSession>>): Promise<void> {
  expect((await post(opened.page, '/api/sim/Replay/end', { accountId: opened.accountId })).success).toBe(true);
  await closeClean(opened);
}

const paneAttrs = (page: Page) => page.$$eval('[data-testid=pane]', (ps: any[]) => ps.map((p) => [p.dataset.contract, p.dataset.timeframe]));
const paneClocks = (page: Page) => page.$$eval('[data-testid=pane-clock]', (cs: any[]) => cs.map((c) => c.dataset.time));

describe.skipIf(noBrowser)('console: two timeframes of one session side by side', () => {
  const stage = browserStage();

  it('1 m beside 15 m: twenty steps, the 15 m bar is the fold of the 1 m bars up to the clock, both clocks the server’s, and the layout survives a reload', async () => {
    const opened = await startSession(stage);
    const { page, accountId } = opened;
    // One chart by default; a session of one instrument offers no Trade button (the ticket trades it).
    const [[nq, tf]] = await paneAttrs(page);
    expect([tf, (await paneAttrs(page)).length, await page.$$eval('[data-testid=pane-trade]', (b: any[]) => b.length)]).toEqual(['1m', 1, 0]);
    expect(await page.getAttribute('[data-testid=layout-count][data-count="1"]', 'aria-pressed')).toBe('true');

    // Two side by side: NQ again, at 15 m, its bars up to the clock.
    await page.click('[data-testid=layout-count][data-count="2"]');
    await page.waitForFunction(`document.querySelector('${OTHER} [data-testid=pane-chart]')?.dataset.width === '15m' && !document.querySelector('.chart-loading')`, undefined, WAIT);
    expect(await paneAttrs(page)).toEqual([[nq, '1m'], [nq, '15m']]);

    // Twenty steps: the 1 m chart ends at 00:19, the 15 m pane at the 00:15 bucket built so far.
    for (let k = 0; k < 2; k++) await page.keyboard.press('Shift+ArrowRight');
    await page.waitForFunction("document.querySelector('[data-testid=progress]').textContent.trim().startsWith('20 /')", undefined, WAIT);
    await page.waitForFunction(`document.querySelector('${OTHER} [data-testid=pane-clock]').dataset.time === '2025-03-03T00:20:00.000Z'`, undefined, WAIT);
    const server = await serverSession(page, accountId);
    expect(server.currentTime).toBe('2025-03-03T00:20:00Z');
    expect((await paneClocks(page)).map((t) => Date.parse(t))).toEqual([Date.parse(server.currentTime), Date.parse(server.currentTime)]);
    expect(await text(page, '[data-testid=sim-time]')).toBe('2025-03-03 00:20:00');
    expect(await page.getAttribute('[data-testid=chart]', 'data-last-time')).toBe('2025-03-03T00:19:00.000Z');
    expect(await page.getAttribute(`${OTHER} [data-testid=pane-chart]`, 'data-last-time')).toBe('2025-03-03T00:15:00.000Z');
    const played = await barsUpTo(page, nq, '2025-03-03T00:15:00Z', server.currentTime);
    expect(played.map((b) => b.t.slice(11, 16))).toEqual(['00:15', '00:16', '00:17', '00:18', '00:19']);
    const folded = fold(played, '2025-03-03T00:15:00Z');
    expect(await lastBarOf(page)).toEqual(folded);

    // A change of the pane's width redraws it from the bars it holds: no read, in this pane or the other.
    const reads: string[] = [];
    page.on('request', (r) => r.url().includes('/bars') && reads.push(r.url()));
    const oneMinuteBars = await page.getAttribute('[data-testid=chart]', 'data-bars');
    await page.selectOption(`${OTHER} select[name=viewWidth]`, '5m');
    await page.waitForFunction(`document.querySelector('${OTHER} [data-testid=pane-chart]').dataset.lastTime === '2025-03-03T00:15:00.000Z' && document.querySelector('${OTHER} [data-testid=pane-chart]').dataset.width === '5m'`);
    expect(await lastBarOf(page)).toEqual(folded);
    // Chosen as a trader does, the menu focused (playwright's selectOption alone leaves the focus where it was).
    await page.focus(`${OTHER} select[name=viewWidth]`);
    await page.selectOption(`${OTHER} select[name=viewWidth]`, '15m');
    await page.waitForFunction(`document.querySelector('${OTHER} [data-testid=pane-chart]').dataset.width === '15m'`);
    expect([reads, await page.getAttribute('[data-testid=chart]', 'data-bars')]).toEqual([[], oneMinuteBars]);
    // The keys are the desk's again once a width is chosen: → steps (and the width stays).
    expect(await page.evaluate('document.activeElement.tagName')).not.toBe('SELECT');
    await page.keyboard.press('ArrowRight');
    await page.waitForFunction("document.querySelector('[data-testid=progress]').textContent.trim().startsWith('21 /')", undefined, WAIT);
    await page.waitForFunction(`document.querySelector('${OTHER} [data-testid=pane-clock]').dataset.time === '2025-03-03T00:21:00.000Z'`, undefined, WAIT);
    const stepped = await barsUpTo(page, nq, '2025-03-03T00:15:00Z', '2025-03-03T00:21:00Z');
    expect([await page.getAttribute(`${OTHER} [data-testid=pane-chart]`, 'data-width'), await lastBarOf(page)]).toEqual(['15m', fold(stepped, '2025-03-03T00:15:00Z')]);

    // An order and a drawing of the session are on both panes.
    const last = Number(await page.getAttribute('[data-testid=chart]', 'data-last-close'));
    await page.click('[data-type=Limit]');
    await page.fill('input[name=limitPrice]', (last - 10).toFixed(2));
    await page.click('[data-testid=buy]');
    await page.waitForFunction("document.querySelectorAll('[data-testid=orders] tbody tr').length === 1", undefined, WAIT);
    const order = (await post(page, '/api/sim/Order/searchOpen', { accountId })).orders[0];
    await page.waitForSelector(`.pane.primary .order-chip[data-order-id="${order.id}"]`, WAIT);
    await page.waitForSelector(`${OTHER} .order-chip[data-order-id="${order.id}"]`, WAIT);
    // Its chip dragged over the market on the 15 m pane asks there first, as on the session's chart; kept, it stays.
    const grip = await page.$eval(`${OTHER} .order-chip[data-order-id="${order.id}"] .grip`, (el: any) => el.getBoundingClientRect().toJSON());
    const top = await page.$eval(`${OTHER} [data-testid=pane-chart]`, (el: any) => el.getBoundingClientRect().top);
    await page.mouse.move(grip.x + grip.width / 2, grip.y + grip.height / 2);
    await page.mouse.down();
    await page.mouse.move(grip.x + grip.width / 2, top + 12, { steps: 8 });
    await page.mouse.up();
    await page.waitForSelector(`${OTHER} [data-testid=move-confirm]`, WAIT);
    expect(await text(page, `${OTHER} [data-testid=move-confirm] p`)).toMatch(/^A buy limit at \d+\.\d\d is at or above the last price \(\d+\.\d\d\): it fills at once, as a market order would\.$/);
    await page.click(`${OTHER} [data-testid=move-no]`);
    await page.waitForSelector(`${OTHER} [data-testid=move-confirm]`, { state: 'detached' });
    expect((await post(page, '/api/sim/Order/searchOpen', { accountId })).orders.map((o: any) => [o.id, o.limitPrice])).toEqual([[order.id, order.limitPrice]]);
    // Shift+click under the market on the 15 m pane places a limit there, as on the session's chart.
    const pane = await page.$eval(`${OTHER} [data-testid=pane-chart]`, (el: any) => el.getBoundingClientRect().toJSON());
    await page.keyboard.down('Shift');
    await page.mouse.click(pane.x + pane.width * 0.5, pane.y + pane.height * 0.6);
    await page.keyboard.up('Shift');
    await page.waitForFunction("document.querySelectorAll('[data-testid=orders] tbody tr').length === 2", undefined, WAIT);
    const clicked = (await post(page, '/api/sim/Order/searchOpen', { accountId })).orders.find((o: any) => o.id !== order.id);
    expect([clicked.type, clicked.side, clicked.limitPrice < last]).toEqual([1, 0, true]);
    await page.waitForSelector(`.pane.primary .order-chip[data-order-id="${clicked.id}"]`, WAIT);
    const box = (await page.$eval('[data-testid=chart]', (e: any) => e.getBoundingClientRect().toJSON())) as { x: number; y: number; width: number; height: number };
    await page.click('.pane.primary [data-draw=hline]');
    await page.mouse.click(box.x + box.width * 0.4, box.y + box.height * 0.3);
    await page.waitForFunction(`document.querySelector('[data-testid=chart]').dataset.drawingLines === '1' && document.querySelector('${OTHER} [data-testid=pane-chart]').dataset.drawingLines === '1'`, undefined, WAIT);
    expect(await page.getAttribute(`${OTHER} [data-testid=pane-chart]`, 'data-drawing-prices')).toBe(await page.getAttribute('[data-testid=chart]', 'data-drawing-prices'));
    // A market buy: its fill's marker and the position's line on both panes (the 15 m one on its bucket).
    const lines = async () => page.$$eval('[data-testid=chart], [data-testid=pane-chart]', (cs: any[]) => cs.map((c) => Number(c.dataset.priceLines)));
    const linesBefore = await lines();
    await page.click('[data-type=Market]');
    await page.click('[data-testid=buy]');
    await page.waitForFunction("document.querySelectorAll('[data-testid=fills] tbody tr').length === 1", undefined, WAIT);
    await page.waitForFunction("[...document.querySelectorAll('[data-testid=chart], [data-testid=pane-chart]')].every((c) => c.dataset.markers === '1')", undefined, WAIT);
    expect((await lines()).map((n, k) => n - linesBefore[k])).toEqual([1, 1]);
    // The pointer off the charts: each legend shows its last bar.
    await page.mouse.move(5, 5);
    await docScreenshot(page, 'desk-timeframes-1440');
    await page.setViewportSize({ width: 1280, height: 720 });
    await page.waitForTimeout(300);
    await docScreenshot(page, 'desk-timeframes-1280');
    const widths = await page.$$eval('[data-testid=pane] .chart-wrap', (els: any[]) => els.map((e) => e.getBoundingClientRect().width));
    for (const w of widths) expect(w).toBeGreaterThan(380);
    expect(await page.$$eval('[data-testid=pane-head]', (els: any[]) => els.map((e) => e.scrollWidth <= e.clientWidth + 1))).toEqual([true, true]);

    // A reload: the same layout, the 15 m pane's last bar the same fold, the clocks the server's.
    await page.reload();
    await page.waitForFunction(`document.querySelectorAll('[data-testid=pane]').length === 2 && document.querySelector('${OTHER} [data-testid=pane-chart]')?.dataset.width === '15m' && !document.querySelector('.chart-loading')`, undefined, WAIT);
    expect(await paneAttrs(page)).toEqual([[nq, '1m'], [nq, '15m']]);
    await page.waitForFunction(`[...document.querySelectorAll('[data-testid=pane-clock]')].every((c) => Date.parse(c.dataset.time) === Date.parse('2025-03-03T00:21:00Z'))`, undefined, WAIT);
    expect(await lastBarOf(page)).toEqual(fold(stepped, '2025-03-03T00:15:00Z'));
    await endAndClose(opened);
  }, 240_000);

  it('a session over NQ and ES: a third pane is NQ at 15 m; a pane’s width or instrument changes that pane alone, read once', async () => {
    let es = '';
    const opened = await startSession(stage, async (p) => {
      es = await p.$$eval('[data-testid=start-form] select[name=contract] option', (os: any[]) => os.find((o) => o.textContent.trim().startsWith('ES'))!.value);
      await p.selectOption('select[name=addInstrument]', es);
    });
    const { page } = opened;
    await page.waitForFunction("document.querySelectorAll('[data-testid=pane-chart]').length === 1 && Number(document.querySelector('[data-testid=pane-chart]').dataset.bars) > 0 && !document.querySelector('.chart-loading')", undefined, WAIT);
    const nq = (await paneAttrs(page))[0][0];
    await page.keyboard.press('Shift+ArrowRight');
    await page.waitForFunction("document.querySelector('[data-testid=progress]').textContent.trim().startsWith('10 /')", undefined, WAIT);

    await page.click('[data-testid=layout-count][data-count="3"]');
    await page.waitForFunction("document.querySelectorAll('[data-testid=pane-chart]').length === 2 && !document.querySelector('.chart-loading')", undefined, WAIT);
    expect(await paneAttrs(page)).toEqual([[nq, '1m'], [es, '1m'], [nq, '15m']]);
    const charts = '[data-testid=pane-chart]';
    const counts = () => page.$$eval(`[data-testid=chart], ${charts}`, (cs: any[]) => cs.map((c) => [c.dataset.bars, c.dataset.lastTime, c.dataset.width ?? '']));
    await page.waitForFunction(`[...document.querySelectorAll('${charts}')].every((c) => c.dataset.lastTime)`, undefined, WAIT);
    const before = await counts();
    expect(before.map((c) => c[1])).toEqual(['2025-03-03T00:09:00.000Z', '2025-03-03T00:09:00.000Z', '2025-03-03T00:00:00.000Z']);

    const reads: string[] = [];
    page.on('request', (r) => r.url().includes('/bars') && reads.push(r.postData() ?? ''));
    // ES at 1 h: its chart alone is redrawn, nothing read.
    await page.selectOption(`[data-testid=pane][data-contract="${es}"] select[name=viewWidth]`, '1h');
    await page.waitForFunction(`document.querySelector('[data-testid=pane][data-contract="${es}"] ${charts}').dataset.width === '1h'`);
    const wider = await counts();
    expect([wider[0], wider[2], reads]).toEqual([before[0], before[2], []]);
    expect(wider[1][1]).toBe('2025-03-03T00:00:00.000Z');
    // The third pane to ES: one read, of ES, for that pane; the others as they were.
    await page.selectOption(`[data-testid=pane]:nth-child(3) select[name=paneInstrument]`, es);
    await page.waitForFunction(`[...document.querySelectorAll('[data-testid=pane]')].map((p) => p.dataset.contract).join() === '${[nq, es, es].join()}' && !document.querySelector('.chart-loading') && document.querySelectorAll('${charts}')[1].dataset.lastTime`, undefined, WAIT);
    expect(reads.map((r) => JSON.parse(r).symbol)).toEqual(['ES']);
    expect(await paneAttrs(page)).toEqual([[nq, '1m'], [es, '1h'], [es, '15m']]);
    const after = await counts();
    expect([after[0], after[1]]).toEqual([wider[0], wider[1]]);
    expect(after[2].slice(1)).toEqual(['2025-03-03T00:00:00.000Z', '15m']);

    // Kept across a reload; one instrument fewer (the layout's count) drops the last pane.
    await page.reload();
    await page.waitForFunction("document.querySelectorAll('[data-testid=pane-chart]').length === 2 && !document.querySelector('.chart-loading')", undefined, WAIT);
    expect(await paneAttrs(page)).toEqual([[nq, '1m'], [es, '1h'], [es, '15m']]);
    await page.click('[data-testid=layout-count][data-count="2"]');
    await page.waitForFunction("document.querySelectorAll('[data-testid=pane]').length === 2");
    expect(await paneAttrs(page)).toEqual([[nq, '1m'], [es, '1h']]);
    await endAndClose(opened);
  }, 240_000);
});
