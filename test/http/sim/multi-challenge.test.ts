// A challenge traded over several instruments: the prop-firm rules are the account's (combined
// equity, one position limit, every contract flattened by a violation), and the ladder walk over
// several instruments fills as the flat reference walk does.
import { describe, expect, it } from 'bun:test';
import { allocBars } from '../../../src/data/bar-columns.ts';
import { challengeApp, type ChallengeApp, createChallenge } from '../../support/challenge.ts';
import { dayOf, secondsOf } from '../../support/bars.ts';

const NQ_ID = 'CON.F.US.ENQ.H25';
const ES_ID = 'CON.F.US.EP.H25';

async function ok(t: ChallengeApp, path: string, body: Record<string, unknown>) {
  const r = await t.post(path, body, t.token);
  if (!r.body.success) throw new Error(`${path}: ${JSON.stringify(r.body)}`);
  return r.body;
}

async function startPair(t: ChallengeApp, challengeId: number, startDate = '2025-03-04') {
  return ok(t, 'Replay/start', { instrumentSymbols: ['NQ', 'ES'], startDate, timeframe: '1m', accountId: challengeId });
}

describe('the challenge\'s rules over several contracts', () => {
  it('a daily loss neither position reaches alone is a violation of their sum, and flattens both', async () => {
    // NQ 20,000 → 19,975 (−25 points × $20 = −$500 a contract); ES 5,000 → 4,990 (−10 × $50 = −$500).
    const t = await challengeApp([['2025-03-04T15:00:00Z', 20_000], ['2025-03-04T15:01:00Z', 19_975]], {
      extra: { ES: [['2025-03-04T15:00:00Z', 5_000], ['2025-03-04T15:01:00Z', 4_990]] },
    });
    const c = await createChallenge(t);
    const { accountId } = await startPair(t, c);
    const first = await ok(t, 'Replay/step', { accountId, steps: 1 });
    expect(first.barsByContract[ES_ID]).toEqual([{ t: '2025-03-04T15:00:00Z', o: 5000, h: 5000, l: 5000, c: 5000, v: 1 }]);
    await ok(t, 'Order/place', { accountId, contractId: NQ_ID, type: 2, side: 0, size: 1 });
    await ok(t, 'Order/place', { accountId, contractId: ES_ID, type: 2, side: 0, size: 1 });
    const r = await ok(t, 'Replay/step', { accountId, steps: 1 });
    // At 15:01 NQ's bar comes first (the listed order): equity $49,497.20, above the day's floor of
    // $49,000; then ES's: $48,997.20. ES is sold where the equity touches the floor (4,990: the
    // tick at or below $49,000), NQ at its last price.
    expect(r.violations).toEqual([{
      rule: 'dailyLossLimit',
      message: 'Daily net P&L -$1,002.80 reached the daily loss limit -$1,000.00',
      value: -1002.8, limit: -1000, time: '2025-03-04T15:01:00Z', barIndex: 1, phase: 'evaluation',
    }]);
    expect(r.propFirm).toMatchObject({ status: 'violated' });
    expect(r.account).toEqual({ balance: 48_994.4, equity: 48_994.4, unrealizedPnl: 0, marginUsed: 0, positions: 0, pendingOrders: 0 });
    const trades = await ok(t, 'Trade/search', { accountId });
    expect(trades.trades.map((f: Record<string, unknown>) => [f.contractId, f.side, f.price])).toEqual([
      [NQ_ID, 1, 19_975], [ES_ID, 1, 4_990], [ES_ID, 0, 5_000], [NQ_ID, 0, 20_000],
    ]);
    const after = await t.post('Order/place', { accountId, contractId: NQ_ID, type: 2, side: 0, size: 1 }, t.token);
    expect(after.body.success).toBe(false);
  });

  it('counts the plan\'s position limit over every contract, micros at 1/10', async () => {
    const t = await challengeApp([['2025-03-04T15:00:00Z', 20_000], ['2025-03-04T15:01:00Z', 20_000]], {
      extra: { MES: [['2025-03-04T15:00:00Z', 5_000], ['2025-03-04T15:01:00Z', 5_000]] },
    });
    const c = await createChallenge(t); // 50K: 5 minis
    const { accountId } = await ok(t, 'Replay/start', { instrumentSymbols: ['NQ', 'MES'], startDate: '2025-03-04', timeframe: '1m', accountId: c });
    await ok(t, 'Replay/step', { accountId, steps: 1 });
    await ok(t, 'Order/place', { accountId, contractId: NQ_ID, type: 2, side: 0, size: 4 });
    const over = await t.post('Order/place', { accountId, contractId: 'CON.F.US.MES.H25', type: 2, side: 1, size: 11 }, t.token);
    expect([over.body.success, over.body.errorMessage]).toEqual([false, "Maximum position size exceeded: 11 MES contracts would be open, limit 10 (the account's other contracts hold the rest of its 50)"]);
    await ok(t, 'Order/place', { accountId, contractId: 'CON.F.US.MES.H25', type: 2, side: 1, size: 10 });
  });
});

/** Two hours of 1 s bars: a slow wave with a faster ripple, per instrument (deterministic). */
function waveBars(startIso: string, n: number, baseTicks: number, amp: number, phase: number) {
  const b = allocBars(n);
  const t0 = secondsOf(startIso);
  for (let i = 0; i < n; i++) {
    const mid = Math.round(baseTicks + amp * Math.sin(i / 900 + phase) + (amp / 8) * Math.sin(i / 37));
    b.time[i] = t0 + i;
    b.open[i] = mid;
    b.high[i] = mid + 2;
    b.low[i] = mid - 2;
    b.close[i] = mid + 1;
    b.volume[i] = 1;
  }
  b.length = n;
  return b;
}

async function runScenario(walk: 'ladder' | 'flat') {
  const t = await challengeApp([]);
  t.s.chunks.put('NQ', dayOf('2025-03-04T14:00:00Z'), 'import', waveBars('2025-03-04T14:00:00Z', 7200, 80_000, 120, 0));
  t.s.chunks.put('ES', dayOf('2025-03-04T14:00:00Z'), 'import', waveBars('2025-03-04T14:00:00Z', 7200, 20_000, 40, 1.3));
  const c = await createChallenge(t);
  const { accountId } = await startPair(t, c);
  const held = t.s.replay.held(accountId);
  if (!held) throw new Error('session not held');
  held.walk = walk;
  await ok(t, 'Replay/step', { accountId, steps: 1 });
  // Resting orders on both contracts, bracketed, then jumps across the hours.
  await ok(t, 'Order/place', { accountId, contractId: NQ_ID, type: 1, side: 0, size: 2, limitPrice: 19_980, stopLossBracket: { ticks: 60, type: 4 }, takeProfitBracket: { ticks: 90, type: 1 } });
  await ok(t, 'Order/place', { accountId, contractId: ES_ID, type: 4, side: 1, size: 3, stopPrice: 4_995 });
  await ok(t, 'Order/place', { accountId, contractId: ES_ID, type: 1, side: 0, size: 3, limitPrice: 4_985 });
  await ok(t, 'Replay/jumpTo', { accountId, targetTime: '2025-03-04T14:40:00Z' });
  await ok(t, 'Order/place', { accountId, contractId: NQ_ID, type: 4, side: 1, size: 1, stopPrice: 19_990 });
  const last = await ok(t, 'Replay/jumpTo', { accountId, targetTime: '2025-03-04T16:00:00Z' });
  const trades = await ok(t, 'Trade/search', { accountId });
  return { account: last.account, propFirm: last.propFirm, trades: trades.trades };
}

describe('the walk over several instruments', () => {
  it('fills, balances and rule state equal the flat reference walk\'s', async () => {
    const ladder = await runScenario('ladder');
    const flat = await runScenario('flat');
    expect(ladder.trades.length).toBeGreaterThan(4);
    expect(new Set(ladder.trades.map((f: { contractId: string }) => f.contractId))).toEqual(new Set([NQ_ID, ES_ID]));
    expect(ladder).toEqual(flat);
  });
});
