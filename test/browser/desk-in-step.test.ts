// The desk never out of step with the server (issue 30, defect 1): a trader skipping through a day
// with Jump once a second keeps a chart and a clock that are the server's, however many jumps (the
// desk reads a jump's bars on the console's own budget, never History's); a jump that moved nothing
// says why where it can be read, and the note goes with the next move.
import { describe, expect, it } from 'bun:test';
import type { Page } from 'playwright-core';
import { closeClean, deskPage, jumpNote, jumpUntilClock, WAIT } from './desk-support.ts';
import { browserStage, noBrowser, screenshot } from './support.ts';


/** The API paths a page calls from now on. */
function recordPaths(page: Page): string[] {
  const paths: string[] = [];
  page.on('request', (r) => {
    const m = /\/api\/(?:sim|auth)\/(.+)$/.exec(new URL(r.url()).pathname);
    if (m) paths.push(m[1]);
  });
  return paths;
}

/** The session as the server states it (GET /api/auth/replay-sessions/:id). */
function serverSession(page: Page, accountId: number): Promise<any> {
  return page.evaluate((id) => fetch(`/api/auth/replay-sessions/${id}`).then((r) => r.json()), accountId);
}

async function startSession(page: Page, date: string): Promise<number> {
  await page.waitForSelector('[data-testid=start-form] select[name=contract] option', { state: 'attached' });
  await page.fill('input[name=startDate]', date);
  await page.selectOption('select[name=timeframe]', '1m');
  await page.click('text=Start replay');
  await page.waitForSelector('[data-testid=desk]', WAIT);
  await page.waitForFunction("Number(document.querySelector('[data-testid=chart]')?.dataset.bars) > 0 && !document.querySelector('.chart-loading')", undefined, WAIT);
  await page.waitForSelector('[data-testid=link][data-state=up]', WAIT);
  return Number(await page.evaluate("localStorage.getItem('rd.desk.current')"));
}

/** The clock on screen (UTC, the default zone: `2025-03-04 10:00:00`) as ISO, or null. */
async function clockShown(page: Page): Promise<string | null> {
  const t = ((await page.textContent('[data-testid=sim-time]')) ?? '').trim();
  return /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/.test(t) ? `${t.replace(' ', 'T')}Z` : null;
}
const notes = (page: Page) => page.$$eval('[data-testid=bar-note], .desk-bar .error', (els: any[]) => els.map((e) => e.textContent.trim()));
const ms = (iso: string) => Date.parse(iso);

/** Waits until the clock on screen is the server's, and answers the server's session. */
async function inStep(page: Page, accountId: number): Promise<any> {
  let server = await serverSession(page, accountId);
  const until = Date.now() + WAIT.timeout;
  while (Date.now() < until) {
    const shown = await clockShown(page);
    if (shown && ms(shown) === ms(server.currentTime)) return server;
    await page.waitForTimeout(250);
    server = await serverSession(page, accountId);
  }
  return server;
}

describe.skipIf(noBrowser)('console: the desk never out of step with the server', () => {
  const stage = browserStage();

  it('25 jumps in 25 s, as a trader skips through a day: the clock and the chart are the server’s, and History is never read', async () => {
    const opened = await deskPage(stage);
    const { page } = opened;
    const accountId = await startSession(page, '2025-03-04');
    const paths = recordPaths(page);
    // Each click jumps to the box's time, an hour after the clock the page shows; not waiting for the answer.
    for (let i = 0; i < 25; i++) {
      await page.click('[data-testid=jump]');
      await page.waitForTimeout(1000);
    }
    const server = await inStep(page, accountId);
    expect(await clockShown(page)).not.toBeNull();
    expect(ms((await clockShown(page))!)).toBe(ms(server.currentTime));
    // Far from where it began: the jumps moved the session (hours, not the first few).
    expect(ms(server.currentTime) - ms('2025-03-04T00:00:00Z')).toBeGreaterThan(10 * 3_600_000);
    // The chart's last bar is the last one the server played, and the progress is the server's.
    await page.waitForFunction(`document.querySelector('[data-testid=progress]').textContent.trim().startsWith('${server.currentIndex.toLocaleString('en-US')} /')`, undefined, WAIT);
    const lastTime = await page.getAttribute('[data-testid=chart]', 'data-last-time');
    expect(ms(lastTime!)).toBeLessThan(ms(server.currentTime));
    expect(paths.filter((p) => p.startsWith('History/'))).toEqual([]);
    expect((await notes(page)).filter((n) => /Too many|behind/i.test(n))).toEqual([]);
    await screenshot(page, 'desk-25-jumps');
    await closeClean(opened);
  }, 180_000);

  it('a backward jump says what happened, where it can be read; the next move clears it', async () => {
    const opened = await deskPage(stage);
    const { page } = opened;
    const accountId = await startSession(page, '2025-03-05');
    await jumpUntilClock(page, '2025-03-05 10:00', '2025-03-05 10:00:00');
    expect(await jumpNote(page, '2025-03-05 08:00')).toBe(
      "Not moved: 2025-03-05 08:00 UTC is not after the session's clock, 2025-03-05 10:00 UTC. Replay only moves forward; jump to a later time.",
    );
    // Readable: inside the viewport, not under another element.
    const box = (await page.locator('[data-testid=bar-note]').boundingBox())!;
    const hit = await page.evaluate(`document.elementFromPoint(${box.x + 5}, ${box.y + box.height / 2})?.closest('[data-testid=bar-note]') != null`);
    expect(hit).toBe(true);
    await screenshot(page, 'desk-backward-jump');
    await page.click('[data-testid=step]');
    await page.waitForSelector('[data-testid=bar-note]', { state: 'detached', ...WAIT });
    const server = await inStep(page, accountId);
    expect(ms((await clockShown(page))!)).toBe(ms(server.currentTime));
    await closeClean(opened);
  }, 120_000);

  it('a long jump draws the latest bars only and keeps every bar: scrolled back, the chart draws older ones down to the history’s first', async () => {
    const opened = await deskPage(stage);
    const { page } = opened;
    await startSession(page, '2025-02-25');
    const history = Number(await page.getAttribute('[data-testid=chart]', 'data-bars'));
    await page.fill('input[name=jumpTo]', '2025-03-12 00:00');
    await page.click('[data-testid=jump]');
    await page.waitForFunction("document.querySelector('[data-testid=chart]').dataset.lastTime === '2025-03-11T23:59:00.000Z'", undefined, WAIT);
    const bars = Number(await page.getAttribute('[data-testid=chart]', 'data-bars'));
    const drawnFrom = async () => Number(await page.getAttribute('[data-testid=chart]', 'data-drawn-from'));
    expect(bars).toBeGreaterThan(history + 10_000);
    expect(await drawnFrom()).toBeGreaterThan(0);
    // Scrolled back with the wheel (horizontal), as far as the bars go.
    const box = (await page.locator('[data-testid=chart]').boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    for (let i = 0; i < 400 && (await drawnFrom()) > 0; i++) {
      await page.mouse.wheel(-4000, 0);
      await page.waitForTimeout(50);
    }
    expect(await drawnFrom()).toBe(0);
    expect(Number(await page.getAttribute('[data-testid=chart]', 'data-bars'))).toBe(bars);
    await closeClean(opened);
  }, 180_000);

  it('a refused read of the bars is shown in the replay bar, the clock stays the server’s, and the next move catches up and clears it', async () => {
    const { page, ...opened } = await deskPage(stage);
    const accountId = await startSession(page, '2025-03-06');
    // The console's bars read refused, as a server over its rate would, until `refusing` ends.
    let refusing = true;
    await page.route('**/api/auth/replay-sessions/*/bars', (route) => {
      if (!refusing) return route.continue();
      return route.fulfill({ status: 429, headers: { 'retry-after': '7', 'content-type': 'application/json' }, body: '{"success":false,"errorCode":0,"errorMessage":"Too many requests"}' });
    });
    expect(await jumpNote(page, '2025-03-06 02:00')).toBe('The chart is behind the session: Too many requests (retry in 7 s). It catches up with the next move.');
    // The clock is the server's all the same (the market hub's event says it).
    await page.waitForFunction("document.querySelector('[data-testid=sim-time]').textContent.trim() === '2025-03-06 02:00:00'", undefined, WAIT);
    expect(await page.isVisible('[data-testid=bar-note]')).toBe(true);
    refusing = false;
    await page.click('[data-testid=step]');
    await page.waitForSelector('[data-testid=bar-note]', { state: 'detached', ...WAIT });
    const server = await inStep(page, accountId);
    expect(server.currentTime).toBe('2025-03-06T02:01:00Z');
    await page.waitForFunction("document.querySelector('[data-testid=chart]').dataset.lastTime === '2025-03-06T02:00:00.000Z'", undefined, WAIT);
    // The refusals the route made are the only errors.
    await closeClean(opened, /status of 429 .*\/replay-sessions\/\d+\/bars/);
  }, 120_000);
});
