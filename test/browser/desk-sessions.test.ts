// Session management, keyboard and focus on the desk (issue 30, defects 5 and 6): the live list says
// which session is which, the start form speaks a trader's words, a jump into the daily halt says
// what happened; Space and B work after the speed slider and the ticket were touched, a ticket
// refusal speaks the ticket's labels and goes with the next order, fills of one bar are one marker,
// and the badge says Ended once the session is.
import { describe, expect, it } from 'bun:test';
import type { Page } from 'playwright-core';
import { closeClean, deskPage, jumpNote, jumpUntilClock, WAIT } from './desk-support.ts';
import { browserStage, noBrowser, screenshot } from './support.ts';

const text = async (page: Page, sel: string) => ((await page.textContent(sel)) ?? '').trim();
const rowCount = (page: Page, testid: string) => page.$$eval(`[data-testid=${testid}] tbody tr`, (trs: any[]) => trs.length);

async function startOn(page: Page, date: string, endDate = ''): Promise<void> {
  await page.waitForSelector('[data-testid=start-form] select[name=contract] option', { state: 'attached' });
  await page.fill('input[name=startDate]', date);
  await page.fill('input[name=endDate]', endDate);
  await page.selectOption('select[name=timeframe]', '1m');
  await page.click('text=Start replay');
}

/** The desk is up: both hubs connected. */
const liveLink = (page: Page) => page.waitForSelector('[data-testid=link][data-state=up]', WAIT);

describe.skipIf(noBrowser)('console: sessions, keys and focus on the desk', () => {
  const stage = browserStage();

  it('the start form and the live list speak a trader’s words; a jump into the daily halt says so', async () => {
    const { page, ...opened } = await deskPage(stage);
    await page.waitForSelector('[data-testid=data-last]');
    expect(await page.textContent('.live-list')).toContain('start an evaluation under Challenges & payouts');
    await startOn(page, '2025-03-04', '2025-03-04');
    await page.waitForSelector('[data-testid=start-form] .error');
    expect(await text(page, '[data-testid=start-form] .error')).toBe(
      'End date: pick a day after 2025-03-04. A session replays its start date through its end date, at least two days; leave it empty to replay through the last day held.',
    );
    await startOn(page, '2025-03-04', '2025-03-05');
    await liveLink(page);
    // 21:59 UTC is 15:59 CT; the halt is 16:00–17:00 CT (22:00–23:00 UTC): no bar in it.
    await jumpUntilClock(page, '2025-03-04 22:00', '2025-03-04 22:00:00');
    expect(await jumpNote(page, '2025-03-04 22:30')).toBe('No bars from 2025-03-04 22:00 UTC to 2025-03-04 22:30 UTC: the market was closed. The clock moved to 2025-03-04 22:30 UTC.');
    expect(await text(page, '[data-testid=sim-time]')).toBe('2025-03-04 22:30:00');
    await page.click('[data-testid=leave]');
    await page.waitForSelector('[data-testid=live-info]', WAIT);
    await screenshot(page, 'desk-live-list');
    expect(await text(page, '[data-testid=live-info]')).toMatch(/^2025-03-04 → 2025-03-05 · 1m · at 2025-03-04 22:30 UTC · [\d,]+ \/ [\d,]+ bars$/);
    await closeClean(opened);
  }, 120_000);

  it('Space after the speed slider, B after typing in the ticket; a refusal in the ticket’s words goes with the next order; one marker a bar; Ended once ended', async () => {
    const { page, ...opened } = await deskPage(stage);
    await startOn(page, '2025-03-06');
    await liveLink(page);
    await page.click('[data-testid=step]');
    await page.waitForFunction("document.querySelector('[data-testid=progress]').textContent.trim().startsWith('1 /')", undefined, WAIT);
    // The speed slider touched, then Space: plays; Space again: pauses.
    await page.focus('input[name=speed]');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press(' ');
    await page.waitForSelector('[data-testid=play]:has-text("Pause")', WAIT);
    await page.keyboard.press(' ');
    await page.waitForSelector('[data-testid=play]:has-text("Play")', WAIT);
    // A limit without its price: refused in the ticket's words.
    await page.click('.seg button[data-type=Limit]');
    await page.fill('input[name=limitPrice]', '');
    await page.click('[data-testid=buy]');
    await page.waitForSelector('.ticket .error, [data-testid=ticket] .error', WAIT);
    expect(await page.textContent('.desk-side')).toContain('Limit price is required for this order type');
    // Back to market, a size typed, then B twice: two buys, the refusal gone, one marker for the bar.
    await page.click('.seg button[data-type=Market]');
    await page.fill('input[name=size]', '2');
    await page.keyboard.press('b');
    await page.waitForFunction("document.querySelectorAll('[data-testid=fills] tbody tr').length === 1", undefined, WAIT);
    expect(await page.textContent('.desk-side')).not.toContain('Limit price is required');
    await page.keyboard.press('b');
    await page.waitForFunction("document.querySelectorAll('[data-testid=fills] tbody tr').length === 2", undefined, WAIT);
    await page.waitForFunction("document.querySelector('[data-testid=chart]').dataset.markers === '1'", undefined, WAIT);
    expect(await rowCount(page, 'fills')).toBe(2);
    await page.click('[data-testid=end]');
    await page.click('[data-testid=end-yes]');
    await page.waitForSelector('[data-testid=final-result]', WAIT);
    await page.waitForSelector('[data-testid=link][data-state=ended]', WAIT);
    expect(await text(page, '[data-testid=link]')).toBe('Ended');
    await closeClean(opened);
  }, 120_000);
});
