// The desk over a session of two instruments (issue 34), in headless Chromium against the real
// server: NQ and ES started from the form, one chart per instrument side by side on one clock, each
// chart's bars as History serves them up to the clock, an ES order from the ticket (the ES pane
// picked) listed in the tables under ES's name and cancelled from its chip on ES's chart, an
// indicator on ES's chart, the account shown once; a jump (no bars on the hub)
// and another browser resuming the session. Screenshots at 1440×900 and 1280×720 go to
// test/.screenshots, and to docs/screenshots/ with UPDATE_DOC_SCREENSHOTS=1.
import { describe, expect, it } from 'bun:test';
import type { BrowserContext, Page, WebSocketRoute } from 'playwright-core';
import { contractNameFor } from '../../src/domain/contract-id.ts';
import { findInstrument } from '../../src/domain/instrument.ts';
import { browserStage, docScreenshot, loginThroughForm, newPage, noBrowser, type Server } from './support.ts';

type Bar = { t: string; o: number; h: number; l: number; c: number; v: number };

async function text(page: Page, sel: string): Promise<string> {
  return ((await page.textContent(sel)) ?? '').trim();
}

async function rows(page: Page, testid: string): Promise<string[][]> {
  return page.$$eval(`[data-testid=${testid}] tbody tr`, (trs: any[]) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td: any) => td.textContent.trim())));
}

async function sim(page: Page, path: string, body: Record<string, unknown>): Promise<any> {
  return page.evaluate(
    `fetch('/api/sim/${path}', { method: 'POST', headers: { 'content-type': 'application/json' }, body: ${JSON.stringify(JSON.stringify(body))} }).then((r) => r.json())`,
  );
}

/** 1 m bars of a contract that end by the clock, from `fromIso`, as History serves them. */
async function barsUpTo(page: Page, contractId: string, fromIso: string, clockIso: string): Promise<Bar[]> {
  const r = await sim(page, 'History/retrieveBars', { contractId, unit: 2, unitNumber: 1, startTime: fromIso, endTime: clockIso, limit: 20000 });
  return r.bars.filter((b: Bar) => Date.parse(b.t) + 60_000 <= Date.parse(clockIso));
}

/** The contract whose name starts with `prefix` (ES, not MES), as the form lists it. */
async function optionOf(page: Page, prefix: string): Promise<{ id: string; name: string }> {
  return page.$$eval(
    '[data-testid=start-form] select[name=contract] option',
    (os: any[], p: string) => os.map((o) => ({ id: o.value, name: o.textContent.split(' — ')[0].trim() })).find((o) => o.name.startsWith(p))!,
    prefix,
  );
}

/** Signs in, and starts a 1 m session on 2025-03-03 from the desk's form over the instruments named (the first NQ). */
async function startOver(page: Page, server: Server, prefixes: string[]): Promise<{ id: string; name: string }[]> {
  await loginThroughForm(page, server);
  await page.goto(`${server.base}/#/desk`);
  await page.waitForSelector('[data-testid=data-last]');
  const picked = [];
  for (const p of prefixes) picked.push(await optionOf(page, p));
  await page.selectOption('select[name=contract]', picked[0].id);
  await page.fill('input[name=startDate]', '2025-03-03');
  await page.selectOption('select[name=timeframe]', '1m');
  for (const c of picked.slice(1)) await page.selectOption('select[name=addInstrument]', c.id);
  expect(await page.$$eval('[data-testid=picked-instrument]', (cs: any[]) => cs.map((c) => c.textContent.replace('×', '').trim()))).toEqual(picked.slice(1).map((c) => c.name));
  await page.click('text=Start replay');
  await page.waitForSelector('[data-testid=desk-panes]');
  await page.waitForFunction(
    "Number(document.querySelector('[data-testid=chart]')?.dataset.bars) > 0 && [...document.querySelectorAll('[data-testid=pane-chart]')].every((c) => Number(c.dataset.bars) > 0) && !document.querySelector('.chart-loading')",
  );
  return picked;
}

const attr = (page: Page, sel: string, name: string) => page.getAttribute(sel, `data-${name}`);

describe.skipIf(noBrowser)('console: the desk with two charts', () => {
  const stage = browserStage();

  it('starts NQ and ES from the form, steps both charts on one clock, trades ES from its ticket and lists it under ES', async () => {
    const { context, page, errors } = await newPage(stage.browser);
    const [nq, es] = await startOver(page, stage.server, ['NQ', 'ES']);
    // The tables name the front month on the replayed date, as the panes do (the API names today's).
    const esMarch = contractNameFor(findInstrument('ES')!, Date.parse('2025-03-03T00:00:00Z'));
    expect(esMarch).toBe('ESH5');

    // Two panes, NQ first (the session's own chart, its toolbar with it), ES beside it; one account, one ticket.
    expect(await page.$$eval('[data-testid=pane]', (ps: any[]) => ps.map((p) => p.dataset.contract))).toEqual([nq.id, es.id]);
    expect(await page.$$eval('[data-testid=account]', (a: any[]) => a.length)).toBe(1);
    expect(await page.$$eval('[data-testid=ticket]', (a: any[]) => a.length)).toBe(1);
    expect(await page.$$eval('[data-testid=last-price]', (a: any[]) => a.length)).toBe(0);

    // Ten steps: both charts end at the clock's last bar, each one's bars as History serves them.
    await page.keyboard.press('Shift+ArrowRight');
    await page.waitForFunction("document.querySelector('[data-testid=progress]').textContent.trim().startsWith('10 /')");
    const clock = `${(await text(page, '[data-testid=sim-time]')).replace(' ', 'T')}Z`;
    expect(clock).toBe('2025-03-03T00:10:00Z');
    await page.waitForFunction(`document.querySelector('[data-testid=pane-chart]').dataset.lastTime === '2025-03-03T00:09:00.000Z'`);
    for (const [sel, c] of [['[data-testid=chart]', nq], ['[data-testid=pane-chart]', es]] as const) {
      const served = await barsUpTo(page, c.id, '2025-03-03T00:00:00Z', clock);
      expect(served.length).toBe(10);
      expect(await attr(page, sel, 'last-time')).toBe('2025-03-03T00:09:00.000Z');
      expect(Number(await attr(page, sel, 'last-close'))).toBe(served[9].c);
    }
    const esLast = (await barsUpTo(page, es.id, '2025-03-03T00:09:00Z', clock))[0].c;
    expect(await text(page, `[data-testid=pane][data-contract="${es.id}"] [data-testid=pane-last]`)).toBe(esLast.toFixed(2));

    // ES's ticket: pick its pane, buy 1 at market, then a limit 20 ticks under the last price.
    await page.click(`[data-testid=pane][data-contract="${es.id}"] [data-testid=pane-trade]`);
    expect(await text(page, '[data-testid=ticket-contract]')).toBe(esMarch);
    await page.click('[data-testid=buy]');
    await page.waitForFunction("document.querySelectorAll('[data-testid=positions] tbody tr').length === 1");
    expect((await rows(page, 'positions'))[0].slice(0, 4)).toEqual([esMarch, 'Long', '1', esLast.toFixed(2)]);
    await page.waitForFunction("document.querySelectorAll('[data-testid=fills] tbody tr').length === 1");
    expect((await rows(page, 'fills'))[0].slice(1, 5)).toEqual([esMarch, 'Buy', '1', esLast.toFixed(2)]);

    const limit = (esLast - 5).toFixed(2);
    await page.click('[data-type=Limit]');
    await page.fill('input[name=limitPrice]', limit);
    await page.click('[data-testid=buy]');
    await page.waitForFunction("document.querySelectorAll('[data-testid=orders] tbody tr').length === 1");
    const [order] = await rows(page, 'orders');
    expect(order.slice(1, 6)).toEqual([esMarch, 'Buy', 'LMT', '1', limit]);
    const live = await sim(page, 'Order/searchOpen', { accountId: await openAccount(page) });
    expect(live.orders.map((o: any) => [o.contractId, o.type, o.side, o.limitPrice])).toEqual([[es.id, 1, 0, Number(limit)]]);
    // The ES order is on the ES chart with its chip, not on NQ's.
    const esPane = `[data-testid=pane][data-contract="${es.id}"]`;
    await page.waitForFunction("Number(document.querySelector('[data-testid=pane-chart]').dataset.priceLines) >= 2");
    expect(Number((await attr(page, '[data-testid=chart]', 'price-lines')) ?? 0)).toBe(0);
    const orderId = live.orders[0].id;
    await page.waitForSelector(`${esPane} .order-chip[data-order-id="${orderId}"]`);
    expect(await page.$$eval('.pane.primary .order-chip', (cs: any[]) => cs.length)).toBe(0);

    // ES's chart has the chart's width, indicators and legend: SMA 20 on it, its legend at its last bar.
    await page.click(`${esPane} [data-indicator=sma20]`);
    await page.waitForFunction("(document.querySelector('[data-testid=pane-chart]').dataset.lines ?? '').includes('sma20')");
    expect(await text(page, `${esPane} [data-testid=legend-close]`)).toBe(esLast.toFixed(2));
    expect(await page.$$eval(`${esPane} [data-draw]`, (bs: any[]) => bs.filter((b) => b.offsetParent !== null).length)).toBe(0);

    // One more step: both charts move on.
    await page.click('[data-testid=step]');
    await page.waitForFunction("document.querySelector('[data-testid=progress]').textContent.trim().startsWith('11 /')");
    await page.waitForFunction(`document.querySelector('[data-testid=pane-chart]').dataset.lastTime === '2025-03-03T00:10:00.000Z'`);
    await docScreenshot(page, 'desk-multi-1440');

    await page.setViewportSize({ width: 1280, height: 720 });
    await page.waitForTimeout(300);
    await docScreenshot(page, 'desk-multi-1280');
    // The ES chip cancels its order.
    await page.click(`${esPane} .order-chip[data-order-id="${orderId}"] button`);
    await page.waitForFunction("document.querySelectorAll('[data-testid=orders] tbody tr').length === 0");
    expect((await sim(page, 'Order/searchOpen', { accountId: await openAccount(page) })).orders).toEqual([]);
    // Side by side at 1280 px: each chart keeps a readable width, the pane heads on one line.
    const widths = await page.$$eval('[data-testid=pane] .chart-wrap', (els: any[]) => els.map((e) => e.getBoundingClientRect().width));
    for (const w of widths) expect(w).toBeGreaterThan(380);
    // However many rows a pane's toolbar wraps to, its legend and chart start under it (no button over the OHLC line).
    const overlaps = await page.$$eval('[data-testid=pane] .chart-wrap', (els: any[]) =>
      els.map((e) => {
        const bar = e.querySelector('[data-testid=chart-toolbar]').getBoundingClientRect().bottom;
        const top = (sel: string) => e.querySelector(sel).getBoundingClientRect().top;
        return [top('[data-testid=legend]') >= bar, top('.chart') >= bar];
      }),
    );
    expect(overlaps).toEqual(widths.map(() => [true, true]));
    const heads = await page.$$eval('[data-testid=pane-head]', (els: any[]) => els.map((e) => e.scrollWidth <= e.clientWidth + 1));
    expect(heads).toEqual([true, true]);

    // A jump carries no bars on the hub: the ES pane reads what it played from History, up to the clock.
    await page.fill('input[name=jumpTo]', '2025-03-03 00:40');
    await page.click('[data-testid=jump]');
    await page.waitForFunction("!document.querySelector('[data-testid=progress]').textContent.trim().startsWith('11 /')");
    const jumped = `${(await text(page, '[data-testid=sim-time]')).replace(' ', 'T')}Z`;
    const lastOpen = new Date(Date.parse(jumped) - 60_000).toISOString();
    await page.waitForFunction(`document.querySelector('[data-testid=pane-chart]').dataset.lastTime === '${lastOpen}'`);
    const esBars = await barsUpTo(page, es.id, '2025-03-03T00:00:00Z', jumped);
    expect(Number(await attr(page, '[data-testid=pane-chart]', 'last-close'))).toBe(esBars[esBars.length - 1].c);
    // The login page's first read (GET /api/auth/me before signing in) answers 401.
    expect(errors.filter((e) => !e.includes('401'))).toEqual([]);

    // Another browser resumes the session whole: both panes on the same clock, the tables as the first page lists them.
    const { context: other, page: page2 } = await newPage(stage.browser);
    await loginThroughForm(page2, stage.server);
    await page2.goto(`${stage.server.base}/#/desk`);
    await page2.click('[data-testid=live-sessions] >> text=Resume');
    await page2.waitForSelector('[data-testid=desk-panes]');
    expect(await page2.$$eval('[data-testid=pane]', (ps: any[]) => ps.map((p) => p.dataset.contract))).toEqual([nq.id, es.id]);
    await page2.waitForFunction(`document.querySelector('[data-testid=pane-chart]')?.dataset.lastTime === '${lastOpen}'`);
    const fills = await rows(page, 'fills');
    expect(fills.every((f) => f[1] === esMarch)).toBe(true);
    await page2.waitForFunction(`document.querySelectorAll('[data-testid=fills] tbody tr').length === ${fills.length}`);
    for (const table of ['positions', 'orders', 'fills']) expect(await rows(page2, table)).toEqual(await rows(page, table));
    await other.close();
    await endAndClose(page, context);
  }, 180_000);

  it("after the market hub reconnects, the other pane draws what was played while it was down", async () => {
    const { context, page, errors } = await newPage(stage.browser);
    // The market hub's sockets pass through here: dropped, and refused while `down`.
    const link = { down: false, open: [] as WebSocketRoute[] };
    await context.routeWebSocket(/\/hubs\/market/, (ws) => {
      if (link.down) ws.close({ code: 1011, reason: 'refused by the test' });
      else link.open.push((ws.connectToServer(), ws));
    });
    const [, es] = await startOver(page, stage.server, ['NQ', 'ES']);
    link.down = true;
    for (const ws of link.open.splice(0)) await ws.close({ code: 1011, reason: 'dropped by the test' });
    await page.waitForSelector('[data-testid=link][data-state=reconnecting]');
    // Played outside the page while it hears nothing: five bars.
    expect((await sim(page, 'Replay/step', { accountId: await openAccount(page), steps: 5 })).success).toBe(true);
    await Bun.sleep(300);
    expect(await attr(page, '[data-testid=pane-chart]', 'last-time')).not.toBe('2025-03-03T00:04:00.000Z');
    link.down = false;
    await page.waitForSelector('[data-testid=link][data-state=up]');
    await page.waitForFunction("document.querySelector('[data-testid=pane-chart]').dataset.lastTime === '2025-03-03T00:04:00.000Z'");
    const served = await barsUpTo(page, es.id, '2025-03-03T00:00:00Z', '2025-03-03T00:05:00Z');
    expect(Number(await attr(page, '[data-testid=pane-chart]', 'last-close'))).toBe(served[4].c);
    // The sockets the test dropped and refused are logged as errors.
    expect(errors.filter((e) => !e.includes('401') && !e.includes('WebSocket'))).toEqual([]);
    await endAndClose(page, context);
  }, 180_000);
});

// Its own server: History answers 20 requests a minute to a user (spec), and each chart reads it.
describe.skipIf(noBrowser)('console: the desk with four charts', () => {
  const stage = browserStage();

  it('lays four instruments out in two rows of two at 1280×720, each chart with its bars up to the clock', async () => {
    const { context, page, errors } = await newPage(stage.browser);
    await page.setViewportSize({ width: 1280, height: 720 });
    const picked = await startOver(page, stage.server, ['NQ', 'ES', 'GC', 'MES']);
    expect(await page.$$eval('[data-testid=pane]', (ps: any[]) => ps.map((p) => p.dataset.contract))).toEqual(picked.map((c) => c.id));
    await page.keyboard.press('Shift+ArrowRight');
    await page.waitForFunction("document.querySelector('[data-testid=progress]').textContent.trim().startsWith('10 /')");
    await page.waitForFunction("[...document.querySelectorAll('[data-testid=pane-chart]')].every((c) => c.dataset.lastTime === '2025-03-03T00:09:00.000Z')");
    const boxes = await page.$$eval('[data-testid=pane] .chart-wrap', (els: any[]) => els.map((e) => e.getBoundingClientRect()).map((r) => ({ x: Math.round(r.left), y: Math.round(r.top), w: r.width, h: r.height })));
    // Two columns, two rows: the first row's two charts side by side, the second row under them.
    expect(boxes[0].y).toBe(boxes[1].y);
    expect(boxes[2].y).toBe(boxes[3].y);
    expect(boxes[2].y).toBeGreaterThan(boxes[0].y + boxes[0].h - 1);
    for (const b of boxes) expect([b.w > 380, b.h >= 240]).toEqual([true, true]);
    await docScreenshot(page, 'desk-multi-four-1280');
    expect(errors.filter((e) => !e.includes('401'))).toEqual([]);
    await endAndClose(page, context);
  }, 180_000);
});

/** Ends the page's session (the user's live sessions are counted) and closes its browser context. */
async function endAndClose(page: Page, context: BrowserContext): Promise<void> {
  expect((await sim(page, 'Replay/end', { accountId: await openAccount(page) })).success).toBe(true);
  await context.close();
}

/** The replay account of the session the page shows (the desk keeps it in localStorage). */
async function openAccount(page: Page): Promise<number> {
  return Number(await page.evaluate("localStorage.getItem('rd.desk.current')"));
}
