// The Replay desk on the real-time hubs, in a real browser: Play plays through the server (no
// stepping from the page) and the chart's bars arrive through the market hub's ReplayDeskBars; an
// order filled during playback reaches the fills table from the user hub's event; two pages on one
// session show the same chart, positions and fills after one of them trades, without reloading.
// The page's requests are recorded, so "from the hub" means: no REST call could have told it.
import { describe, expect, it } from 'bun:test';
import type { Page, WebSocketRoute } from 'playwright-core';
import { adminCli, browserStage, loginThroughForm, newPage, noBrowser, screenshot } from './support.ts';

/** Generous bounds: the machine is shared and loaded; each wait ends on the event it expects. */
const WAIT = { timeout: 30_000 };

async function chartAttr(page: Page, name: string): Promise<number> {
  return Number(await page.getAttribute('[data-testid=chart]', `data-${name}`));
}

async function rows(page: Page, testid: string): Promise<string[][]> {
  return page.$$eval(`[data-testid=${testid}] tbody tr`, (trs: any[]) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td: any) => td.textContent.trim())));
}

async function progress(page: Page): Promise<[number, number]> {
  const t = ((await page.textContent('[data-testid=progress]')) ?? '').trim();
  const [a, b] = t.split('/').map((s) => Number(s.replace(/[^0-9]/g, '')));
  return [a, b];
}

/** The API paths (`Replay/step`, `History/retrieveBars`…) a page calls from now on, with their bodies. */
function recordCalls(page: Page): { path: string; body: any }[] {
  const calls: { path: string; body: any }[] = [];
  page.on('request', (r) => {
    const m = /\/api\/(?:sim|auth)\/(.+)$/.exec(new URL(r.url()).pathname);
    if (!m) return;
    let body: any = null;
    try {
      body = JSON.parse(r.postData() ?? 'null');
    } catch {
      body = r.postData();
    }
    calls.push({ path: m[1], body });
  });
  return calls;
}

/** A current-family call made from the page with its cookie. */
function api(page: Page, path: string, body: unknown): Promise<any> {
  return page.evaluate(
    ([p, b]) => fetch(`/api/sim/${p}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(b) }).then((r) => r.json()),
    [path, body] as const,
  );
}

/** The session as the server states it (a jump before its start changes nothing). */
const serverStatus = (page: Page, accountId: number) => api(page, 'Replay/jumpTo', { accountId, targetTime: '2000-01-01T00:00:00Z' });

async function startSession(page: Page, date: string, account?: number): Promise<number> {
  await page.waitForSelector('[data-testid=start-form] select[name=contract] option', { state: 'attached' });
  await page.fill('input[name=startDate]', date);
  await page.selectOption('select[name=timeframe]', '1m');
  if (account !== undefined) await page.selectOption('select[name=account]', String(account));
  await page.click('text=Start replay');
  await deskReady(page);
  return Number(await page.evaluate("localStorage.getItem('rd.desk.current')"));
}

/** The desk is loaded and both hubs are up. */
async function deskReady(page: Page): Promise<void> {
  await page.waitForSelector('[data-testid=desk]', WAIT);
  await page.waitForFunction("Number(document.querySelector('[data-testid=chart]')?.dataset.bars) > 0 && !document.querySelector('.chart-loading')", undefined, WAIT);
  await page.waitForSelector('[data-testid=link][data-state=up]', WAIT);
}

/** The `count` 1m session bars from the start date, as History states them (the chart must hold the same). */
async function sessionBars(page: Page, accountId: number, date: string, count: number): Promise<any[]> {
  const meta = JSON.parse((await page.evaluate(`localStorage.getItem('rd.desk.session.${accountId}')`)) as string);
  const r = await api(page, 'History/retrieveBars', { contractId: meta.contract.id, unit: 2, unitNumber: 1, startTime: `${date}T00:00:00Z`, limit: count });
  return r.bars;
}

describe.skipIf(noBrowser)('console: the desk on the hubs', () => {
  const stage = browserStage();

  it('plays through the server: bars from ReplayDeskBars, no step from the page, a fill from the user hub', async () => {
    const { page, errors, context } = await newPage(stage.browser);
    await loginThroughForm(page, stage.server);
    await page.goto(`${stage.server.base}/#/desk`);
    const date = '2025-03-04';
    const accountId = await startSession(page, date);
    const history = await chartAttr(page, 'bars');

    // Two resting orders a tick either side of the last price: the first tick the market moves fills one.
    const last = Number(await page.getAttribute('[data-testid=chart]', 'data-last-close'));
    // A stop new to the desk is asked about once (is it trailing? src/console/pages/desk/trailing.ts): before playing.
    const trailRead = page.waitForResponse((r) => r.url().includes('/trailing-stops'), WAIT);
    for (const [type, price] of [['Limit', last - 0.25], ['Stop', last + 0.25]] as const) {
      await page.click(`.seg button[data-type=${type}]`);
      await page.fill(`input[name=${type === 'Limit' ? 'limitPrice' : 'stopPrice'}]`, price.toFixed(2));
      await page.click('[data-testid=buy]');
    }
    await page.waitForFunction("document.querySelectorAll('[data-testid=orders] tbody tr').length === 2", undefined, WAIT);
    await trailRead;

    const calls = recordCalls(page);
    await page.fill('input[name=speed]', '20');
    await page.click('[data-testid=play]');
    await page.waitForSelector('[data-testid=play]:has-text("Pause")', WAIT);
    // While the server plays, the page cannot step or jump (the server would answer 503).
    expect(await page.isDisabled('[data-testid=step]')).toBe(true);
    expect(await page.isDisabled('[data-testid=jump]')).toBe(true);
    await page.waitForFunction(`Number(document.querySelector('[data-testid=chart]').dataset.bars) >= ${history + 60}`, undefined, WAIT);
    await page.waitForSelector('[data-testid=fills] tbody tr', WAIT);
    const during = calls.map((c) => c.path);
    await page.keyboard.press('Space');
    await page.waitForSelector('[data-testid=play]:has-text("Play")', WAIT);

    // The page asked the server to play, and moved nothing itself: the bars and the fill came
    // through the hubs (no step, no bar read, no table read while playing).
    expect(calls[0]).toEqual({ path: 'Replay/play', body: { accountId, speed: 20 } });
    expect(during.filter((p) => p !== 'Replay/play' && p !== 'auth/challenges')).toEqual([]);
    expect(calls.some((c) => c.path === 'Replay/step')).toBe(false);

    // Paused: the chart holds exactly the bars the server played, the last one the server's.
    const st = await serverStatus(page, accountId);
    expect(st.success).toBe(true);
    expect(st.currentIndex).toBeGreaterThanOrEqual(60);
    await page.waitForFunction(`document.querySelector('[data-testid=chart]').dataset.bars === '${history + st.currentIndex}'`, undefined, WAIT);
    expect(await progress(page)).toEqual([st.currentIndex, st.totalBars]);
    const played = await sessionBars(page, accountId, date, st.currentIndex);
    expect(played.length).toBe(st.currentIndex);
    expect(await chartAttr(page, 'last-close')).toBe(played[played.length - 1].c);
    // The clock is the simulated now: the close of the last bar played (1 m bars).
    const closeS = Date.parse(played[played.length - 1].t) + 60_000;
    expect(await page.textContent('[data-testid=sim-time]')).toBe(new Date(closeS).toISOString().slice(0, 19).replace('T', ' '));

    // The fill the user hub announced is the one the server holds, and the table shows it.
    const trades = (await api(page, 'Trade/search', { accountId })).trades;
    expect(trades.length).toBeGreaterThanOrEqual(1);
    const shown = await rows(page, 'fills');
    expect(shown.length).toBe(trades.length);
    // Newest first, as Trade/search lists them (and as the table shows them after a reload).
    expect(shown.map((r) => r.slice(1, 6))).toEqual(trades.map((t: any) => ['Buy', '1', t.price.toFixed(2), '$1.40', `#${t.orderId}`]));
    expect((await rows(page, 'positions'))[0].slice(0, 2)).toEqual(['Long', String(trades.length)]);
    expect(await page.textContent('[data-testid=balance]')).toBe(
      ((await api(page, 'Account/search', {})).accounts.find((a: any) => a.id === accountId).balance as number).toLocaleString('en-US', { style: 'currency', currency: 'USD' }),
    );

    await page.mouse.move(700, 890);
    await screenshot(page, 'desk-played');
    await page.click('[data-testid=end]');
    await page.click('[data-testid=end-yes]');
    await page.waitForSelector('[data-testid=final-result]', WAIT);
    expect(errors.filter((e) => !e.includes('401'))).toEqual([]);
    await context.close();
  }, 180_000);

  it('a challenge violated during playback ends the session on the desk with its outcome', async () => {
    const ch = adminCli(stage.server, ['challenge', 'create', '--email', stage.server.creds.userName, '--plan', '50K']);
    const { page, errors, context } = await newPage(stage.browser);
    await loginThroughForm(page, stage.server);
    await page.goto(`${stage.server.base}/#/desk`);
    await page.waitForSelector('[data-testid=challenge-accounts]', WAIT);
    await startSession(page, '2025-03-06', ch.accountId);
    await page.click('[data-testid=step]');
    await page.waitForFunction("document.querySelector('[data-testid=progress]').textContent.trim().startsWith('1 /')", undefined, WAIT);
    // Five minis long ($100 a point): a 10-point drop within a trade date breaks the daily loss limit.
    await page.fill('input[name=size]', '5');
    await page.focus('[data-testid=step]');
    await page.keyboard.press('b');
    await page.waitForSelector('[data-testid=positions] tbody tr', WAIT);
    const calls = recordCalls(page);
    await page.fill('input[name=speed]', '50');
    await page.click('[data-testid=play]');
    await page.waitForSelector('[data-testid=final-result]', { timeout: 120_000 });

    // The server decided during its own playback; the page heard it from the bars' `ended`.
    expect(calls.some((c) => c.path === 'Replay/step')).toBe(false);
    const shown = adminCli(stage.server, ['challenge', 'show', '--account', String(ch.accountId)]);
    expect(shown.propFirm.status).toBe('violated');
    expect(((await page.textContent('[data-testid=final-result] h2')) ?? '').trim()).toBe('Challenge violated — session finalized');
    expect(await page.textContent('[data-testid=final-result]')).toContain(shown.outcome.message);
    expect(((await page.textContent('[data-testid=final-balance]')) ?? '').trim()).toBe(
      shown.balance.toLocaleString('en-US', { style: 'currency', currency: 'USD' }),
    );
    await page.waitForSelector('[data-testid=challenge][data-detail-status=violated]', WAIT);
    expect(await page.isDisabled('[data-testid=step]')).toBe(true);
    expect(await page.isDisabled('[data-testid=play]')).toBe(true);
    expect(await page.$('[data-testid=ticket]')).toBeNull();
    expect(errors.filter((e) => !e.includes('401'))).toEqual([]);
    await context.close();
  }, 240_000);

  it('after the user hub reconnects, the tables are read again: a trade made while it was down shows', async () => {
    const { page, errors, context } = await newPage(stage.browser);
    // The page's user-hub sockets pass through the test, which can drop them and refuse new ones.
    let refuse = false;
    const sockets: WebSocketRoute[] = [];
    await context.routeWebSocket(/\/hubs\/user/, (ws) => {
      if (refuse) return ws.close({ code: 1011, reason: 'refused by the test' });
      ws.connectToServer();
      sockets.push(ws);
    });
    await loginThroughForm(page, stage.server);
    await page.goto(`${stage.server.base}/#/desk`);
    const accountId = await startSession(page, '2025-03-07');
    await page.click('[data-testid=step]');
    await page.waitForFunction("document.querySelector('[data-testid=progress]').textContent.trim().startsWith('1 /')", undefined, WAIT);

    refuse = true;
    for (const ws of sockets) await ws.close({ code: 1011, reason: 'dropped by the test' });
    await page.waitForSelector('[data-testid=link][data-state=reconnecting]', WAIT);
    // A bot (here: a call outside the desk's code) buys while the page hears nothing.
    const contractId = JSON.parse((await page.evaluate(`localStorage.getItem('rd.desk.session.${accountId}')`)) as string).contract.id;
    const placed = await api(page, 'Order/place', { accountId, contractId, type: 2, side: 0, size: 3 });
    expect(placed.success).toBe(true);
    await Bun.sleep(500);
    expect(await rows(page, 'positions')).toEqual([]);

    const calls = recordCalls(page);
    refuse = false;
    await page.waitForSelector('[data-testid=link][data-state=up]', WAIT);
    await page.waitForSelector('[data-testid=positions] tbody tr', WAIT);
    expect((await rows(page, 'positions'))[0].slice(0, 2)).toEqual(['Long', '3']);
    expect((await rows(page, 'fills')).map((r) => r.slice(1, 3))).toEqual([['Buy', '3']]);
    expect(calls.map((c) => c.path)).toContain('Position/searchOpen');
    // And the events flow again: a sell from outside reaches the table without another read.
    const reads = calls.length;
    expect((await api(page, 'Order/place', { accountId, contractId, type: 2, side: 1, size: 3 })).success).toBe(true);
    await page.waitForFunction("document.querySelectorAll('[data-testid=positions] tbody tr').length === 0", undefined, WAIT);
    await page.waitForFunction("document.querySelectorAll('[data-testid=fills] tbody tr').length === 2", undefined, WAIT);
    expect(calls.slice(reads).map((c) => c.path).filter((p) => /searchOpen|Trade\/search/.test(p))).toEqual([]);
    expect(errors.filter((e) => !e.includes('401'))).toEqual([]);
    await context.close();
  }, 180_000);

  it('two pages on one session show the same chart, positions and fills after one of them trades', async () => {
    const { page: a, errors, context } = await newPage(stage.browser);
    await loginThroughForm(a, stage.server);
    await a.goto(`${stage.server.base}/#/desk`);
    const accountId = await startSession(a, '2025-03-05');
    await a.click('[data-testid=step]');
    await a.waitForFunction("document.querySelector('[data-testid=progress]').textContent.trim().startsWith('1 /')", undefined, WAIT);

    // A second tab of the same browser opens the desk on the same session.
    const b = await context.newPage();
    b.on('pageerror', (e) => errors.push(String(e)));
    await b.goto(`${stage.server.base}/#/desk`);
    await deskReady(b);
    expect(await progress(b)).toEqual(await progress(a));
    const callsB = recordCalls(b);

    // A buys two at market (keyboard), steps, and steps ten: B hears all of it.
    await a.fill('input[name=size]', '2');
    await a.focus('[data-testid=step]');
    await a.keyboard.press('b');
    await b.waitForSelector('[data-testid=positions] tbody tr', WAIT);
    await b.waitForSelector('[data-testid=fills] tbody tr', WAIT);
    await a.click('[data-testid=step]');
    await a.keyboard.press('Shift+ArrowRight');
    await a.waitForFunction("document.querySelector('[data-testid=progress]').textContent.trim().startsWith('12 /')", undefined, WAIT);
    await b.waitForFunction("document.querySelector('[data-testid=progress]').textContent.trim().startsWith('12 /')", undefined, WAIT);
    expect(await rows(b, 'positions')).toEqual(await rows(a, 'positions'));
    expect((await rows(b, 'positions'))[0].slice(0, 2)).toEqual(['Long', '2']);
    expect(await rows(b, 'fills')).toEqual(await rows(a, 'fills'));
    expect(await chartAttr(b, 'bars')).toBe(await chartAttr(a, 'bars'));
    expect(await chartAttr(b, 'last-close')).toBe(await chartAttr(a, 'last-close'));
    await b.waitForFunction(`document.querySelector('[data-testid=balance]').textContent === ${JSON.stringify(await a.textContent('[data-testid=balance]'))}`, undefined, WAIT);

    // A jumps half an hour: B's chart fills the gap (its own History read) and matches A's.
    const now = ((await a.textContent('[data-testid=sim-time]')) ?? '').trim();
    await a.fill('input[name=jumpTo]', new Date(Date.parse(`${now.replace(' ', 'T')}Z`) + 1_800_000).toISOString().slice(0, 16));
    await a.click('[data-testid=jump]');
    await a.waitForFunction("!document.querySelector('[data-testid=progress]').textContent.trim().startsWith('12 /')", undefined, WAIT);
    const [jumped] = await progress(a);
    await b.waitForFunction(`document.querySelector('[data-testid=progress]').textContent.trim().startsWith('${jumped} /')`, undefined, WAIT);
    await b.waitForFunction(`document.querySelector('[data-testid=chart]').dataset.bars === '${await chartAttr(a, 'bars')}'`, undefined, WAIT);
    expect(await chartAttr(b, 'last-close')).toBe(await chartAttr(a, 'last-close'));

    // A flattens: B is flat too, with the closing fill.
    await a.click('[data-testid=positions] button:has-text("Flatten")');
    await b.waitForFunction("document.querySelectorAll('[data-testid=positions] tbody tr').length === 0", undefined, WAIT);
    await b.waitForFunction("document.querySelectorAll('[data-testid=fills] tbody tr').length === 2", undefined, WAIT);
    // A hears of its own closing fill through the same event: wait for it there too.
    await a.waitForFunction("document.querySelectorAll('[data-testid=fills] tbody tr').length === 2", undefined, WAIT);
    expect(await rows(b, 'fills')).toEqual(await rows(a, 'fills'));
    expect((await rows(b, 'fills'))[0].slice(1, 3)).toEqual(['Sell', '2']);
    // B read no table: every row came from the user hub's events.
    const reads = callsB.map((c) => c.path).filter((p) => /searchOpen|Trade\/search/.test(p));
    expect(reads).toEqual([]);

    await b.mouse.move(700, 890);
    await screenshot(b, 'desk-second-tab');
    // What the events built is what the REST reads give after a reload, row for row.
    const heard = await rows(b, 'fills');
    await b.reload();
    await deskReady(b);
    expect(await rows(b, 'fills')).toEqual(heard);
    expect(await chartAttr(b, 'bars')).toBe(await chartAttr(a, 'bars'));
    expect(errors.filter((e) => !e.includes('401'))).toEqual([]);
    await context.close();
  }, 180_000);
});
