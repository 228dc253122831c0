// Order/search and Trade/search windows under the live profile (src/http/sim/replay-window.ts): a
// bot's wall-clock window ("the last 24 hours") is read on the clock of the account searched, so it
// finds the session's orders and fills, placed in 2025 simulated time; under the spec the same
// request finds nothing, as before.
import { describe, expect, it } from 'bun:test';
import { placeOk, replayApp, startSession, step, WALL_MS } from '../../support/replay.ts';

const BAR0 = [19995, 20005, 19990, 20000] as const;
const HOUR_MS = 3_600_000;
const iso = (ms: number) => new Date(ms).toISOString();

/**
 * Three orders and three fills (test/http/sim/trade.test.ts's): a market buy of 2 at 14:31, a sell
 * limit placed at 14:31 and filled at 14:32, a market sell at 14:34; the session's time is 14:34.
 */
async function threeFills(apiProfile: 'spec' | 'live') {
  const t = await replayApp([BAR0, 20000, [20000, 20012, 20000, 20008], 20004], { config: { apiProfile } });
  const x = await startSession(t);
  await step(t, x, 1);
  await placeOk(t, x, { type: 2, side: 0, size: 2 });
  await placeOk(t, x, { type: 1, side: 1, limitPrice: 20010 });
  await step(t, x, 3);
  await placeOk(t, x, { type: 2, side: 1 });
  return Object.assign(t, x);
}

type App = Awaited<ReturnType<typeof threeFills>>;

async function search(t: App, path: 'Order/search' | 'Trade/search', startMs: number, endMs: number, accountId = t.accountId): Promise<number[]> {
  const r = await t.post(path, { accountId, startTimestamp: iso(startMs), endTimestamp: iso(endMs) }, t.token);
  expect(r.body).toMatchObject({ success: true, errorCode: 0, errorMessage: null });
  return path === 'Order/search' ? r.body.orders.map((o: any) => o.id) : r.body.trades.map((f: any) => f.orderId);
}

describe('wall-clock windows of Order/search and Trade/search', () => {
  it('"the last 24 hours" returns the session\'s orders and fills under live, nothing under the spec', async () => {
    const live = await threeFills('live');
    expect(await search(live, 'Order/search', WALL_MS - 24 * HOUR_MS, WALL_MS)).toEqual([3, 2, 1]);
    expect(await search(live, 'Trade/search', WALL_MS - 24 * HOUR_MS, WALL_MS)).toEqual([3, 2, 1]);
    const spec = await threeFills('spec');
    expect(await search(spec, 'Order/search', WALL_MS - 24 * HOUR_MS, WALL_MS)).toEqual([]);
    expect(await search(spec, 'Trade/search', WALL_MS - 24 * HOUR_MS, WALL_MS)).toEqual([]);
  });

  it('the window moves back exactly: "the last 2 minutes" is 14:32 to 14:34, the session\'s time', async () => {
    const t = await threeFills('live');
    expect(await search(t, 'Trade/search', WALL_MS - 2 * 60_000, WALL_MS)).toEqual([3, 2]);
    expect(await search(t, 'Order/search', WALL_MS - 2 * 60_000, WALL_MS)).toEqual([3]);
    // A window in simulated time is read as sent.
    expect(await search(t, 'Trade/search', Date.parse('2025-03-03T14:31:00Z'), Date.parse('2025-03-03T14:32:00Z'))).toEqual([2, 1]);
    // A bound that is no time is refused as under the spec.
    const r = await t.post('Order/search', { accountId: t.accountId, startTimestamp: 'yesterday' }, t.token);
    expect(r.body).toEqual({ success: false, errorCode: 2, errorMessage: 'startTimestamp and endTimestamp must be ISO 8601 times' });
  });

  it('takes the clock of the account searched, not of the session acted on last, and an ended session\'s last time', async () => {
    const t = await threeFills('live');
    const other = await t.post('Replay/start', { instrumentSymbol: 'NQ', startDate: '2024-01-08', timeframe: '1m' }, t.token);
    expect(other.body.success).toBe(true);
    t.clock.advance(1000);
    expect((await t.post('Replay/step', { accountId: other.body.accountId, steps: 1 }, t.token)).body.success).toBe(true);
    expect(await search(t, 'Trade/search', WALL_MS - 2 * 60_000, WALL_MS)).toEqual([3, 2]);
    expect((await t.post('Replay/end', { accountId: t.accountId }, t.token)).body.success).toBe(true);
    // Ending flattened nothing (the position is flat), so the fills are the same three.
    expect(await search(t, 'Trade/search', WALL_MS - 2 * 60_000, WALL_MS)).toEqual([3, 2]);
    expect(await search(t, 'Order/search', WALL_MS - 24 * HOUR_MS, WALL_MS)).toEqual([3, 2, 1]);
  });
});
