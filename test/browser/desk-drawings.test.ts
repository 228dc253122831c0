// Drawings beside the lines, in headless Chromium against the real server (issue 30): a rectangle,
// a horizontal ray, a Fibonacci retracement (its levels labelled with prices to the tick) and a note
// drawn with clicks, kept on the server across a reload; one selected by a click and deleted, one
// moved, one dragged; a line kept for the instrument seen in a second session of it; the risk/reward tool dragged
// and placed as a bracket whose legs rest at the drawn prices.
import { describe, expect, it } from 'bun:test';
import type { Page } from 'playwright-core';
import { closeClean, deskPage } from './desk-support.ts';
import { browserStage, docScreenshot, noBrowser, type Stage } from './support.ts';

async function chartAttr(page: Page, name: string): Promise<string> {
  return (await page.getAttribute('[data-testid=chart]', `data-${name}`)) ?? '';
}

/** A session of 1 m NQ bars from `date`, started from the desk's form in a fresh browser. */
async function openSession(stage: Stage, viewport: { width: number; height: number }, date: string) {
  const opened = await deskPage(stage);
  const { page } = opened;
  await page.setViewportSize(viewport);
  await page.waitForSelector('[data-testid=data-last]');
  await page.fill('input[name=startDate]', date);
  await page.selectOption('select[name=timeframe]', '1m');
  await page.click('text=Start replay');
  await page.waitForSelector('[data-testid=desk]');
  await waitChart(page);
  return { ...opened, accountId: Number(await page.evaluate("localStorage.getItem('rd.desk.current')")) };
}

async function waitChart(page: Page): Promise<void> {
  await page.waitForFunction("Number(document.querySelector('[data-testid=chart]')?.dataset.bars) > 0 && !document.querySelector('.chart-loading')");
}

/** The chart's price pane as a box; `at(fx, fy)` clicks a fraction of it. */
async function pane(page: Page) {
  const b = await page.$eval('[data-testid=chart]', (el: any) => {
    const r = el.getBoundingClientRect();
    return { x: r.left, y: r.top, w: r.width, h: r.height };
  });
  return { ...b, at: (fx: number, fy: number) => page.mouse.click(b.x + b.w * fx, b.y + b.h * fy) };
}

const read = (page: Page, accountId: number) => page.evaluate(`fetch('/api/auth/replay-sessions/${accountId}/drawings').then((r) => r.json())`) as Promise<any>;
const until = (page: Page, accountId: number, test: string) =>
  page.waitForFunction(`fetch('/api/auth/replay-sessions/${accountId}/drawings').then((r) => r.json()).then((j) => ${test})`, undefined, { polling: 250 });

describe.skipIf(noBrowser)('console: drawings', () => {
  const stage = browserStage();

  it('draws a rectangle, a ray, a Fibonacci retracement and a note, keeps them across a reload, selects and deletes one, moves another, drags a third', async () => {
    const { page, errors, context, accountId } = await openSession(stage, { width: 1440, height: 900 }, '2025-03-05');
    await page.keyboard.press('Shift+ArrowRight');
    await page.waitForFunction("document.querySelector('[data-testid=progress]').textContent.trim().startsWith('10 /')");
    const box = await pane(page);
    await page.click('[data-draw=rect]');
    await box.at(0.3, 0.35);
    await box.at(0.45, 0.55);
    await page.click('[data-draw=ray]');
    await box.at(0.55, 0.25);
    await page.click('[data-draw=fib]');
    await box.at(0.6, 0.6);
    await box.at(0.72, 0.3);
    await page.click('[data-draw=text]');
    await page.fill('input[name=noteText]', 'Opening drive');
    await box.at(0.12, 0.7);
    // One rectangle, one ray, seven retracement levels, one note.
    await page.waitForFunction("document.querySelector('[data-testid=chart]').dataset.shapes === '10'");
    await until(page, accountId, 'j.texts.length === 1');
    const kept = await read(page, accountId);
    expect([kept.rectangles.length, kept.rays.length, kept.fibRetracements.length, kept.texts.length]).toEqual([1, 1, 1, 1]);
    expect(kept.texts[0]).toMatchObject({ text: 'Opening drive' });
    expect(kept.horizontalLines).toEqual([]);
    const fib = kept.fibRetracements[0];
    expect(Date.parse(fib.startTime)).toBeLessThan(Date.parse(fib.endTime));
    expect(fib.startPrice).toBeLessThan(fib.endPrice);
    // The levels from the end (0 %) to the start (100 %), each on NQ's 0.25 grid, labelled with its price.
    const level = (r: number) => (Math.round((fib.endPrice + (fib.startPrice - fib.endPrice) * r) * 4) / 4).toFixed(2);
    const labels = (await chartAttr(page, 'shape-labels')).split('|');
    expect(labels).toEqual(['0% ' + level(0), `23.6% ${level(0.236)}`, `38.2% ${level(0.382)}`, `50% ${level(0.5)}`, `61.8% ${level(0.618)}`, `78.6% ${level(0.786)}`, `100% ${level(1)}`, 'Opening drive']);
    for (const price of [kept.rectangles[0].startPrice, kept.rays[0].price, fib.startPrice, kept.texts[0].price]) expect((price * 4) % 1).toBe(0);

    await page.reload();
    await page.waitForSelector('[data-testid=desk]');
    await waitChart(page);
    await page.waitForFunction("document.querySelector('[data-testid=chart]').dataset.shapes === '10'");
    expect((await chartAttr(page, 'shape-labels')).split('|')).toEqual(labels);
    await docScreenshot(page, 'desk-drawings-1440');

    // A plain click inside the rectangle selects it; Delete removes it, on the server too.
    await box.at(0.38, 0.45);
    await page.waitForSelector('[data-testid=drawing-selected][data-kind=rect]');
    await page.keyboard.press('Delete');
    await page.waitForFunction("document.querySelector('[data-testid=chart]').dataset.shapes === '9'");
    await until(page, accountId, 'j.rectangles.length === 0 && j.rays.length === 1');
    // The ray, selected, moves its start to the next click; nothing was ordered by these clicks.
    await box.at(0.65, 0.25);
    await page.waitForSelector('[data-testid=drawing-selected][data-kind=ray]');
    await page.click('[data-draw=move]');
    await box.at(0.5, 0.45);
    await until(page, accountId, `j.rays.length === 1 && j.rays[0].price < ${kept.rays[0].price}`);
    const ray = (await read(page, accountId)).rays[0];
    expect(Date.parse(ray.time)).toBeLessThan(Date.parse(kept.rays[0].time));
    expect((ray.price * 4) % 1).toBe(0);
    // The retracement dragged by its middle: both ends move by the same time and price.
    const [fx, fy] = [box.x + box.w * 0.66, box.y + box.h * 0.45];
    await page.mouse.move(fx, fy);
    await page.mouse.down();
    for (const k of [1, 2, 3, 4]) await page.mouse.move(fx - k * 25, fy + k * 15);
    await page.mouse.up();
    await page.waitForSelector('[data-testid=drawing-selected][data-kind=fib]');
    await until(page, accountId, `j.fibRetracements[0].startPrice < ${fib.startPrice}`);
    const dragged = (await read(page, accountId)).fibRetracements[0];
    const s = (iso: string) => Date.parse(iso) / 1000;
    expect(s(dragged.startTime)).toBeLessThan(s(fib.startTime));
    expect(s(dragged.endTime) - s(dragged.startTime)).toBe(s(fib.endTime) - s(fib.startTime));
    expect(dragged.endPrice - dragged.startPrice).toBe(fib.endPrice - fib.startPrice);
    expect(await page.$$eval('[data-testid=orders] tbody tr', (trs: any[]) => trs.length)).toBe(0);
    await closeClean({ errors, context });
  }, 180_000);

  it('keeps a line for the instrument: a second session of it shows the line, a session-only line stays behind', async () => {
    const first = await openSession(stage, { width: 1280, height: 720 }, '2025-03-06');
    const box = await pane(first.page);
    await first.page.click('[data-draw=hline]');
    await box.at(0.4, 0.6);
    await first.page.check('input[name=drawForInstrument]');
    await first.page.click('[data-draw=hline]');
    await box.at(0.4, 0.3);
    await until(first.page, first.accountId, "j.horizontalLines.length === 2 && j.horizontalLines[1].scope === 'instrument'");
    const kept = (await read(first.page, first.accountId)).horizontalLines;
    expect(kept[0].scope).toBeUndefined();
    await closeClean(first);

    // The next day's session of NQ, in another browser: the instrument's line only.
    const second = await openSession(stage, { width: 1280, height: 720 }, '2025-03-07');
    await second.page.waitForFunction("document.querySelector('[data-testid=chart]').dataset.drawingLines === '1'");
    expect(await chartAttr(second.page, 'drawing-prices')).toBe(String(kept[1].price));
    expect((await read(second.page, second.accountId)).horizontalLines).toEqual([kept[1]]);
    // Clear removes this session's own drawings: the instrument's line stays.
    expect(await second.page.$('[data-draw=clear]')).toBeNull();
    await closeClean(second);
  }, 180_000);

  it('the risk/reward tool: entry, stop and target dragged on the chart show ticks, dollars and R:R; one click places a bracket whose legs rest at the drawn prices', async () => {
    const { page, errors, context, accountId } = await openSession(stage, { width: 1280, height: 720 }, '2025-03-10');
    await page.click('[data-testid=step]');
    await page.waitForFunction("document.querySelector('[data-testid=progress]').textContent.trim().startsWith('1 /')");
    await page.fill('input[name=size]', '2');
    const box = await pane(page);
    await page.click('[data-draw=long]');
    await box.at(0.5, 0.5);
    await page.waitForSelector('[data-testid=rr-panel]');
    const handle = async (which: string) => {
      const el = (await page.$(`[data-rr=${which}] .grip`))!;
      const b = (await el.boundingBox())!;
      return { price: Number(await page.getAttribute(`[data-rr=${which}]`, 'data-price')), x: b.x + b.width / 2, y: b.y + b.height / 2 };
    };
    const drag = async (which: string, dy: number) => {
      const h = await handle(which);
      await page.mouse.move(h.x, h.y);
      await page.mouse.down();
      await page.mouse.move(h.x, h.y + dy / 2);
      await page.mouse.move(h.x, h.y + dy);
      await page.mouse.up();
    };
    // Placed at the click: a stop 20 ticks under the entry, a target 40 over it.
    const [e0, s0, t0] = [await handle('entry'), await handle('stop'), await handle('target')];
    expect([(e0.price - s0.price) / 0.25, (t0.price - e0.price) / 0.25]).toEqual([20, 40]);
    // The entry dragged onto the last price (the box keeps its distances), so it fills as the session plays.
    const last = Number(await chartAttr(page, 'last-close'));
    const pxPerTick = (s0.y - e0.y) / 20;
    for (let i = 0; i < 6 && (await handle('entry')).price !== last; i++) await drag('entry', (((await handle('entry')).price - last) / 0.25) * pxPerTick);
    expect((await handle('entry')).price).toBe(last);
    // The stop dragged further down, the target further up.
    await drag('stop', 30);
    await drag('target', -45);
    const [entry, stop, target] = [(await handle('entry')).price, (await handle('stop')).price, (await handle('target')).price];
    const [stopTicks, targetTicks] = [(entry - stop) / 0.25, (target - entry) / 0.25];
    expect(stopTicks).toBeGreaterThan(20);
    expect(targetTicks).toBeGreaterThan(40);
    const figure = async (id: string) => ((await page.textContent(`[data-testid=${id}]`)) ?? '').trim();
    // NQ's tick is $5, the ticket's size 2.
    const usd = (n: number) => `$${n.toLocaleString('en-US', { minimumFractionDigits: 2 })}`;
    expect([await figure('rr-stop-ticks'), await figure('rr-target-ticks'), await figure('rr-risk'), await figure('rr-reward'), await figure('rr-ratio')]).toEqual([
      String(stopTicks), String(targetTicks), usd(stopTicks * 5 * 2), usd(targetTicks * 5 * 2), (targetTicks / stopTicks).toFixed(2),
    ]);
    expect(await figure('rr-place')).toBe(`Buy limit 2 · SL ${stopTicks} · TP ${targetTicks}`);
    await docScreenshot(page, 'desk-risk-reward-1280');

    await page.click('[data-testid=rr-place]');
    const search = () => page.evaluate(`fetch('/api/sim/Order/search', { method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ accountId: ${accountId}, startTimestamp: '2000-01-01T00:00:00Z' }) }).then((r) => r.json()).then((j) => j.orders)`) as Promise<any[]>;
    // A buy limit at the last price fills at once: its legs rest at the drawn target and stop.
    for (let i = 0; i < 20 && (await search()).length < 3; i++) {
      await page.click('[data-testid=step]');
      await page.waitForFunction(`document.querySelector('[data-testid=progress]').textContent.trim().startsWith('${i + 2} /')`);
    }
    const orders = (await search()).sort((a, b) => a.id - b.id).map((o) => ({ side: o.side, type: o.type, size: o.size, limitPrice: o.limitPrice, stopPrice: o.stopPrice }));
    expect(orders).toEqual([
      { side: 0, type: 1, size: 2, limitPrice: entry, stopPrice: null },
      { side: 1, type: 4, size: 2, limitPrice: null, stopPrice: stop },
      { side: 1, type: 1, size: 2, limitPrice: target, stopPrice: null },
    ]);
    await page.waitForFunction("document.querySelectorAll('[data-testid=chart-orders] [data-order-id]').length === 2");
    await docScreenshot(page, 'desk-risk-reward-placed-1280');
    await closeClean({ errors, context });
  }, 180_000);
});
