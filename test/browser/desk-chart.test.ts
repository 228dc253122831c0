// The desk's chart as a trader's tool (its chart, the orders on it, the contract names),
// in headless Chromium against the real server: indicators with their values in the legend, the
// session's bars at another width, drawings kept with the session, the contract traded on the
// replayed date, orders placed and moved on the chart (Order/modify: in place, a bracket leg still
// linked), the position's open P&L, cancel-all and flatten-all. Screenshots go to the test's folder, and to docs/screenshots/ with UPDATE_DOC_SCREENSHOTS=1.
import { describe, expect, it } from 'bun:test';
import type { Page } from 'playwright-core';
import { contractNameFor } from '../../src/domain/contract-id.ts';
import { bollinger, sma, vwap } from '../../src/domain/indicators.ts';
import { findInstrument } from '../../src/domain/instrument.ts';
import { browserStage, docScreenshot, loginThroughForm, noBrowser } from './support.ts';

async function text(page: Page, sel: string): Promise<string> {
  return ((await page.textContent(sel)) ?? '').trim();
}

async function chartAttr(page: Page, name: string): Promise<string> {
  return (await page.getAttribute('[data-testid=chart]', `data-${name}`)) ?? '';
}

async function rows(page: Page, testid: string): Promise<string[][]> {
  return page.$$eval(`[data-testid=${testid}] tbody tr`, (trs: any[]) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td: any) => td.textContent.trim())));
}

async function waitProgress(page: Page, n: number): Promise<void> {
  await page.waitForFunction(`document.querySelector('[data-testid=progress]').textContent.trim().startsWith('${n} /')`);
}

async function openSession(stage: ReturnType<typeof browserStage>, viewport: { width: number; height: number }, date: string) {
  const context = await stage.browser.newContext({ viewport });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => m.type() === 'error' && !m.text().includes('401') && errors.push(m.text()));
  await loginThroughForm(page, stage.server);
  await page.goto(`${stage.server.base}/#/desk`);
  await page.waitForSelector('[data-testid=data-last]');
  await page.fill('input[name=startDate]', date);
  await page.selectOption('select[name=timeframe]', '1m');
  await page.click('text=Start replay');
  await page.waitForSelector('[data-testid=desk]');
  await page.waitForFunction("Number(document.querySelector('[data-testid=chart]')?.dataset.bars) > 0 && !document.querySelector('.chart-loading')");
  return { context, page, errors };
}

/** 1 m bars of the session's contract from `fromIso` up to the clock, as History serves them. */
async function barsUpTo(page: Page, fromIso: string, clockIso: string): Promise<{ t: string; o: number; h: number; l: number; c: number; v: number }[]> {
  return page.evaluate(
    `fetch('/api/sim/History/retrieveBars', { method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ contractId: 'CON.F.US.ENQ.H25', unit: 2, unitNumber: 1, startTime: '${fromIso}', endTime: '${clockIso}', limit: 20000 }) })
      .then((r) => r.json()).then((j) => j.bars.filter((b) => Date.parse(b.t) + 60000 <= Date.parse('${clockIso}')))`,
  );
}

/** Order/search over the session (the console's cookie; the spec's view: working orders are 6 Pending). */
async function searchOrders(page: Page, accountId: number): Promise<{ id: number; status: number; type: number; limitPrice: number | null; stopPrice: number | null }[]> {
  return page.evaluate(
    `fetch('/api/sim/Order/search', { method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ accountId: ${accountId}, startTimestamp: '2000-01-01T00:00:00Z' }) }).then((r) => r.json()).then((j) => j.orders)`,
  );
}

interface ListedOrder {
  id: number;
  side: string;
  type: string;
  price: number;
}

/**
 * B with a 40-tick stop-loss and an 80-tick take-profit: its two legs, and the chart's pixels per
 * point measured between their chips (once they have followed the rescaled chart).
 */
async function bracketedBuy(page: Page, orders: () => Promise<ListedOrder[]>) {
  await page.fill('input[name=slTicks]', '40');
  await page.fill('input[name=tpTicks]', '80');
  await page.focus('[data-testid=step]');
  await page.keyboard.press('b');
  await page.waitForFunction("document.querySelectorAll('[data-testid=chart-orders] [data-order-id]').length === 2");
  const legs = await orders();
  const stopLeg = legs.find((o) => o.type === 'STP')!;
  const target = legs.find((o) => o.type === 'LMT')!;
  await page.evaluate('new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => requestAnimationFrame(r))))');
  const chipY = (id: number) => page.$eval(`[data-testid=chart-orders] [data-order-id="${id}"]`, (el: any) => el.getBoundingClientRect().top);
  const pxPerPoint = ((await chipY(stopLeg.id)) - (await chipY(target.id))) / (target.price - stopLeg.price);
  return { legs, stopLeg, target, pxPerPoint };
}

/** Drags the chip of working order `id` by `dy` pixels (up when negative). */
async function dragChip(page: Page, id: number, dy: number): Promise<void> {
  const g = await page.$eval(`[data-testid=chart-orders] [data-order-id="${id}"] .grip`, (el: any) => {
    const r = el.getBoundingClientRect();
    return { x: r.left + r.width / 2, y: r.top + r.height / 2 };
  });
  await page.mouse.move(g.x, g.y);
  await page.mouse.down();
  await page.mouse.move(g.x, g.y + dy / 2, { steps: 4 });
  await page.mouse.move(g.x, g.y + dy, { steps: 4 });
  await page.mouse.up();
}

/** Waits until the order chips are where they were three animation frames before (the scale has settled). */
async function chipsSettled(page: Page): Promise<void> {
  await page.waitForFunction(`new Promise((resolve) => {
    const tops = () => [...document.querySelectorAll('[data-testid=chart-orders] .grip')].map((el) => el.getBoundingClientRect().top).join();
    const before = tops();
    requestAnimationFrame(() => requestAnimationFrame(() => requestAnimationFrame(() => resolve(tops() === before))));
  })`);
}

/** Pixels a point on the price scale as it is now, from two chips' prices and positions. */
async function pxPerPointNow(page: Page, a: { id: number; price: number }, b: { id: number; price: number }): Promise<number> {
  const y = (id: number) => page.$eval(`[data-testid=chart-orders] [data-order-id="${id}"] .grip`, (el: any) => el.getBoundingClientRect().top);
  return ((await y(b.id)) - (await y(a.id))) / (a.price - b.price);
}

/** The chart's price pane as a box, for clicks and drags. */
async function pane(page: Page): Promise<{ x: number; y: number; w: number; h: number }> {
  return page.$eval('[data-testid=chart]', (el: any) => {
    const r = el.getBoundingClientRect();
    return { x: r.left, y: r.top, w: r.width, h: r.height };
  });
}

describe.skipIf(noBrowser)('console: the desk chart', () => {
  const stage = browserStage();

  it('draws SMA, EMA, VWAP, Bollinger and RSI with values that agree with the shared module, shows the bars at 5 m up to the clock, names the replayed contract', async () => {
    const { page, errors, context } = await openSession(stage, { width: 1440, height: 900 }, '2025-03-03');
    // The front month on 2025-03-03 was H25; the API names today's front beside it.
    expect(await text(page, '[data-testid=progress]')).toStartWith('0 /');
    await page.keyboard.press('Shift+ArrowRight');
    await waitProgress(page, 10);
    await page.keyboard.press('Shift+ArrowRight');
    await waitProgress(page, 20);
    expect(await text(page, '[data-testid=replayed-contract]')).toBe('NQH5');
    expect(await text(page, '[data-testid=contract-name]')).toBe(`API ${contractNameFor(findInstrument('NQ')!, Date.now())}`);

    for (const k of ['sma20', 'ema9', 'vwap', 'bb20', 'rsi14']) await page.click(`[data-indicator=${k}]`);
    await page.waitForFunction("(document.querySelector('[data-testid=chart]').dataset.lines ?? '').includes('rsi14')");
    expect((await chartAttr(page, 'lines')).split(' ')).toEqual(['bb20.lower', 'bb20.mid', 'bb20.upper', 'ema9', 'rsi14', 'sma20', 'vwap']);
    // RSI and ATR share the pane: one at a time.
    await page.click('[data-indicator=atr14]');
    await page.waitForFunction("(document.querySelector('[data-testid=chart]').dataset.lines ?? '').includes('atr14')");
    expect(await chartAttr(page, 'lines')).not.toContain('rsi14');
    await page.click('[data-indicator=rsi14]');
    await page.waitForFunction("!(document.querySelector('[data-testid=chart]').dataset.lines ?? '').includes('atr14')");

    // The legend (the last bar, no pointer) against the shared module over History's bars to the clock.
    const clock = `${(await text(page, '[data-testid=sim-time]')).replace(' ', 'T')}Z`;
    expect(clock).toBe('2025-03-03T00:20:00Z');
    // The CME trade date of 2025-03-03 began 2025-03-02 17:00 Chicago (23:00 UTC): VWAP's start.
    const bars = await barsUpTo(page, '2025-03-02T23:00:00Z', clock);
    expect(bars.length).toBe(80);
    const closes = bars.map((b) => b.c);
    const last = bars[bars.length - 1];
    expect(await text(page, '[data-testid=legend-close]')).toBe(last.c.toFixed(2));
    expect(await text(page, '[data-testid=legend-high]')).toBe(last.h.toFixed(2));
    expect(await text(page, '[data-testid=legend-sma20]')).toBe(`SMA 20 ${sma(closes, 20)[79]!.toFixed(2)}`);
    const bb = bollinger(closes, 20, 2);
    expect(await text(page, '[data-testid="legend-bb20.upper"]')).toBe(`BB upper ${bb.upper[79]!.toFixed(2)}`);
    const ohlcv = { highs: bars.map((b) => b.h), lows: bars.map((b) => b.l), closes, volumes: bars.map((b) => b.v) };
    expect(await text(page, '[data-testid=legend-vwap]')).toBe(`VWAP ${vwap(ohlcv, bars.map(() => 1))[79]!.toFixed(2)}`);

    // Hovering a bar shows its OHLC.
    const box = await pane(page);
    await page.mouse.move(box.x + box.w * 0.5, box.y + box.h * 0.4);
    await page.waitForFunction(`document.querySelector('[data-testid=legend]').dataset.time !== '${Date.parse(last.t) / 1000}'`);
    const hovered = Number(await page.getAttribute('[data-testid=legend]', 'data-time'));
    expect(hovered).toBeLessThan(Date.parse(last.t) / 1000);
    await page.mouse.move(box.x + box.w + 40, box.y - 40);
    await docScreenshot(page, 'desk-chart-indicators-1440');

    // 5 m: the same session's bars in 5 m buckets, the last one up to the clock (00:15–00:20 holds 00:15…00:19).
    const oneMinuteBars = Number(await chartAttr(page, 'bars'));
    await page.selectOption('select[name=viewWidth]', '5m');
    await page.waitForFunction("document.querySelector('[data-testid=chart]').dataset.width === '5m'");
    expect(await chartAttr(page, 'last-time')).toBe('2025-03-03T00:15:00.000Z');
    expect(Number(await chartAttr(page, 'bars'))).toBeLessThan(oneMinuteBars / 4);
    const bucket = bars.slice(-5);
    expect(await text(page, '[data-testid=legend-open]')).toBe(bucket[0].o.toFixed(2));
    expect(await text(page, '[data-testid=legend-high]')).toBe(Math.max(...bucket.map((b) => b.h)).toFixed(2));
    expect(await text(page, '[data-testid=legend-volume]')).toBe(String(bucket.reduce((n, b) => n + b.v, 0)));
    // The 5 m bars fill the view: the middle of the pane holds one, earlier than the last.
    await page.mouse.move(box.x + box.w * 0.5, box.y + box.h * 0.4);
    await page.waitForFunction(`document.querySelector('[data-testid=legend]').dataset.time !== '${Date.parse('2025-03-03T00:15:00Z') / 1000}'`);
    const middle = Number(await page.getAttribute('[data-testid=legend]', 'data-time'));
    expect(middle % 300).toBe(0);
    expect(middle).toBeLessThan(Date.parse('2025-03-03T00:15:00Z') / 1000 - 20 * 300);
    await page.mouse.move(box.x + box.w + 40, box.y - 40);
    // A step adds a bar to the chart's 5 m view: a new bucket at 00:20.
    await page.click('[data-testid=step]');
    await waitProgress(page, 21);
    await page.waitForFunction("document.querySelector('[data-testid=chart]').dataset.lastTime === '2025-03-03T00:20:00.000Z'");
    await docScreenshot(page, 'desk-chart-5m-1440');
    await page.selectOption('select[name=viewWidth]', '1m');
    await page.waitForFunction(`Number(document.querySelector('[data-testid=chart]').dataset.bars) === ${oneMinuteBars + 1}`);
    expect(errors).toEqual([]);
    await context.close();
  }, 180_000);

  it('keeps horizontal and trend lines with the session on the server: across a reload, and in another browser resuming it', async () => {
    const { page, errors, context } = await openSession(stage, { width: 1440, height: 900 }, '2025-03-05');
    await page.keyboard.press('Shift+ArrowRight');
    await waitProgress(page, 10);
    const accountId = Number(await page.evaluate("localStorage.getItem('rd.desk.current')"));
    const box = await pane(page);
    await page.click('[data-draw=hline]');
    await page.mouse.click(box.x + box.w * 0.4, box.y + box.h * 0.3);
    await page.waitForFunction("document.querySelector('[data-testid=chart]').dataset.drawingLines === '1'");
    await page.click('[data-draw=trend]');
    await page.mouse.click(box.x + box.w * 0.3, box.y + box.h * 0.6);
    await page.mouse.click(box.x + box.w * 0.7, box.y + box.h * 0.35);
    await page.waitForFunction("(document.querySelector('[data-testid=chart]').dataset.lines ?? '').includes('trend.0')");
    // The tool is put down after a line: a plain click then draws nothing and trades nothing.
    await page.mouse.click(box.x + box.w * 0.5, box.y + box.h * 0.5);
    expect(await chartAttr(page, 'drawing-lines')).toBe('1');
    expect(await rows(page, 'orders')).toEqual([]);
    // Kept on the server as drawn: one horizontal line and one trend line, on the tick grid.
    const read = (p: Page) => p.evaluate(`fetch('/api/auth/replay-sessions/${accountId}/drawings').then((r) => r.json())`) as Promise<any>;
    await page.waitForFunction(`fetch('/api/auth/replay-sessions/${accountId}/drawings').then((r) => r.json()).then((j) => j.trendLines.length === 1)`);
    const kept = await read(page);
    expect(kept.horizontalLines).toHaveLength(1);
    for (const price of [kept.horizontalLines[0].price, kept.trendLines[0].startPrice, kept.trendLines[0].endPrice]) expect((price * 4) % 1).toBe(0);
    expect(Date.parse(kept.trendLines[0].startTime)).toBeLessThan(Date.parse(kept.trendLines[0].endTime));

    await page.reload();
    await page.waitForSelector('[data-testid=desk]');
    await page.waitForFunction("Number(document.querySelector('[data-testid=chart]')?.dataset.bars) > 0 && !document.querySelector('.chart-loading')");
    await page.waitForFunction("document.querySelector('[data-testid=chart]').dataset.drawingLines === '1'");
    expect(await chartAttr(page, 'lines')).toContain('trend.0');
    await docScreenshot(page, 'desk-chart-drawings-1440');

    // Another browser (fresh storage) resuming the session shows the same lines.
    const b = await stage.browser.newContext({ viewport: { width: 1280, height: 720 } });
    const other = await b.newPage();
    await loginThroughForm(other, stage.server);
    await other.goto(`${stage.server.base}/#/desk`);
    await other.click(`[data-testid=live-sessions] tr[data-account-id="${accountId}"] >> text=Resume`);
    await other.waitForSelector('[data-testid=desk]');
    await other.waitForFunction("document.querySelector('[data-testid=chart]')?.dataset.drawingLines === '1' && (document.querySelector('[data-testid=chart]').dataset.lines ?? '').includes('trend.0')");
    expect(await chartAttr(other, 'drawing-prices')).toBe(String(kept.horizontalLines[0].price));
    await b.close();

    await page.click('[data-draw=clear]');
    await page.waitForFunction("document.querySelector('[data-testid=chart]').dataset.drawingLines === '0'");
    expect(await chartAttr(page, 'lines')).not.toContain('trend.0');
    await page.waitForFunction(`fetch('/api/auth/replay-sessions/${accountId}/drawings').then((r) => r.json()).then((j) => j.updatedAt === null)`);
    expect(errors).toEqual([]);
    await context.close();
  }, 120_000);

  it('places a limit and a stop by clicking prices, moves an order in place by dragging its chip (a refused move puts it back; a dragged stop-loss keeps its link), shows the position’s open P&L, cancels all and flattens (buttons and keys)', async () => {
    const { page, errors, context } = await openSession(stage, { width: 1280, height: 720 }, '2025-03-10');
    await page.click('[data-testid=step]');
    await waitProgress(page, 1);
    const last = Number(await chartAttr(page, 'last-close'));
    const box = await pane(page);
    const orders = async () => (await rows(page, 'orders')).map((r) => ({ id: Number(r[0]), side: r[1], type: r[2], size: r[3], price: Number(r[4]) }));

    // Shift+click under the market: a buy limit there; Alt+click over it: a buy stop.
    await page.keyboard.down('Shift');
    await page.mouse.click(box.x + box.w * 0.5, box.y + box.h * 0.88);
    await page.keyboard.up('Shift');
    await page.waitForFunction("document.querySelectorAll('[data-testid=orders] tbody tr').length === 1");
    await page.keyboard.down('Alt');
    await page.mouse.click(box.x + box.w * 0.5, box.y + box.h * 0.04);
    await page.keyboard.up('Alt');
    await page.waitForFunction("document.querySelectorAll('[data-testid=orders] tbody tr').length === 2");
    const placed = await orders();
    const limit = placed.find((o) => o.type === 'LMT')!;
    const stop = placed.find((o) => o.type === 'STP')!;
    expect([limit.side, limit.size, stop.side, stop.size]).toEqual(['Buy', '1', 'Buy', '1']);
    expect(limit.price).toBeLessThan(last);
    expect(stop.price).toBeGreaterThan(last);
    for (const p of [limit.price, stop.price]) expect((p * 4) % 1).toBe(0);

    // Drag the limit's chip up: Order/modify moves the order in place (its id kept) to a higher price, still a buy limit.
    const drag = (id: number, dy: number) => dragChip(page, id, dy);
    await drag(limit.id, -40);
    await page.waitForFunction(`(document.querySelector('[data-testid=flash]')?.textContent ?? '').includes('Order #${limit.id} moved to')`);
    const moved = (await orders()).find((o) => o.type === 'LMT')!;
    expect(moved.id).toBe(limit.id);
    expect([moved.side, moved.size]).toEqual(['Buy', '1']);
    expect(moved.price).toBeGreaterThan(limit.price);
    expect(await text(page, '[data-testid=flash]')).toBe(`Order #${limit.id} moved to ${moved.price.toFixed(2)}`);
    // Order/search: the same two orders, the limit at its new price, nothing canceled left behind.
    const accountId = Number(await page.evaluate('localStorage.getItem("rd.desk.current")'));
    const searched = await searchOrders(page, accountId);
    expect(searched.map((o) => [o.id, o.status, o.type, o.limitPrice ?? o.stopPrice]).sort()).toEqual(
      [[limit.id, 6, 1, moved.price], [stop.id, 6, 4, stop.price]].sort(),
    );

    // Cancel all (the button): no working order left.
    await page.click('[data-testid=cancel-all]');
    await page.waitForFunction("document.querySelectorAll('[data-testid=orders] tbody tr').length === 0");

    // An entry whose stop-loss rests one tick above 0: any move down is refused, and it is put back.
    const entry = last - 5;
    await page.click('.seg button[data-type=Limit]');
    await page.fill('input[name=limitPrice]', entry.toFixed(2));
    await page.fill('input[name=slTicks]', String((entry - 0.25) * 4));
    await page.click('[data-testid=buy]');
    await page.waitForFunction("document.querySelectorAll('[data-testid=chart-orders] [data-order-id]').length === 1");
    const [guarded] = await orders();
    // Its planned stop-loss line at 0.25 rescales the chart: the chip is dragged once it has followed.
    await page.waitForFunction(`(document.querySelector('[data-testid=chart]').dataset.priceLineTitles ?? '').includes('SL #${guarded.id} (on fill)')`);
    await page.evaluate('new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => requestAnimationFrame(r))))');
    await drag(guarded.id, 30);
    await page.waitForSelector('[data-testid=chart-error]');
    // Refused: the order is unchanged (its id, its price), its chip back at its price, and the refusal says why.
    expect(await text(page, '[data-testid=chart-error]')).toBe('Move refused: stopLossBracket would place the stop-loss at or below 0');
    const [back] = await orders();
    expect([back.id, back.side, back.type, back.price]).toEqual([guarded.id, 'Buy', 'LMT', entry]);
    expect(await text(page, `[data-testid=chart-orders] [data-order-id="${guarded.id}"] .grip`)).toBe(`BUY 1 LMT ${entry.toFixed(2)}`);

    // C cancels every working order.
    await page.focus('[data-testid=step]');
    await page.keyboard.press('c');
    await page.waitForFunction("document.querySelectorAll('[data-testid=orders] tbody tr').length === 0");

    // A position's line says its open P&L at the last price.
    await page.fill('input[name=slTicks]', '');
    await page.click('.seg button[data-type=Market]');
    await page.focus('[data-testid=step]');
    await page.keyboard.press('b');
    await page.waitForSelector('[data-testid=positions] tbody tr');
    await page.keyboard.press('Shift+ArrowRight');
    await waitProgress(page, 11);
    const avg = Number((await rows(page, 'positions'))[0][2]);
    const now = Number(await chartAttr(page, 'last-close'));
    const pnl = ((now - avg) / 0.25) * 5;
    const usd = Math.abs(pnl).toLocaleString('en-US', { style: 'currency', currency: 'USD' });
    const title = `LONG 1 @ ${avg.toFixed(2)} · ${pnl > 0 ? '+' : pnl < 0 ? '−' : ''}${usd}`;
    await page.waitForFunction(`(document.querySelector('[data-testid=chart]').dataset.priceLineTitles ?? '').split('|').includes(${JSON.stringify(title)})`);
    // With a target over the market for the picture: a sell limit by Shift+click.
    await page.keyboard.down('Shift');
    await page.mouse.click(box.x + box.w * 0.5, box.y + box.h * 0.06);
    await page.keyboard.up('Shift');
    await page.waitForFunction("document.querySelectorAll('[data-testid=orders] tbody tr').length === 1");
    expect((await orders())[0].side).toBe('Sell');
    await page.mouse.move(box.x + box.w * 0.6, box.y + box.h * 0.5);
    await docScreenshot(page, 'desk-chart-trading-1280');

    // Flatten (the button), then F after another buy: flat each time.
    await page.click('[data-testid=flatten-all]');
    await page.waitForFunction("document.querySelectorAll('[data-testid=positions] tbody tr').length === 0");
    await page.click('[data-testid=cancel-all]');
    await page.waitForFunction("document.querySelectorAll('[data-testid=orders] tbody tr').length === 0");
    await page.focus('[data-testid=step]');
    await page.keyboard.press('b');
    await page.waitForSelector('[data-testid=positions] tbody tr');
    await page.keyboard.press('f');
    await page.waitForFunction("document.querySelectorAll('[data-testid=positions] tbody tr').length === 0");
    expect((await rows(page, 'fills')).length).toBe(4);

    // A stop-loss leg dragged stays linked with its take-profit: when one fills, the other is canceled,
    // though a position is left (one contract bought without brackets, one with them).
    await page.fill('input[name=slTicks]', '');
    await page.focus('[data-testid=step]');
    await page.keyboard.press('b');
    await page.waitForFunction("document.querySelector('[data-testid=positions] tbody tr')?.cells[1].textContent.trim() === '1'");
    const { stopLeg, target, pxPerPoint } = await bracketedBuy(page, orders);
    // Two ticks under the last price, measured on the chart between the two chips.
    const lastNow = Number(await chartAttr(page, 'last-close'));
    await drag(stopLeg.id, -(lastNow - 0.5 - stopLeg.price) * pxPerPoint);
    await page.waitForFunction(`(document.querySelector('[data-testid=flash]')?.textContent ?? '').includes('Order #${stopLeg.id} moved to')`);
    const tightened = (await orders()).find((o) => o.id === stopLeg.id)!;
    expect([tightened.side, tightened.type]).toEqual(['Sell', 'STP']);
    expect(tightened.price).toBeGreaterThan(stopLeg.price);
    await page.fill('input[name=jumpTo]', '2025-03-10 06:00');
    await page.click('[data-testid=jump]');
    await page.waitForFunction("document.querySelectorAll('[data-testid=orders] tbody tr').length === 0");
    const ends = (await searchOrders(page, accountId)).filter((o) => o.id === stopLeg.id || o.id === target.id).map((o) => o.status).sort();
    expect(ends).toEqual([2, 3]);
    expect((await rows(page, 'positions')).map((r) => r[1])).toEqual(['1']);
    await page.focus('[data-testid=step]');
    await page.keyboard.press('f');
    await page.waitForFunction("document.querySelectorAll('[data-testid=positions] tbody tr').length === 0");
    expect(errors).toEqual([]);
    await context.close();
  }, 180_000);

  it('trails: a market entry with a trailing stop-loss (B) places a type 5 leg whose stop follows the price as the session steps; its chip\'s drag changes the trail; the ticket places a trailing stop', async () => {
    const { page, errors, context } = await openSession(stage, { width: 1440, height: 900 }, '2025-03-11');
    await page.click('[data-testid=step]');
    await waitProgress(page, 1);
    const accountId = Number(await page.evaluate('localStorage.getItem("rd.desk.current")'));
    const orders = async () => (await rows(page, 'orders')).map((r) => ({ id: Number(r[0]), side: r[1], type: r[2], size: r[3], price: Number(r[4]) }));
    // A bot's view of the same account under the live profile: the gateway's order types.
    const { base, creds } = stage.server;
    const post = (path: string, body: unknown, token?: string) =>
      fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) }, body: JSON.stringify(body) }).then((r) => r.json() as any);
    const token: string = (await post('/api/sim/Auth/loginKey', { userName: creds.userName, apiKey: creds.apiKey })).token;
    const liveOpen = async (): Promise<{ id: number; type: number; side: number; stopPrice: number }[]> => (await post('/live/api/sim/Order/searchOpen', { accountId }, token)).orders;

    // The ticket's trailing stop-loss of 400 ticks (100 points), sent with B.
    await page.fill('input[name=slTicks]', '400');
    await page.check('input[name=slTrailing]');
    await page.focus('[data-testid=step]');
    await page.keyboard.press('b');
    await page.waitForFunction("document.querySelectorAll('[data-testid=chart-orders] [data-order-id]').length === 1");
    const fill = Number((await rows(page, 'fills'))[0][3]);
    const [leg] = await liveOpen();
    expect([leg.type, leg.side, leg.stopPrice]).toEqual([5, 1, fill - 100]);
    // The console reads it as the spec lists it, a stop at its current stop price; the desk knows it trails.
    await page.waitForFunction(`document.querySelector('[data-testid=chart-orders] [data-order-id="${leg.id}"] .grip')?.textContent.trim() === 'SELL 1 TRAIL ${(fill - 100).toFixed(2)}'`);
    expect((await orders()).map((o) => [o.id, o.type, o.price])).toEqual([[leg.id, 'TRAIL', fill - 100]]);
    const spec = (await searchOrders(page, accountId)).find((o) => o.id === leg.id)!;
    expect([spec.type, spec.stopPrice]).toEqual([4, fill - 100]);

    // Ten bars at a time: the stop is 100 points under the highest price since the entry, never lower.
    const startMs = Date.parse('2025-03-11T00:00:00Z');
    let stop = leg.stopPrice;
    for (let n = 11; n <= 121 && stop === leg.stopPrice; n += 10) {
      await page.focus('[data-testid=step]');
      await page.keyboard.press('Shift+ArrowRight');
      await waitProgress(page, n);
      const bars = await barsUpTo(page, new Date(startMs + 60_000).toISOString(), new Date(startMs + n * 60_000).toISOString());
      expect(bars.length).toBe(n - 1);
      const high = Math.max(fill, ...bars.map((b) => b.h));
      const open = await liveOpen();
      expect(open.map((o) => [o.id, o.type, o.stopPrice])).toEqual([[leg.id, 5, high - 100]]);
      expect(open[0].stopPrice).toBeGreaterThanOrEqual(stop);
      stop = open[0].stopPrice;
      await page.waitForFunction(`[...document.querySelectorAll('[data-testid=orders] tbody tr')].some((tr) => Number(tr.cells[4].textContent) === ${stop})`);
    }
    expect(stop).toBeGreaterThan(leg.stopPrice);

    // Its chip dragged down: Order/modify changes the trail (never the stop), and the stop stands where the chip was let go.
    await page.evaluate('new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => requestAnimationFrame(r))))');
    const g = await page.$eval(`[data-testid=chart-orders] [data-order-id="${leg.id}"] .grip`, (el: any) => {
      const r = el.getBoundingClientRect();
      return { x: r.left + r.width / 2, y: r.top + r.height / 2 };
    });
    await page.mouse.move(g.x, g.y);
    await page.mouse.down();
    await page.mouse.move(g.x, g.y + 15, { steps: 4 });
    await page.mouse.move(g.x, g.y + 30, { steps: 4 });
    await page.mouse.up();
    await page.waitForFunction(`(document.querySelector('[data-testid=flash]')?.textContent ?? '').includes('Order #${leg.id} now trails by')`);
    const [, trail, at] = /now trails by (\d+) ticks \(its stop at ([\d.]+)\)/.exec(await text(page, '[data-testid=flash]'))!;
    expect(Number(trail)).toBeGreaterThan(400);
    const [retrailed] = await liveOpen();
    expect([retrailed.id, retrailed.type, retrailed.stopPrice]).toEqual([leg.id, 5, Number(at)]);
    expect(retrailed.stopPrice).toBe(stop + 100 - Number(trail) / 4);

    // The ticket's Trailing stop: a sell trailing 12 ticks under the last price.
    await page.click('.seg button[data-type="Trailing stop"]');
    await page.fill('input[name=trailTicks]', '12');
    expect(await text(page, '[data-testid=trail-price]')).toBe('= 3.00');
    await page.fill('input[name=slTicks]', '');
    await page.uncheck('input[name=slTrailing]');
    const last = Number(await chartAttr(page, 'last-close'));
    await page.click('[data-testid=sell]');
    await page.waitForFunction("document.querySelectorAll('[data-testid=chart-orders] [data-order-id]').length === 2");
    const placed = (await liveOpen()).find((o) => o.id !== leg.id)!;
    expect([placed.type, placed.side, placed.stopPrice]).toEqual([5, 1, last - 3]);
    expect(await text(page, `[data-testid=chart-orders] [data-order-id="${placed.id}"] .grip`)).toBe(`SELL 1 TRAIL ${(last - 3).toFixed(2)}`);
    await page.fill('input[name=slTicks]', '40');
    await page.check('input[name=slTrailing]');
    await page.mouse.move(10, 890);
    await docScreenshot(page, 'desk-ticket-trailing');
    await page.setViewportSize({ width: 1280, height: 720 });
    await page.evaluate('new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => requestAnimationFrame(r))))');
    await docScreenshot(page, 'desk-ticket-trailing-1280');

    await page.focus('[data-testid=step]');
    await page.keyboard.press('f');
    await page.waitForFunction("document.querySelectorAll('[data-testid=positions] tbody tr').length === 0");
    // The trailing stop-loss left with the position; the trailing stop placed alone is canceled by C.
    await page.waitForFunction("document.querySelectorAll('[data-testid=orders] tbody tr').length === 1");
    await page.keyboard.press('c');
    await page.waitForFunction("document.querySelectorAll('[data-testid=orders] tbody tr').length === 0");
    expect(errors).toEqual([]);
    await context.close();
  }, 180_000);

  it('a chip dragged through the market, as NinjaTrader’s chart trader: a stop-loss past the last price is refused and stays linked, a limit that would fill asks first', async () => {
    const { page, errors, context } = await openSession(stage, { width: 1440, height: 900 }, '2025-03-11');
    await page.click('[data-testid=step]');
    await waitProgress(page, 1);
    const orders = async () => (await rows(page, 'orders')).map((r) => ({ id: Number(r[0]), side: r[1], type: r[2], price: Number(r[4]) }));
    const { legs, stopLeg, pxPerPoint } = await bracketedBuy(page, orders);
    const last = Number(await chartAttr(page, 'last-close'));

    // The stop-loss dragged two points over the market: refused before it is sent; the position and both legs stand.
    await dragChip(page, stopLeg.id, -(last + 2 - stopLeg.price) * pxPerPoint);
    await page.waitForSelector('[data-testid=chart-error]');
    expect(await text(page, '[data-testid=chart-error]')).toMatch(new RegExp(`^Move refused: a sell stop must be below the last price \\(${last.toFixed(2)}\\): at \\d+\\.\\d\\d it would trigger at once$`));
    expect((await rows(page, 'positions')).map((r) => r[1])).toEqual(['1']);
    expect((await orders()).map((o) => [o.id, o.price]).sort()).toEqual(legs.map((o) => [o.id, o.price]).sort());

    // A buy limit under the market dragged two points over it: asked first. Kept, it stays; moved, it fills.
    const box = await pane(page);
    await page.keyboard.down('Shift');
    await page.mouse.click(box.x + box.w * 0.3, box.y + box.h * 0.6);
    await page.keyboard.up('Shift');
    await page.waitForFunction("document.querySelectorAll('[data-testid=orders] tbody tr').length === 3");
    const limit = (await orders()).find((o) => o.type === 'LMT' && o.side === 'Buy')!;
    expect(limit.price).toBeLessThan(last);
    // The new line rescales the chart on a later frame: measured once the chips stand still.
    await chipsSettled(page);
    const over = -(last + 2 - limit.price) * (await pxPerPointNow(page, limit, stopLeg));
    await dragChip(page, limit.id, over);
    await page.waitForSelector('[data-testid=move-confirm]');
    expect(await text(page, '[data-testid=move-confirm] p')).toMatch(new RegExp(`^A buy limit at \\d+\\.\\d\\d is at or above the last price \\(${last.toFixed(2)}\\): it fills at once, as a market order would\\.$`));
    await docScreenshot(page, 'desk-drag-confirm-1440');
    await page.click('[data-testid=move-no]');
    await page.waitForSelector('[data-testid=move-confirm]', { state: 'detached' });
    expect((await orders()).find((o) => o.id === limit.id)?.price).toBe(limit.price);
    await dragChip(page, limit.id, over);
    await page.click('[data-testid=move-yes]');
    await page.waitForFunction("document.querySelector('[data-testid=positions] tbody tr')?.cells[1].textContent.trim() === '2'");
    expect((await orders()).some((o) => o.id === limit.id)).toBe(false);
    expect(errors).toEqual([]);
    await context.close();
  }, 180_000);
});
