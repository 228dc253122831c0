// Position/searchOpen and Trade/search under the live profile (docs/gateway-profile.md; present.ts
// presentLivePosition, present-gateway.ts presentLiveTrade): a position has exactly the gateway's
// seven keys, its `id` is the fill that opened it and `creationTimestamp` that fill's time, both
// stable while it is open, a restart of the server included; trades carry their fill's id (stable
// across calls and windows) and the P&L of the contracts a fill closed (null on an opening fill), as
// the user hub's trade and position events for the same fills. The wall clock sits in a later quarter (NQZ6), so a
// row naming the contract by the wall clock instead of the replayed date (NQH5) would show.
import { describe, expect, it } from 'bun:test';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeApp } from '../../support/app.ts';
import { LIVE, userEvents } from '../../support/live.ts';
import { at, type BarSpec, type ReplayTestApp, placeOk, positions, replayApp, type Session, startSession, step, trades } from '../../support/replay.ts';

const WALL_MS = Date.UTC(2026, 10, 28, 9, 0, 0);
const BARS: BarSpec[] = [[19995, 20005, 19990, 20000], 20004, 20006, 20002, 20001, 20001];
const NQH5 = 'CON.F.US.ENQ.H25';

/**
 * Buys 1 at 20,000 (14:31), 1 at 20,004 (14:32), sells 1 at 20,006 (14:33: closes the 20,000 lot,
 * +6 points = $120), then sells 3 at 20,002 (14:34: closes the 20,004 lot, −2 points = −$40, and
 * opens a short of 2 — a flip). Fills 1 to 4.
 */
async function script(t: ReplayTestApp, x: Session, after: (fill: number) => Promise<void> = async () => {}) {
  await step(t, x);
  await placeOk(t, x, { type: 2, side: 0 });
  await after(1);
  await step(t, x);
  await placeOk(t, x, { type: 2, side: 0 });
  await after(2);
  await step(t, x);
  await placeOk(t, x, { type: 2, side: 1 });
  await after(3);
  await step(t, x);
  await placeOk(t, x, { type: 2, side: 1, size: 3 });
  await after(4);
}

const position = (x: Session, over: Record<string, unknown>) => ({
  id: 1, accountId: x.accountId, contractId: NQH5, creationTimestamp: at(1), type: 1, size: 1, averagePrice: 20000, ...over,
});

describe('Position/searchOpen under live', () => {
  it('exactly the gateway\'s keys; id and creationTimestamp are the opening fill\'s while it grows and shrinks; a flip opens a new one', async () => {
    const t = await replayApp(BARS, { nowMs: WALL_MS, config: LIVE });
    const x = await startSession(t);
    const events = await userEvents(t, x);
    const seen: any[] = [];
    await script(t, x, async () => {
      seen.push(await positions(t, x));
    });
    expect(seen).toEqual([
      [position(x, {})],
      [position(x, { size: 2, averagePrice: 20002 })],
      [position(x, { size: 1, averagePrice: 20004 })],
      [position(x, { id: 4, creationTimestamp: at(4), type: 2, size: 2, averagePrice: 20002 })],
    ]);
    expect(Object.keys(seen[0][0]).sort()).toEqual(['accountId', 'averagePrice', 'contractId', 'creationTimestamp', 'id', 'size', 'type']);
    // The user hub's position events are the same rows, as each fill made them.
    expect(events.positions).toEqual(seen.map((rows) => rows[0]));
    // Later bars change nothing of it.
    await step(t, x, 2);
    expect(await positions(t, x)).toEqual(seen[3]);
  });

  it('keeps its id and opening time across a restart of the server on the same database', async () => {
    const dbPath = join(mkdtempSync(join(tmpdir(), 'rd-live-pos-')), 'replaydesk.db');
    const a = await replayApp(BARS, { nowMs: WALL_MS, config: LIVE, dbPath });
    const x = await startSession(a);
    await script(a, x);
    await step(a, x);
    const before = await positions(a, x);
    expect(before).toEqual([position(x, { id: 4, creationTimestamp: at(4), type: 2, size: 2, averagePrice: 20002 })]);
    await a.s.shutdown();
    a.s.db.close();

    const b = await makeApp({ dbPath, nowMs: WALL_MS + 60_000, config: { ...LIVE, dataStartDate: '2024-01-08', dataEndDate: '2024-01-09' } });
    const token = await b.login();
    const again = Object.assign(b, { token });
    expect(await positions(again, x)).toEqual(before);
    // It goes on after the restart: one more step, then a partial close keeps it.
    await step(again, x);
    await placeOk(again, x, { type: 2, side: 0 });
    expect(await positions(again, x)).toEqual([{ ...before[0], size: 1 }]);
    b.s.db.close();
  });
});

describe('Trade/search under live', () => {
  it('ids are the fills\' ids, stable across calls and windows; P&L on closing fills (the flip\'s too), null on opening ones; equal to the user hub\'s trade events', async () => {
    const t = await replayApp(BARS, { nowMs: WALL_MS, config: LIVE });
    const x = await startSession(t);
    const events = await userEvents(t, x);
    await script(t, x);
    const fill = (id: number, over: Record<string, unknown>) => ({
      id, accountId: x.accountId, contractId: NQH5, creationTimestamp: at(id), price: 20000, profitAndLoss: null, fees: 1.4,
      side: 0, size: 1, voided: false, orderId: id, ...over,
    });
    const all = [
      fill(4, { price: 20002, profitAndLoss: -40, side: 1, size: 3, fees: 4.2 }),
      fill(3, { price: 20006, profitAndLoss: 120, side: 1 }),
      fill(2, { price: 20004 }),
      fill(1, {}),
    ];
    expect(await trades(t, x)).toEqual(all);
    expect(await trades(t, x)).toEqual(all);
    // A window that leaves the first two out keeps the ids (the spec numbers rows by their index).
    expect(await trades(t, x, { startTimestamp: at(3), endTimestamp: at(4) })).toEqual(all.slice(0, 2));
    expect(await trades(t, x, { startTimestamp: at(1), endTimestamp: at(1) })).toEqual(all.slice(3));
    // The hub sent each fill as it happened, in order: the same objects.
    expect(events.trades).toEqual([...all].reverse());
  });
});
