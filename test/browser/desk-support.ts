// What the desk's browser tests of issue 30 share: a signed-in page on the desk, a clean close, and
// a jump typed into the jump box with the clock or the replay bar's note it leads to.

import { expect } from 'bun:test';
import type { BrowserContext, Page } from 'playwright-core';
import { loginThroughForm, newPage, type Stage } from './support.ts';

export const WAIT = { timeout: 60_000 };

/** A signed-in page on the desk's start form. */
export async function deskPage(stage: Stage) {
  const opened = await newPage(stage.browser);
  await loginThroughForm(opened.page, stage.server);
  await opened.page.goto(`${stage.server.base}/#/desk`);
  return opened;
}

/** No page error (a 401 of the login is expected, and what `expected` matches), then the context closed. */
export async function closeClean({ errors, context }: { errors: string[]; context: BrowserContext }, expected: RegExp = /401/) {
  expect(errors.filter((e) => !e.includes('401') && !expected.test(e))).toEqual([]);
  await context.close();
}

/**
 * Jumps to `box` (the jump box's `YYYY-MM-DD HH:MM`) and waits for the clock to read `clock`. Types
 * only once the desk holds the session's clock and its default target (an hour after it), so what is
 * typed is never replaced by a late first load; a timeout says what the desk showed.
 */
export async function jumpUntilClock(page: Page, box: string, clock: string): Promise<void> {
  await page.waitForFunction("document.querySelector('[data-testid=sim-time]')?.textContent.trim() && document.querySelector('input[name=jumpTo]')?.value", undefined, WAIT);
  await page.fill('input[name=jumpTo]', box);
  await page.click('[data-testid=jump]');
  try {
    await page.waitForFunction(`document.querySelector('[data-testid=sim-time]').textContent.trim() === '${clock}'`, undefined, WAIT);
  } catch (e) {
    const shown = await page.evaluate(`({
      clock: document.querySelector('[data-testid=sim-time]')?.textContent.trim(),
      box: document.querySelector('input[name=jumpTo]')?.value,
      alerts: [...document.querySelectorAll('[role=alert], [data-testid=bar-note]')].map((n) => n.textContent.trim()),
    })`);
    throw new Error(`the clock never read ${clock} after a jump to ${box}: the desk showed ${JSON.stringify(shown)} (${String(e)})`);
  }
}

/** Jumps to `box` and answers the replay bar's note that follows. */
export async function jumpNote(page: Page, box: string): Promise<string> {
  await page.fill('input[name=jumpTo]', box);
  await page.click('[data-testid=jump]');
  await page.waitForSelector('[data-testid=bar-note]', WAIT);
  return ((await page.textContent('[data-testid=bar-note]')) ?? '').trim();
}
