// Replay/branch where the market paused, and its budget (docs/decisions.md "Branching"): a time in a
// gap of the data (a halt, a weekend) branches at the close of the session's last bar before it, so
// Step back over a gap undoes the decision sent at that close; and a branch is a start for the
// budget of starts (20 a minute, then HTTP 429), as it makes an account and a session as a start does.
import { describe, expect, it } from 'bun:test';
import { limits } from '../../../src/config.ts';
import type { Row } from '../../support/challenge.ts';
import { multiApp, ok } from '../multi/multi.ts';

const DAY = '2025-03-04';
const at = (hhmm: string) => `${DAY}T${hhmm}:00Z`;
// NQ bars at 15:00–15:09, nothing from 15:10 to 15:19 (a pause in the data), then 15:20–15:22.
const MINUTES = ['00', '01', '02', '03', '04', '05', '06', '07', '08', '09'].map((m) => `15:${m}`).concat(['15:20', '15:21', '15:22']);
const DATA: Record<string, Row[]> = { NQ: MINUTES.map((m) => [at(m), 20_000] as Row) };

describe('Replay/branch over a gap in the data', () => {
  it('a time in the gap branches at the last bar\'s close, before the orders sent there; the close after the gap keeps them', async () => {
    const t = await multiApp(DATA);
    const started = await ok(t, 'Replay/start', { instrumentSymbol: 'NQ', startDate: DAY, timeframe: '1m' });
    const { accountId } = started;
    const contractId = started.instrument.contractId;
    // Ten bars: the clock at 15:10, the last bar's close; the limit is sent there.
    expect((await ok(t, 'Replay/step', { accountId, steps: 10 })).bars.at(-1).t).toBe(at('15:09'));
    const placed = await ok(t, 'Order/place', { accountId, contractId, type: 1, side: 0, size: 1, limitPrice: 19_000 });
    // The next bar is 15:20's: the clock at 15:21.
    expect((await ok(t, 'Replay/step', { accountId })).bars.map((b: any) => b.t)).toEqual([at('15:20')]);

    // Step back from 15:21 asks for 15:20, in the gap: the branch is at 15:10, before the limit.
    for (const time of [at('15:20'), at('15:15')]) {
      const b = await ok(t, 'Replay/branch', { accountId, time });
      expect(b.branchTime).toBe(at('15:10'));
      expect((await ok(t, 'Order/searchOpen', { accountId: b.accountId })).orders).toEqual([]);
      await ok(t, 'Replay/end', { accountId: b.accountId });
    }
    const here = await ok(t, 'Replay/branch', { accountId, time: at('15:21') });
    expect(here.branchTime).toBe(at('15:21'));
    expect((await ok(t, 'Order/searchOpen', { accountId: here.accountId })).orders.map((o: any) => o.id)).toEqual([placed.orderId]);
  });

  it('counts a branch as a start: within a minute, the start and branches past 20 are refused with HTTP 429, changing nothing', async () => {
    const t = await multiApp(DATA);
    const { accountId } = await ok(t, 'Replay/start', { instrumentSymbol: 'NQ', startDate: DAY, timeframe: '1m' });
    await ok(t, 'Replay/step', { accountId, steps: 5 });
    for (let i = 1; i < limits.replayStartsPerWindowMax; i++) {
      const b = await ok(t, 'Replay/branch', { accountId, time: at('15:03') });
      await ok(t, 'Replay/end', { accountId: b.accountId });
    }
    const before = (await t.s.sql.all('SELECT account_id FROM replay_sessions')).length;
    const r = await t.post('Replay/branch', { accountId, time: at('15:03') }, t.token);
    expect(r.status).toBe(429);
    expect(r.body).toEqual({ success: false, errorCode: 429, errorMessage: 'Too many requests' });
    expect((await t.s.sql.all('SELECT account_id FROM replay_sessions')).length).toBe(before);
  });
});
