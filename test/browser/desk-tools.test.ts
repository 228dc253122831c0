// The desk's order tools (issue 30, "Order tools a trader expects"), in a real browser against a
// real server: the ticket sizes by dollar risk, a bracket template chosen in the ticket is what the
// B key places, Reverse turns a position around in one order, and two manual orders linked
// one-cancels-other end as the engine's link group does.
import { describe, expect, it } from 'bun:test';
import type { Page } from 'playwright-core';
import { closeClean, deskPage, WAIT } from './desk-support.ts';
import { adminCli, browserStage, docScreenshot, noBrowser, type Stage, simCaller } from './support.ts';

async function text(page: Page, sel: string): Promise<string> {
  return ((await page.textContent(sel)) ?? '').trim();
}

/** Rows of a table as arrays of cell texts. */
async function rows(page: Page, testid: string): Promise<string[][]> {
  return page.$$eval(`[data-testid=${testid}] tbody tr`, (trs: any[]) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td: any) => td.textContent.trim())));
}

/**
 * A signed-in page with a session started on `date` (for the challenge account `challenge`, if any)
 * and one bar stepped (a last price to trade at); the session's account.
 */
async function startStepped(stage: Stage, date: string, challenge?: number) {
  const opened = await deskPage(stage);
  const { page } = opened;
  await page.waitForSelector('[data-testid=data-last]');
  await page.fill('input[name=startDate]', date);
  await page.selectOption('select[name=timeframe]', '1m');
  if (challenge !== undefined) await page.selectOption('select[name=account]', String(challenge));
  await page.click('text=Start replay');
  await page.waitForSelector('[data-testid=desk]');
  await page.waitForFunction("Number(document.querySelector('[data-testid=chart]')?.dataset.bars) > 0 && !document.querySelector('.chart-loading')", undefined, WAIT);
  await page.click('[data-testid=step]');
  await page.waitForFunction("document.querySelector('[data-testid=progress]').textContent.trim().startsWith('1 /')", undefined, WAIT);
  return { ...opened, accountId: Number(await page.evaluate("localStorage.getItem('rd.desk.current')")) };
}

/** The account's fills as [side, size], in the order their orders were placed. */
async function fills(stage: Stage, accountId: number): Promise<number[][]> {
  const { trades } = await (await simCaller(stage.server))('Trade/search', { accountId, startTimestamp: '2000-01-01T00:00:00Z' });
  return [...trades].sort((a: any, b: any) => a.orderId - b.orderId).map((t: any) => [t.side, t.size]);
}

const positionIs = (page: Page, side: string, size: number) =>
  page.waitForFunction(`(() => { const td = document.querySelectorAll('[data-testid=positions] tbody tr td'); return td.length > 1 && td[0].textContent.trim() === '${side}' && td[1].textContent.trim() === '${size}'; })()`, undefined, WAIT);

describe.skipIf(noBrowser)('console: the desk’s order tools', () => {
  const stage = browserStage();

  it('sizes by dollar risk: $500 at a 40-tick NQ stop-loss ($200 a contract) buys 2; $150 buys none and says why', async () => {
    const opened = await startStepped(stage, '2025-03-10');
    const { page } = opened;
    await page.fill('input[name=slTicks]', '40');
    await page.fill('input[name=riskUsd]', '150');
    expect(await text(page, '[data-testid=risk-note]')).toBe('$150.00 is below one contract’s risk of $200.00 at 40 ticks');
    expect(await text(page, '[data-testid=buy]')).toBe('Buy — MKT');
    await page.click('[data-testid=buy]');
    await page.waitForSelector('[data-testid=flash]', WAIT);
    expect(await text(page, '[data-testid=flash]')).toBe('Nothing placed: $150.00 is below one contract’s risk of $200.00 at 40 ticks');
    expect(await rows(page, 'positions')).toEqual([]);

    await page.fill('input[name=riskUsd]', '500');
    expect(await text(page, '[data-testid=risk-size]')).toBe('2');
    expect(await page.inputValue('input[name=size]')).toBe('2');
    await page.click('[data-testid=buy]');
    await positionIs(page, 'Long', 2);
    // The stop-loss leg covers the two contracts, 40 ticks (10 points) under the fill.
    await page.waitForFunction("document.querySelectorAll('[data-testid=orders] tbody tr').length === 1");
    const avg = Number((await rows(page, 'positions'))[0][2]);
    expect((await rows(page, 'orders')).map((r) => r.slice(1, 5))).toEqual([['Sell', 'STP', '2', (avg - 10).toFixed(2)]]);
    await page.mouse.move(10, 890);
    await docScreenshot(page, 'desk-ticket-risk-1440');
    await page.setViewportSize({ width: 1280, height: 720 });
    await page.evaluate('new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => requestAnimationFrame(r))))');
    await docScreenshot(page, 'desk-ticket-risk-1280');
    await closeClean(opened);
  }, 120_000);

  it('on a challenge account, sizes by risk within the plan’s limit: a 50K plan’s 5 contracts, said so', async () => {
    const ch = adminCli(stage.server, ['challenge', 'create', '--email', stage.server.creds.userName, '--plan', '50K']);
    const opened = await startStepped(stage, '2025-03-11', ch.accountId);
    const { page } = opened;
    await page.waitForSelector('[data-testid=challenge-status]', WAIT);
    // $5,000 at 10 ticks ($50 a contract) would buy 100.
    await page.fill('input[name=slTicks]', '10');
    await page.fill('input[name=riskUsd]', '5000');
    await page.waitForFunction("document.querySelector('[data-testid=risk-size]')?.textContent === '5'", undefined, WAIT);
    expect(await text(page, '[data-testid=risk-note]')).toBe('Size 5 · $50.00 a contract at the stop · Capped at the plan’s limit of 5 contracts: the risk would buy 100');
    await page.click('[data-testid=buy]');
    await positionIs(page, 'Long', 5);
    await closeClean(opened);
  }, 120_000);

  it('a bracket template saved in the ticket, chosen again after a reload, is what B places; templates are renamed and deleted there', async () => {
    const opened = await startStepped(stage, '2025-03-11');
    const { page } = opened;
    await page.fill('input[name=slTicks]', '8');
    await page.fill('input[name=tpTicks]', '16');
    await page.click('[data-testid=template-edit]');
    await page.fill('input[name=templateName]', 'Scalp');
    await page.click('[data-testid=template-save]');
    await page.waitForFunction("document.querySelector('select[name=template]').value === 'Scalp'");
    // Kept in this browser: after a reload the ticket starts blank, and the template is there to choose.
    await page.reload();
    await page.waitForSelector('[data-testid=desk]', WAIT);
    await page.waitForFunction("!document.querySelector('.chart-loading')", undefined, WAIT);
    expect(await page.inputValue('input[name=slTicks]')).toBe('');
    await page.selectOption('select[name=template]', 'Scalp');
    expect(await page.inputValue('input[name=slTicks]')).toBe('8');
    expect(await page.inputValue('input[name=tpTicks]')).toBe('16');
    await page.focus('[data-testid=step]');
    await page.keyboard.press('b');
    await positionIs(page, 'Long', 1);
    await page.waitForFunction("document.querySelectorAll('[data-testid=orders] tbody tr').length === 2", undefined, WAIT);
    const avg = Number((await rows(page, 'positions'))[0][2]);
    const legs = (await rows(page, 'orders')).map((r) => r.slice(1, 5));
    expect(legs).toContainEqual(['Sell', 'STP', '1', (avg - 2).toFixed(2)]);
    expect(legs).toContainEqual(['Sell', 'LMT', '1', (avg + 4).toFixed(2)]);

    // Renamed, then deleted, in the ticket; a name taken (ignoring case) is refused in words.
    await page.click('[data-testid=template-edit]');
    await page.fill('input[name=templateName]', 'Runner');
    await page.fill('input[name=slTicks]', '40');
    await page.click('[data-testid=template-save]');
    await page.selectOption('select[name=template]', 'Scalp');
    await page.fill('input[name=templateName]', 'runner');
    await page.click('[data-testid=template-rename]');
    expect(await text(page, '[data-testid=template-error]')).toBe('A template named runner exists');
    await page.fill('input[name=templateName]', 'Quick');
    await page.click('[data-testid=template-rename]');
    const options = () => page.$$eval('select[name=template] option', (os: any[]) => os.map((o) => o.textContent));
    expect(await options()).toEqual(['No bracket template', 'Quick — SL 8 · TP 16', 'Runner — SL 40 · TP 16']);
    expect(await page.inputValue('select[name=template]')).toBe('Quick');
    await page.click('[data-testid=template-delete]');
    expect(await options()).toEqual(['No bracket template', 'Runner — SL 40 · TP 16']);
    expect(JSON.parse((await page.evaluate("localStorage.getItem('rd.bracketTemplates')")) as string).map((t: any) => t.name)).toEqual(['Runner']);
    await closeClean(opened);
  }, 120_000);

  it('Reverse turns long 2 into short 2 in one market order: one fill of 4; the old stop-loss goes, the ticket’s brackets protect the new side', async () => {
    const opened = await startStepped(stage, '2025-03-12');
    const { page, accountId } = opened;
    await page.fill('input[name=size]', '2');
    await page.fill('input[name=slTicks]', '8');
    await page.click('[data-testid=buy]');
    await positionIs(page, 'Long', 2);
    await page.waitForFunction("document.querySelector('[data-testid=orders] tbody tr')?.cells[1].textContent === 'Sell'", undefined, WAIT);
    await page.click('[data-testid=positions] [data-testid=reverse]');
    await positionIs(page, 'Short', 2);
    expect(await fills(stage, accountId)).toEqual([[0, 2], [1, 4]]);
    // The long's sell stop was canceled when the position flipped; the reverse's buy stop covers the 2 it opened, 8 ticks above.
    await page.waitForFunction("[...document.querySelectorAll('[data-testid=orders] tbody tr')].map((tr) => tr.cells[1].textContent).join() === 'Buy'", undefined, WAIT);
    const avg = Number((await rows(page, 'positions'))[0][2]);
    expect((await rows(page, 'orders')).map((r) => r.slice(1, 5))).toEqual([['Buy', 'STP', '2', (avg + 2).toFixed(2)]]);
    // R does it again from the keyboard: short 2 → long 2, one more fill of 4.
    await page.focus('[data-testid=step]');
    await page.keyboard.press('r');
    await positionIs(page, 'Long', 2);
    expect(await fills(stage, accountId)).toEqual([[0, 2], [1, 4], [0, 4]]);
    await closeClean(opened);
  }, 120_000);

  it('a breakout OCO: a sell stop linked to a buy stop shows as linked; one fills, the other is canceled', async () => {
    const opened = await startStepped(stage, '2025-03-13');
    const { page, accountId } = opened;
    const last = Number(await text(page, '[data-testid=last-price]'));
    await page.click('[data-type=Stop]');
    await page.fill('input[name=stopPrice]', (last + 5).toFixed(2));
    await page.click('[data-testid=buy]');
    await page.waitForFunction("document.querySelectorAll('[data-testid=orders] tbody tr').length === 1", undefined, WAIT);
    const buyId = Number(await page.getAttribute('[data-testid=orders] tbody tr', 'data-order-id'));
    await page.fill('input[name=stopPrice]', (last - 5).toFixed(2));
    await page.selectOption('select[name=ocoWith]', String(buyId));
    await page.click('[data-testid=sell]');
    await page.waitForFunction("document.querySelectorAll('[data-testid=orders] tbody tr[data-oco]').length === 2", undefined, WAIT);
    const sellId = Number(await page.getAttribute(`[data-testid=orders] tbody tr[data-oco="${buyId}"]`, 'data-order-id'));
    expect(await page.getAttribute(`[data-testid=orders] tbody tr[data-order-id="${buyId}"]`, 'data-oco')).toBe(String(sellId));
    expect(await text(page, `[data-testid=orders] tbody tr[data-order-id="${buyId}"] .oco-tag`)).toBe(`OCO #${sellId}`);
    // The ticket links only the next order.
    expect(await page.inputValue('select[name=ocoWith]')).toBe('');
    await page.mouse.move(10, 890);
    await docScreenshot(page, 'desk-oco-1440');
    // A day later one of them has filled (20 ticks either side of a day's range) and the other is canceled.
    await page.fill('input[name=jumpTo]', '2025-03-14 00:00');
    await page.click('[data-testid=jump]');
    await page.waitForFunction("document.querySelectorAll('[data-testid=orders] tbody tr').length === 0", undefined, WAIT);
    const call = await simCaller(stage.server);
    const { orders } = await call('Order/search', { accountId, startTimestamp: '2000-01-01T00:00:00Z' });
    const statuses = orders.filter((o: any) => o.id === buyId || o.id === sellId).map((o: any) => o.status).sort();
    expect(statuses).toEqual([2, 3]);
    expect((await rows(page, 'positions')).length).toBe(1);
    await closeClean(opened);
  }, 120_000);

  it('a trailing stop a bot placed shows as trailing on the desk, and its chip’s drag changes its trail', async () => {
    const opened = await startStepped(stage, '2025-03-14');
    const { page, accountId } = opened;
    // The bot under the live profile (the gateway's types): a sell trailing stop 100 ticks (25 points) behind.
    const { base, creds } = stage.server;
    const post = (path: string, body: unknown, token?: string) =>
      fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) }, body: JSON.stringify(body) }).then((r) => r.json() as any);
    const token: string = (await post('/api/sim/Auth/loginKey', { userName: creds.userName, apiKey: creds.apiKey })).token;
    const contractId: string = await page.evaluate(`JSON.parse(localStorage.getItem('rd.desk.session.${accountId}')).contract.id`);
    const placed = await post('/live/api/sim/Order/place', { accountId, contractId, type: 5, side: 1, size: 1, trailPrice: 25 }, token);
    expect(placed.success).toBe(true);
    const id: number = placed.orderId;
    const [bot] = (await post('/live/api/sim/Order/searchOpen', { accountId }, token)).orders;
    expect([bot.id, bot.type]).toEqual([id, 5]);
    // The desk lists it as TRAIL (the spec's view it reads says Stop), in the table and on its chip.
    await page.waitForFunction(`document.querySelector('[data-testid=orders] tr[data-order-id="${id}"]')?.cells[2].textContent.trim() === 'TRAIL'`, undefined, WAIT);
    await page.waitForFunction(`document.querySelector('[data-testid=chart-orders] [data-order-id="${id}"] .grip')?.textContent.trim() === 'SELL 1 TRAIL ${bot.stopPrice.toFixed(2)}'`, undefined, WAIT);
    // Dragged up: a shorter trail (never a stop price, which a trailing stop refuses).
    await page.evaluate('new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => requestAnimationFrame(r))))');
    const box = (await page.locator(`[data-testid=chart-orders] [data-order-id="${id}"] .grip`).boundingBox())!;
    const [x, y] = [box.x + box.width / 2, box.y + box.height / 2];
    await page.mouse.move(x, y);
    await page.mouse.down();
    for (const dy of [10, 20]) await page.mouse.move(x, y - dy, { steps: 4 });
    await page.mouse.up();
    await page.waitForFunction(`(document.querySelector('[data-testid=flash]')?.textContent ?? '').includes('Order #${id} now trails by')`, undefined, WAIT);
    const [, trail, at] = /now trails by (\d+) ticks \(its stop at ([\d.]+)\)/.exec(await text(page, '[data-testid=flash]'))!;
    expect(Number(trail)).toBeLessThan(100);
    const [after] = (await post('/live/api/sim/Order/searchOpen', { accountId }, token)).orders;
    expect([after.id, after.type, after.stopPrice]).toEqual([id, 5, Number(at)]);
    await closeClean(opened);
  }, 120_000);
});
