// The Replay desk in a real browser: start a replay, step (button and keyboard) and play, place a
// bracketed limit order and see it on the chart and in the working orders, cancel an order from the
// chart, jump until the entry fills, see the fill, the position, the bracket legs and the balance,
// end the session; then trade a challenge account into a violation and see it in the desk.
import { describe, expect, it } from 'bun:test';
import type { Page } from 'playwright-core';
import { loginThroughForm, newPage, noBrowser, screenshot, adminCli, browserStage } from './support.ts';

/** A number the chart container holds in a data attribute. */
async function chartAttr(page: Page, name: string): Promise<number> {
  return Number(await page.getAttribute('[data-testid=chart]', `data-${name}`));
}

async function text(page: Page, sel: string): Promise<string> {
  return ((await page.textContent(sel)) ?? '').trim();
}

/** Rows of a table as arrays of cell texts. */
async function rows(page: Page, testid: string): Promise<string[][]> {
  return page.$$eval(`[data-testid=${testid}] tbody tr`, (trs: any[]) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td: any) => td.textContent.trim())));
}

/** `1,234 / 5,000` → [1234, 5000] */
async function progress(page: Page): Promise<[number, number]> {
  const [a, b] = (await text(page, '[data-testid=progress]')).split('/').map((s) => Number(s.replace(/[^0-9]/g, '')));
  return [a, b];
}

const usd = (v: number) => v.toLocaleString('en-US', { style: 'currency', currency: 'USD' });

/** Waits until an element's text is `expected` (figures that follow an asynchronous read). */
async function waitText(page: Page, testid: string, expected: string): Promise<void> {
  try {
    await page.waitForFunction(
      `document.querySelector('[data-testid=${testid}]')?.textContent.trim() === ${JSON.stringify(expected)}`,
      undefined,
      { timeout: 10_000 },
    );
  } catch {
    throw new Error(`[data-testid=${testid}] shows ${JSON.stringify(await page.textContent(`[data-testid=${testid}]`))}, expected ${JSON.stringify(expected)}`);
  }
}

/** One challenge account as GET /api/auth/challenges states it (read in the page, with its cookie). */
async function challengeOf(page: Page, accountId: number): Promise<any> {
  const r: any = await page.evaluate("fetch('/api/auth/challenges').then((r) => r.json())");
  return r.challenges.find((c: any) => c.accountId === accountId);
}

async function startSession(page: Page, opts: { date: string; timeframe?: string; account?: string }) {
  await page.waitForSelector('[data-testid=start-form] select[name=contract] option', { state: 'attached' });
  await page.fill('input[name=startDate]', opts.date);
  if (opts.timeframe) await page.selectOption('select[name=timeframe]', opts.timeframe);
  if (opts.account) await page.selectOption('select[name=account]', opts.account);
  await page.click('text=Start replay');
  await page.waitForSelector('[data-testid=desk]');
  // History is loaded and the status read: the progress shows the session's bar count.
  await page.waitForFunction("Number(document.querySelector('[data-testid=chart]')?.dataset.bars) > 0 && !document.querySelector('.chart-loading')");
}

describe.skipIf(noBrowser)('console: replay desk', () => {
  const stage = browserStage();

  it('starts a replay, steps and plays, places a bracketed limit, sees it fill, ends the session', async () => {
    const { page, errors, context } = await newPage(stage.browser);
    await loginThroughForm(page, stage.server);
    await page.goto(`${stage.server.base}/#/desk`);
    await startSession(page, { date: '2025-03-10', timeframe: '1m' });

    // History before the start is on the chart; nothing of the session is played yet.
    const history = await chartAttr(page, 'bars');
    expect(history).toBe(500);
    expect(await chartAttr(page, 'volume-bars')).toBe(history);
    const [idx0, total] = await progress(page);
    expect(idx0).toBe(0);
    expect(total).toBeGreaterThan(1000);
    expect(await text(page, '[data-testid=balance]')).toBe('$50,000.00');

    // Step with the button, then with the keyboard (→ and N).
    await page.click('[data-testid=step]');
    await page.waitForFunction(`document.querySelector('[data-testid=chart]').dataset.bars === '${history + 1}'`);
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('n');
    await page.waitForFunction(`document.querySelector('[data-testid=chart]').dataset.bars === '${history + 3}'`);
    expect(await progress(page)).toEqual([3, total]);
    const simTime = await text(page, '[data-testid=sim-time]');
    // The clock is the simulated now: the close of the third bar played.
    expect(simTime).toBe('2025-03-10 00:03:00');

    // Play at speed 20 (40 bars a second), pause with Space.
    await page.fill('input[name=speed]', '20');
    await page.click('[data-testid=play]');
    await page.waitForFunction(`Number(document.querySelector('[data-testid=chart]').dataset.bars) >= ${history + 40}`, undefined, { timeout: 15_000 });
    await page.keyboard.press('Space');
    await page.waitForSelector('[data-testid=play]:has-text("Play")');
    await Bun.sleep(400);
    const [played] = await progress(page);
    expect(played).toBeGreaterThanOrEqual(40);
    expect(await chartAttr(page, 'bars')).toBe(history + played);

    // A reload resumes the session where it stands: history plus the bars played, same progress.
    await page.reload();
    await page.waitForSelector('[data-testid=desk]');
    await page.waitForFunction("Number(document.querySelector('[data-testid=chart]')?.dataset.bars) > 0 && !document.querySelector('.chart-loading')");
    expect(await progress(page)).toEqual([played, total]);
    expect(await chartAttr(page, 'bars')).toBe(history + played);

    // A bracketed buy limit four ticks under the last price: on the chart (entry + planned SL/TP)
    // and in the working orders.
    const last = Number(await page.getAttribute('[data-testid=chart]', 'data-last-close'));
    const limit = last - 1; // NQ: 4 ticks
    await page.click('.seg button[data-type=Limit]');
    await page.fill('input[name=limitPrice]', limit.toFixed(2));
    await page.fill('input[name=slTicks]', '200');
    await page.fill('input[name=tpTicks]', '400');
    await page.click('[data-testid=buy]');
    await page.waitForSelector('[data-testid=orders] tbody tr');
    const working = await rows(page, 'orders');
    expect(working.length).toBe(1);
    const entryId = Number(working[0][0]);
    expect(working[0].slice(1, 5)).toEqual(['Buy', 'LMT', '1', limit.toFixed(2)]);
    expect(await chartAttr(page, 'price-lines')).toBe(3);
    const titles = (await page.getAttribute('[data-testid=chart]', 'data-price-line-titles'))!.split('|');
    expect(titles).toEqual([`BUY 1 LMT #${entryId}`, `SL #${entryId} (on fill)`, `TP #${entryId} (on fill)`]);
    expect(await text(page, `[data-testid=chart-orders] [data-order-id="${entryId}"] span`)).toBe(`BUY 1 LMT ${limit.toFixed(2)}`);

    // A second order, canceled from the chart's own order chip.
    await page.click('.seg button[data-type=Stop]');
    await page.fill('input[name=stopPrice]', (last - 50).toFixed(2));
    await page.fill('input[name=slTicks]', '');
    await page.fill('input[name=tpTicks]', '');
    await page.click('[data-testid=sell]');
    await page.waitForFunction("document.querySelectorAll('[data-testid=orders] tbody tr').length === 2");
    expect(await chartAttr(page, 'price-lines')).toBe(4);
    const stopId = Math.max(...(await rows(page, 'orders')).map((r) => Number(r[0])));
    await page.click(`[data-testid=chart-orders] [data-order-id="${stopId}"] button`);
    await page.waitForFunction("document.querySelectorAll('[data-testid=orders] tbody tr').length === 1");
    expect(await chartAttr(page, 'price-lines')).toBe(3);
    expect(Number((await rows(page, 'orders'))[0][0])).toBe(entryId);

    // Jump ten minutes at a time until the entry fills.
    for (let i = 0; i < 60 && (await rows(page, 'fills')).length === 0; i++) {
      const now = await text(page, '[data-testid=sim-time]');
      const target = new Date(Date.parse(`${now.replace(' ', 'T')}Z`) + 600_000).toISOString().slice(0, 16);
      const before = (await progress(page))[0];
      await page.fill('input[name=jumpTo]', target);
      await page.click('[data-testid=jump]');
      await page.waitForFunction(`Number(document.querySelector('[data-testid=progress]').textContent.split('/')[0].replace(/[^0-9]/g, '')) > ${before}`);
      await Bun.sleep(300);
    }
    await page.waitForSelector('[data-testid=fills] tbody tr');
    const fillRows = await rows(page, 'fills');
    expect(fillRows.length).toBe(1);
    const fill = fillRows[0];
    expect(fill.slice(1, 6)).toEqual(['Buy', '1', limit.toFixed(2), '$1.40', `#${entryId}`]);
    // The chart grew by exactly the bars the jumps played.
    const [afterJump] = await progress(page);
    expect(await chartAttr(page, 'bars')).toBe(history + afterJump);
    expect(await chartAttr(page, 'markers')).toBe(1);

    // Long 1 at the limit; the legs work at the bracket distances; fees came off the balance.
    const pos = (await rows(page, 'positions'))[0];
    expect(pos.slice(0, 3)).toEqual(['Long', '1', limit.toFixed(2)]);
    const legs = (await rows(page, 'orders')).map((r) => r.slice(1, 5));
    expect(legs).toContainEqual(['Sell', 'STP', '1', (limit - 50).toFixed(2)]);
    expect(legs).toContainEqual(['Sell', 'LMT', '1', (limit + 100).toFixed(2)]);
    expect(await chartAttr(page, 'price-lines')).toBe(3); // two legs and the average price
    expect(await text(page, '[data-testid=balance]')).toBe('$49,998.60');
    await page.focus('[data-testid=step]'); // no caret in an input, no crosshair over the chart
    await page.mouse.move(700, 890);
    await screenshot(page, 'desk');

    // End the session: the final balance is the account's balance as the API reports it.
    await page.click('[data-testid=end]');
    await page.click('[data-testid=end-yes]');
    await page.waitForSelector('[data-testid=final-result]');
    const finalText = await text(page, '[data-testid=final-balance]');
    const accounts: any = await page.evaluate(
      "fetch('/api/sim/Account/search', {method: 'POST', headers: {'content-type': 'application/json'}, body: '{}'}).then((r) => r.json())",
    );
    const ended = accounts.accounts.find((a: any) => a.name.startsWith('REPLAY-NQ-1m-') && !a.canTrade);
    expect(finalText).toBe(usd(ended.balance));
    expect(ended.balance).toBeLessThan(50_000 + 100 * 20); // at most the take-profit
    expect((await rows(page, 'positions')).length).toBe(0);
    expect((await rows(page, 'orders')).length).toBe(0);
    await screenshot(page, 'desk-ended');
    expect(errors.filter((e) => !e.includes('401'))).toEqual([]);
    await context.close();
  }, 120_000);

  it('shows a challenge violation the moment it happens', async () => {
    const ch = adminCli(stage.server, ['challenge', 'create', '--email', stage.server.creds.userName, '--plan', '50K']);
    expect(ch.name).toBe(`CHALLENGE-50K-${ch.accountId}`);
    const { page, errors, context } = await newPage(stage.browser);
    await loginThroughForm(page, stage.server);
    await page.goto(`${stage.server.base}/#/desk`);
    await page.waitForSelector('[data-testid=challenge-accounts]');
    expect((await rows(page, 'challenge-accounts'))[0].slice(0, 2)).toEqual([ch.name, '$50,000.00']);
    await startSession(page, { date: '2025-03-11', timeframe: '1m', account: String(ch.accountId) });
    expect(await text(page, '[data-testid=challenge-status]')).toBe('Active');
    expect(await text(page, '[data-testid=balance]')).toBe('$50,000.00');

    // The rule state as GET /api/auth/challenges states it: a fresh 50K evaluation.
    await waitText(page, 'trading-days', '0 / 2');
    let api = await challengeOf(page, ch.accountId);
    expect(api.trailingFloor).toBe(48_000);
    expect(await text(page, '[data-testid=trailing-floor]')).toBe('$48,000.00');
    expect(await text(page, '[data-testid=daily-loss-floor]')).toBe(api.dailyLossFloor === null ? '—' : usd(api.dailyLossFloor));
    expect(await text(page, '[data-testid=profit-target]')).toBe('$3,000.00');
    expect(await text(page, '[data-testid=profit]')).toBe('$0.00');
    expect(await text(page, '[data-testid=best-day]')).toBe('$0.00');
    expect(await text(page, '[data-testid=consistency]')).toBe('must stay below 50% of profit');
    expect(await text(page, '[data-testid=drawdown]')).toBe('Trailing');
    expect(await text(page, '[data-testid=challenge-phase]')).toBe('Evaluation');

    // One bar: the trade date has begun, so today's daily-loss floor is the day's start less $1,000,
    // above the trailing floor: the effective one, $1,000 under the equity.
    await page.click('[data-testid=step]');
    await waitText(page, 'daily-loss-floor', '$49,000.00');
    api = await challengeOf(page, ch.accountId);
    expect(api.dailyLossFloor).toBe(49_000);
    expect(api.effectiveFloor).toBe(49_000);
    expect(await page.$eval('[data-testid=daily-loss-floor]', (el: any) => el.parentElement.textContent)).toBe('$49,000.00effective');
    expect(await page.$eval('[data-testid=trailing-floor]', (el: any) => el.parentElement.textContent)).toBe('$48,000.00');
    await waitText(page, 'floor-room', '$1,000.00');

    // Five minis long at market with the B key ($100 a point: a 10-point drop is the daily limit).
    await page.fill('input[name=size]', '5');
    await page.focus('[data-testid=step]');
    await page.keyboard.press('b');
    await page.waitForSelector('[data-testid=positions] tbody tr');
    expect((await rows(page, 'positions'))[0].slice(0, 2)).toEqual(['Long', '5']);
    await waitText(page, 'trading-days', '1 / 2');
    expect((await challengeOf(page, ch.accountId)).tradingDays).toBe(1);
    // The distance to the floor follows the equity (open P&L and fees) after the next bar.
    await page.click('[data-testid=step]');
    await page.waitForFunction(
      "(() => { const m = (s) => Number(document.querySelector(`[data-testid=${s}]`).textContent.replace(/[$,]/g, '')); return Math.abs(m('equity') - 49000 - m('floor-room')) < 0.005; })()",
    );

    await page.mouse.move(700, 890);
    await screenshot(page, 'desk-challenge');

    // Jump half an hour at a time; turn short if the market keeps rising.
    for (let i = 0; i < 48 && !(await page.$('[data-testid=violation]')); i++) {
      if (i === 12) {
        await page.focus('[data-testid=step]');
        await page.keyboard.press('s');
        await page.keyboard.press('s');
        await page.waitForFunction("document.querySelector('[data-testid=positions] tbody tr td')?.textContent === 'Short'");
      }
      const now = await text(page, '[data-testid=sim-time]');
      await page.fill('input[name=jumpTo]', new Date(Date.parse(`${now.replace(' ', 'T')}Z`) + 1_800_000).toISOString().slice(0, 16));
      const before = (await progress(page))[0];
      await page.click('[data-testid=jump]');
      await page.waitForFunction(
        `document.querySelector('[data-testid=violation]') || Number(document.querySelector('[data-testid=progress]').textContent.split('/')[0].replace(/[^0-9]/g, '')) > ${before}`,
      );
    }
    await page.waitForSelector('[data-testid=violation]');
    const shown = adminCli(stage.server, ['challenge', 'show', '--account', String(ch.accountId)]);
    expect(shown.propFirm.status).toBe('violated');
    const violation = await text(page, '[data-testid=violation]');
    expect(violation).toContain(shown.outcome.message);
    expect(violation).toContain(shown.outcome.rule === 'dailyLossLimit' ? 'Daily loss limit' : 'Maximum loss');
    expect(await text(page, '[data-testid=challenge-status]')).toBe('Violated');
    expect(await text(page, '[data-testid=final-result] h2')).toBe('Challenge violated — session finalized');
    expect(await text(page, '[data-testid=final-balance]')).toBe(usd(shown.balance));
    // The figure's arithmetic is stated beside it, and the end panel counts the fills the table lists.
    expect(await text(page, '[data-testid=violation-arithmetic]')).toStartWith(
      shown.outcome.rule === 'dailyLossLimit' ? "Daily net P&L = equity at the breach price − the trade date's starting equity" : 'Equity at the breach price',
    );
    await page.waitForFunction("document.querySelector('[data-testid=final-fills]').textContent === String(document.querySelectorAll('[data-testid=fills] tbody tr').length)");
    expect(Number(await text(page, '[data-testid=final-fills]'))).toBeGreaterThan(0);
    // The panel's figures after the violation are the API's.
    api = await challengeOf(page, ch.accountId);
    expect(api.status).toBe('violated');
    await page.waitForSelector('[data-testid=challenge][data-detail-status=violated]');
    expect(await text(page, '[data-testid=trailing-floor]')).toBe(usd(api.trailingFloor));
    expect(await text(page, '[data-testid=trading-days]')).toBe(`${api.tradingDays} / 2`);
    expect(await text(page, '[data-testid=profit]')).toBe(usd(api.profit));
    // The session is over: no more stepping or trading.
    expect(await page.isDisabled('[data-testid=step]')).toBe(true);
    expect(await page.$('[data-testid=ticket]')).toBeNull();
    await page.mouse.move(700, 890);
    await screenshot(page, 'desk-violation');
    expect(errors.filter((e) => !e.includes('401'))).toEqual([]);
    await context.close();
  }, 120_000);
});
