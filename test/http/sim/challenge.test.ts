import { describe, expect, it } from 'bun:test';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  accountEntry, type ChallengeApp, challengeApp, closeAll, createChallenge, dayRows, failure, market, otherUser,
  pause, propFirm, roundTrip, type Row, startOn, startReply,
} from '../../support/challenge.ts';
import { waitFor } from '../../support/app.ts';
import { account, type Session, step, trades } from '../../support/replay.ts';

// Every scenario trades NQ on a 50K challenge: start 50,000, target 3,000, maximum loss 2,000
// (trailing end-of-day floor, locked at 50,000), daily loss 1,000 (hard), 5 contracts, 2 trading
// days, best day under 50% of the profit. NQ is $20 a point per contract and $1.40 per side.
// Each scenario's comment works its money out by hand; the expected numbers follow from it.

const BUSY = 'This challenge account already has a live replay session; end it with Replay/end first';
const ACTIVE = propFirm();

const envelope = { success: true, errorCode: 0, errorMessage: null };

describe('Replay/start with a challenge account', () => {
  // 2025-03-04: entry 20,000, exit 20,010; 2025-03-05: entry 20,000, exit 20,020.
  const rows = [...dayRows('2025-03-04', 20_010), ...dayRows('2025-03-05', 20_020)];

  it('inherits the rules and the balance left by the previous session; propFirm in step, jump and pause', async () => {
    const t = await challengeApp(rows);
    const c = await createChallenge(t);
    const x = await startOn(t, c, '2025-03-04');
    expect(await pause(t, x)).toEqual({ account: account(50_000), propFirm: ACTIVE });
    await step(t, x);
    await market(t, x, 1); // 20,000, fee 1.40
    const exit = await step(t, x);
    expect(exit).toMatchObject({
      barsProcessed: 1,
      currentIndex: 2,
      totalBars: 4,
      account: account(49_998.6, { equity: 50_198.6, unrealizedPnl: 200, marginUsed: 1000, positions: 1 }),
      propFirm: propFirm({ tradingDaysCount: 1 }),
      violations: [],
    });
    await closeAll(t, x); // 20,010: +200 − 2 × 1.40
    // The challenge account mirrors the session while it lives.
    expect((await t.post('Account/search', {}, t.token)).body.accounts).toEqual([
      { id: c, name: `CHALLENGE-50K-${c}`, balance: 50_197.2, canTrade: true, isVisible: true, simulated: true },
      { id: x.accountId, name: `REPLAY-NQ-1m-${x.accountId}`, balance: 50_197.2, canTrade: true, isVisible: true, simulated: true },
    ]);
    expect((await t.post('Replay/end', { accountId: x.accountId }, t.token)).body.account.balance).toBe(50_197.2);
    expect(await accountEntry(t, c)).toMatchObject({ balance: 50_197.2, canTrade: true });
    expect(await accountEntry(t, x.accountId)).toMatchObject({ balance: 50_197.2, canTrade: false });

    const y = await startOn(t, c, '2025-03-05');
    expect(await pause(t, y)).toEqual({ account: account(50_197.2), propFirm: propFirm({ tradingDaysCount: 1 }) });
    const jump = await t.post('Replay/jumpTo', { accountId: y.accountId, targetTime: '2025-03-05T15:01:00Z' }, t.token);
    expect(jump.body).toEqual({
      barsProcessed: 1,
      currentIndex: 1,
      totalBars: 2,
      account: account(50_197.2),
      propFirm: propFirm({ tradingDaysCount: 1 }),
      filledOrders: [],
      violations: [],
      ...envelope,
    });
    // The challenge account's id trades in its live session too.
    const buy = await t.post('Order/place', { accountId: c, contractId: y.contractId, type: 2, side: 0, size: 2 }, t.token);
    expect(buy.body).toMatchObject({ success: true, orderId: 1 });
    const pos = await t.post('Position/searchOpen', { accountId: c }, t.token);
    expect(pos.body.positions).toMatchObject([{ accountId: c, contractId: y.contractId, type: 1, size: 2, averagePrice: 20_000 }]);
    const next = await step(t, y); // 20,020: 2 × 20 points open
    expect(next.account).toEqual(account(50_194.4, { equity: 50_994.4, unrealizedPnl: 800, marginUsed: 2000, positions: 1 }));
    expect(next.propFirm).toEqual(propFirm({ tradingDaysCount: 2 }));
    const close = await t.post('Position/closeContract', { accountId: c, contractId: y.contractId }, t.token);
    expect(close.body.success).toBe(true);
    expect(await accountEntry(t, c)).toMatchObject({ balance: 50_991.6, canTrade: true });
  });

  it('a non-challenge session answers propFirm null in step, jump and pause', async () => {
    const t = await challengeApp(rows);
    const x = await startOn(t, undefined, '2025-03-04');
    expect((await step(t, x)).propFirm).toBeNull();
    const jump = await t.post('Replay/jumpTo', { accountId: x.accountId, targetTime: '2025-03-05T00:00:00Z' }, t.token);
    expect(jump.body).toMatchObject({ success: true, propFirm: null, violations: [] });
    expect((await pause(t, x)).propFirm).toBeNull();
  });

  it('one live session per challenge account: a second answers 7 until the first ends', async () => {
    const t = await challengeApp(rows);
    const c = await createChallenge(t);
    const x = await startOn(t, c, '2025-03-04');
    expect((await startReply(t, c, '2025-03-05')).body).toEqual(failure(7, BUSY));
    // Other challenges and plain sessions are not affected.
    expect((await startReply(t, await createChallenge(t), '2025-03-04')).body.success).toBe(true);
    expect((await startReply(t, undefined, '2025-03-04')).body.success).toBe(true);
    await t.post('Replay/end', { accountId: x.accountId }, t.token);
    expect((await startReply(t, c, '2025-03-05')).body.success).toBe(true);
  });

  it('the simulated calendar only moves forward: a session starting before the last simulated time answers 7', async () => {
    const t = await challengeApp(rows);
    const c = await createChallenge(t);
    const x = await startOn(t, c, '2025-03-04');
    await step(t, x, 2); // up to 2025-03-04T15:02:00Z
    await t.post('Replay/end', { accountId: x.accountId }, t.token);
    const reason = `Challenge account ${c} has already traded up to 2025-03-04T15:02:00Z; a session on it must start after that time`;
    expect((await startReply(t, c, '2025-03-04')).body).toEqual(failure(7, reason));
    expect((await startReply(t, c, '2025-03-03')).body).toEqual(failure(7, reason));
    expect((await startReply(t, c, '2025-03-05')).body.success).toBe(true);
  });

  it.each([
    ['an unknown id', () => 999],
    ['a string id', () => '1'],
  ])('%s → 1 Account not found, no session', async (_n, id) => {
    const t = await challengeApp(rows);
    await createChallenge(t);
    const r = await t.post('Replay/start', { instrumentSymbol: 'NQ', startDate: '2025-03-04', timeframe: '1m', accountId: id() }, t.token);
    expect(r.body).toEqual(failure(1, 'Account not found'));
    expect(t.s.replay.liveCount(t.userId)).toBe(0);
  });

  it("another user's challenge or a plain replay account → 1 Account not found", async () => {
    const t = await challengeApp(rows);
    const other = await otherUser(t);
    const theirs = await createChallenge(t, 'evaluation', 'standard', other.userId);
    expect((await startReply(t, theirs, '2025-03-04')).body).toEqual(failure(1, 'Account not found'));
    const plain = await startOn(t, undefined, '2025-03-04');
    expect((await startReply(t, plain.accountId, '2025-03-04')).body).toEqual(failure(1, 'Account not found'));
    // The owner may.
    expect((await startReply(t, theirs, '2025-03-04', 'NQ', other.token)).body.success).toBe(true);
  });

  it('an ended challenge answers 7 with the reason', async () => {
    const t = await challengeApp(rows);
    const c = await createChallenge(t);
    await t.s.challenges.end(c);
    expect((await startReply(t, c, '2025-03-04')).body).toEqual(failure(7, `Challenge account ${c} is no longer active (ended)`));
    expect(await accountEntry(t, c)).toMatchObject({ balance: 50_000, canTrade: false });
  });
});

// ---- maximum loss limit ----

// Two losing days bring the balance within $1,000 of the 48,000 floor, so on the third day the
// maximum loss limit is reached before the daily loss limit (day start − 1,000 = 47,783.20).
//   2025-03-04: buy 3 at 20,000, close at 19,990: −600 − 8.40 → 49,391.60
//   2025-03-05: the same                             → 48,783.20
//   2025-03-06 15:00: buy 1 at 20,000 (−1.40)        → 48,781.80; equity ≤ 48,000 at or below
//     20,000 − 39.09 points: the touch price is 19,960.75 (tick 79,843), equity there 47,996.80.
// Bar indexes (1 m): 0–1 on 03-04, 2–3 on 03-05, 4 entry, 5 quiet, 6 deciding, 7 never played.
function mllRows(deciding: Row): Row[] {
  return [
    ...dayRows('2025-03-04', 19_990),
    ...dayRows('2025-03-05', 19_990),
    ['2025-03-06T15:00:00Z', 20_000],
    ['2025-03-06T15:01:00Z', 20_000, 20_005, 19_995, 20_000],
    deciding,
    ['2025-03-06T15:03:00Z', 19_955],
  ];
}

/** Plays the two losing days, then buys 1 and rests a buy limit at 19,000 on 2025-03-06. */
async function mllSetup(deciding: Row): Promise<{ t: ChallengeApp; c: number; x: Session }> {
  const t = await challengeApp(mllRows(deciding));
  const c = await createChallenge(t);
  const x = await startOn(t, c, '2025-03-04');
  await roundTrip(t, x, 3);
  await roundTrip(t, x, 3);
  await step(t, x);
  await market(t, x, 1); // order 5
  const limit = await t.post('Order/place', { accountId: x.accountId, contractId: x.contractId, type: 1, side: 0, size: 1, limitPrice: 19_000 }, t.token);
  expect(limit.body.orderId).toBe(6);
  expect(await pause(t, x)).toEqual({
    account: account(48_781.8, { marginUsed: 1000, positions: 1, pendingOrders: 1 }),
    propFirm: propFirm({ tradingDaysCount: 3 }),
  });
  return { t, c, x };
}

/** After a violation: the session is finalized and the challenge refuses every trading call. */
async function expectFinished(t: ChallengeApp, c: number, x: Session, balance: number, startDate: string) {
  expect((await t.post('Replay/step', { accountId: x.accountId }, t.token)).body).toEqual(
    failure(1, 'No active replay session for this account'),
  );
  for (const id of [x.accountId, c]) {
    const place = await t.post('Order/place', { accountId: id, contractId: x.contractId, type: 2, side: 0, size: 1 }, t.token);
    expect(place.body).toEqual(failure(4, 'Account violation'));
    const close = await t.post('Position/closeContract', { accountId: id, contractId: x.contractId }, t.token);
    expect(close.body).toEqual(failure(4, 'Account violation'));
    const partial = await t.post('Position/partialCloseContract', { accountId: id, contractId: x.contractId, size: 1 }, t.token);
    expect(partial.body).toEqual(failure(4, 'Account violation'));
  }
  expect(await accountEntry(t, c)).toEqual({ id: c, name: `CHALLENGE-50K-${c}`, balance, canTrade: false, isVisible: true, simulated: true });
  expect(await accountEntry(t, x.accountId)).toMatchObject({ balance, canTrade: false });
  // A day with data: the status is checked before the calendar.
  expect((await startReply(t, c, startDate)).body).toEqual(failure(7, `Challenge account ${c} is no longer active (violated)`));
}

describe('maximum loss limit violation', () => {
  const violation = {
    rule: 'maxLossLimit',
    message: 'Equity $47,996.80 reached the maximum loss limit $48,000.00',
    value: 47_996.8,
    limit: 48_000,
    time: '2025-03-06T15:02:00Z',
    barIndex: 6,
    phase: 'evaluation',
  };

  it('on a step: liquidates at the touch price, cancels orders, halts at the deciding bar and finalizes', async () => {
    const { t, c, x } = await mllSetup(['2025-03-06T15:02:00Z', 20_000, 20_000, 19_950, 19_955]);
    const r = await t.post('Replay/step', { accountId: x.accountId, steps: 4 }, t.token);
    expect(r.body).toEqual({
      barsProcessed: 2,
      currentIndex: 7,
      totalBars: 8,
      // 48,781.80 − 39.25 points × $20 − 1.40
      account: account(47_995.4),
      propFirm: propFirm({ status: 'violated', tradingDaysCount: 3 }),
      filledOrders: [{ orderId: 7, fillPrice: 19_960.75, fillQty: 1 }],
      violations: [violation],
      bars: [
        { t: '2025-03-06T15:01:00Z', o: 20_000, h: 20_005, l: 19_995, c: 20_000, v: 1 },
        { t: '2025-03-06T15:02:00Z', o: 20_000, h: 20_000, l: 19_950, c: 19_955, v: 1 },
      ],
      ...envelope,
    });
    expect(r.body.violations[0].barIndex).toBe(r.body.currentIndex - 1);
    const fills = await trades(t, x);
    expect(fills[0]).toEqual({
      id: 1, accountId: x.accountId, contractId: x.contractId, creationTimestamp: '2025-03-06T15:02:00Z', price: 19_960.75,
      profitAndLoss: null, fees: 1.4, side: 1, size: 1, voided: false, orderId: 7,
    });
    expect(fills.length).toBe(6);
    // The challenge account's id shows the same fills.
    expect((await trades(t, { accountId: c, contractId: x.contractId })).map((f: any) => f.orderId)).toEqual([7, 5, 4, 3, 2, 1]);
    const orders = (await t.post('Order/search', { accountId: x.accountId }, t.token)).body.orders;
    expect(orders.map((o: any) => [o.id, o.status])).toEqual([[7, 2], [6, 3], [5, 2], [4, 2], [3, 2], [2, 2], [1, 2]]);
    expect((await t.post('Order/searchOpen', { accountId: x.accountId }, t.token)).body.orders).toEqual([]);
    await expectFinished(t, c, x, 47_995.4, '2025-03-06');
  });

  it('on a jump: a bar opening beyond the touch price liquidates at its open', async () => {
    const { t, c, x } = await mllSetup(['2025-03-06T15:02:00Z', 19_950, 19_955, 19_940, 19_950]);
    const r = await t.post('Replay/jumpTo', { accountId: x.accountId, targetTime: '2025-03-06T15:30:00Z' }, t.token);
    // The gap: liquidated at the open 19,950.00, equity 48,781.80 − 50 × $20 = 47,781.80.
    expect(r.body).toEqual({
      barsProcessed: 2,
      currentIndex: 7,
      totalBars: 8,
      account: account(47_780.4),
      propFirm: propFirm({ status: 'violated', tradingDaysCount: 3 }),
      filledOrders: [{ orderId: 7, fillPrice: 19_950, fillQty: 1 }],
      violations: [{ ...violation, message: 'Equity $47,781.80 reached the maximum loss limit $48,000.00', value: 47_781.8 }],
      ...envelope,
    });
    expect((await trades(t, x))[0]).toMatchObject({ price: 19_950, side: 1, size: 1, creationTimestamp: '2025-03-06T15:02:00Z' });
    await expectFinished(t, c, x, 47_780.4, '2025-03-06');
  });

  it('while playing: playback stops at the deciding bar and the session is finalized', async () => {
    const { t, c, x } = await mllSetup(['2025-03-06T15:02:00Z', 20_000, 20_000, 19_950, 19_955]);
    expect((await t.post('Replay/play', { accountId: x.accountId, speed: 50 }, t.token)).body.playing).toBe(true);
    t.clock.advance(1000); // 100 bars due: far past the deciding bar
    // Wait for the playback timer to finalize the session (bounded generously: a busy machine makes
    // the timer late, never early), not for a fixed time.
    await waitFor(() => !t.s.replay.liveSessionOfChallenge(c));
    expect((await t.post('Replay/pause', { accountId: x.accountId }, t.token)).body).toEqual(
      failure(1, 'No active replay session for this account'),
    );
    expect((await trades(t, x))[0]).toMatchObject({ price: 19_960.75, side: 1, size: 1, orderId: 7, creationTimestamp: '2025-03-06T15:02:00Z' });
    const orders = (await t.post('Order/search', { accountId: x.accountId }, t.token)).body.orders;
    expect(orders.map((o: any) => [o.id, o.status]).slice(0, 2)).toEqual([[7, 2], [6, 3]]);
    await expectFinished(t, c, x, 47_995.4, '2025-03-06');
  });
});

// ---- the trailing floor, its lock, and the daily loss limit ----

describe('trailing floor across trade dates', () => {
  // 2025-03-04: buy 5, +10 points: +1,000 − 14 → 50,986.00; end of day → floor 48,986.00.
  // 2025-03-05: buy 4, −9 points: −720 − 11.20 → 50,254.80 (floor stays: 48,254.80 < 48,986).
  // 2025-03-06: the same                      → 49,523.60.
  // 2025-03-06 23:30 UTC is 17:30 CST: trade date 2025-03-07, day start 49,523.60, daily floor
  // 48,523.60 below the trailed 48,986.00. Buy 2 (−2.80) → 49,520.80; equity ≤ 48,986 at or below
  // 19,986.50 (tick 79,946), equity there 49,520.80 − 13.5 × $40 = 48,980.80.
  // Had the day not rolled at 17:00 CT, the daily loss limit (49,523.60 − 1,000 from 03-06's start
  // 50,254.80 → 49,254.80) would have decided instead.
  const rows: Row[] = [
    ...dayRows('2025-03-04', 20_010),
    ...dayRows('2025-03-05', 19_991),
    ...dayRows('2025-03-06', 19_991),
    ['2025-03-06T23:30:00Z', 20_000],
    ['2025-03-06T23:31:00Z', 20_000, 20_000, 19_980, 19_985],
    ['2025-03-06T23:32:00Z', 19_985],
  ];

  /** The three days before the breach. */
  async function threeDays(t: ChallengeApp, x: Session) {
    await roundTrip(t, x, 5);
    await roundTrip(t, x, 4);
    await roundTrip(t, x, 4);
  }

  it('trails the end-of-day balance of a winning day; the evening after 17:00 CT is the next trade date', async () => {
    const t = await challengeApp(rows);
    const c = await createChallenge(t);
    const x = await startOn(t, c, '2025-03-04');
    await threeDays(t, x);
    expect(await pause(t, x)).toEqual({ account: account(49_523.6), propFirm: propFirm({ tradingDaysCount: 3 }) });
    const entry = await step(t, x);
    expect(entry.propFirm).toEqual(propFirm({ tradingDaysCount: 3 }));
    await market(t, x, 2);
    const r = await step(t, x, 5);
    expect(r).toMatchObject({
      barsProcessed: 1,
      currentIndex: 8,
      account: account(48_978),
      propFirm: propFirm({ status: 'violated', tradingDaysCount: 4 }),
      filledOrders: [{ orderId: 8, fillPrice: 19_986.5, fillQty: 2 }],
      violations: [{
        rule: 'maxLossLimit', message: 'Equity $48,980.80 reached the maximum loss limit $48,986.00', value: 48_980.8,
        limit: 48_986, time: '2025-03-06T23:31:00Z', barIndex: 7, phase: 'evaluation',
      }],
    });
    await expectFinished(t, c, x, 48_978, '2025-03-06');
  });

  // 2025-03-04: buy 5, +21 points: +2,100 − 14 → 52,086.00; end of day ≥ 52,000: floor 50,000, locked.
  // 2025-03-05: buy 2, +10 points: +400 − 5.60 → 52,480.40 (an unlocked floor would trail to 50,480.40).
  // 2025-03-06: buy 5, −8.75 points: −875 − 14 → 51,591.40.
  // 2025-03-07: the same                        → 50,702.40.
  // Sunday 2025-03-09 22:30 UTC is 17:30 CDT (DST began that morning): trade date 2025-03-10, day
  // start 50,702.40, daily floor 49,702.40 below the locked 50,000. Buy 2 (−2.80) → 50,699.60; equity
  // ≤ 50,000 at or below 19,982.50 (tick 79,930), equity there 50,699.60 − 17.5 × $40 = 49,999.60;
  // the liquidation's fee leaves 49,996.80.
  const lockRows: Row[] = [
    ...dayRows('2025-03-04', 20_021),
    ...dayRows('2025-03-05', 20_010),
    ...dayRows('2025-03-06', 19_991.25),
    ...dayRows('2025-03-07', 19_991.25),
    ['2025-03-09T22:30:00Z', 20_000],
    ['2025-03-09T22:31:00Z', 20_000, 20_000, 19_980, 19_985],
    ['2025-03-09T22:32:00Z', 19_985],
  ];

  it('locks at the starting balance once the end-of-day balance reaches start + max loss, and stays there', async () => {
    const t = await challengeApp(lockRows);
    const c = await createChallenge(t);
    const x = await startOn(t, c, '2025-03-04');
    const day1 = await roundTrip(t, x, 5);
    expect(day1.propFirm).toEqual(propFirm({ tradingDaysCount: 1 }));
    // The lock is taken at the trade-date boundary, seen by the first bar of 2025-03-05.
    expect((await step(t, x)).propFirm).toEqual(propFirm({ tradingDaysCount: 1, drawdownLocked: true }));
    await market(t, x, 2);
    await step(t, x);
    await closeAll(t, x);
    await roundTrip(t, x, 5);
    await roundTrip(t, x, 5);
    expect(await pause(t, x)).toEqual({ account: account(50_702.4), propFirm: propFirm({ tradingDaysCount: 4, drawdownLocked: true }) });
    await step(t, x);
    await market(t, x, 2);
    const r = await step(t, x, 5);
    expect(r).toMatchObject({
      barsProcessed: 1,
      currentIndex: 10,
      account: account(49_996.8),
      propFirm: propFirm({ status: 'violated', tradingDaysCount: 5, drawdownLocked: true }),
      filledOrders: [{ orderId: 10, fillPrice: 19_982.5, fillQty: 2 }],
      violations: [{
        rule: 'maxLossLimit', message: 'Equity $49,999.60 reached the maximum loss limit $50,000.00', value: 49_999.6,
        limit: 50_000, time: '2025-03-09T22:31:00Z', barIndex: 9, phase: 'evaluation',
      }],
    });
    await expectFinished(t, c, x, 49_996.8, '2025-03-09');
  });
});

describe('daily loss limit (hard)', () => {
  // Buy 5 at 20,000 (−7) → 49,993; the day's floor is 50,000 − 1,000 = 49,000 (above the 48,000
  // maximum loss floor): equity ≤ 49,000 at or below 19,990.00 (tick 79,960), where it is 48,993,
  // a day P&L of −1,007. Liquidation −7 → 48,986.
  const rows: Row[] = [
    ['2025-03-04T15:00:00Z', 20_000],
    ['2025-03-04T15:01:00Z', 20_000, 20_000, 19_985, 19_990],
    ['2025-03-04T15:02:00Z', 19_990],
  ];
  const violation = (phase: string) => ({
    rule: 'dailyLossLimit', message: 'Daily net P&L -$1,007.00 reached the daily loss limit -$1,000.00', value: -1007,
    limit: -1000, time: '2025-03-04T15:01:00Z', barIndex: 1, phase,
  });

  it.each([
    ['evaluation', false],
    ['performance', true],
  ] as const)('is a violation in the %s phase', async (phase, isFunded) => {
    const t = await challengeApp(rows);
    const c = await createChallenge(t, phase);
    const x = await startOn(t, c, '2025-03-04');
    expect((await pause(t, x)).propFirm).toEqual(propFirm({ isFunded, currentPhase: phase }));
    await step(t, x);
    await market(t, x, 5);
    const r = await step(t, x, 2);
    expect(r).toEqual({
      barsProcessed: 1,
      currentIndex: 2,
      totalBars: 3,
      account: account(48_986),
      propFirm: propFirm({ status: 'violated', isFunded, currentPhase: phase, tradingDaysCount: 1 }),
      filledOrders: [{ orderId: 2, fillPrice: 19_990, fillQty: 5 }],
      violations: [violation(phase)],
      bars: [{ t: '2025-03-04T15:01:00Z', o: 20_000, h: 20_000, l: 19_985, c: 19_990, v: 1 }],
      ...envelope,
    });
    await expectFinished(t, c, x, 48_986, '2025-03-04');
  });

  // Soft mode (`challenge create --daily-loss soft`): 1 NQ long at 20,000 with fee 1.40 → the day's
  // equity floor 49,000 is touched at 19,950.00 (equity 48,998.60); the bar opens there, so the
  // position is sold at 19,950 (fee 1.40): balance 48,997.20. No violation: the session goes on,
  // orders are refused until the next trade date, which starts at the 2025-03-05 bars.
  it('soft mode: flattens, refuses orders until the next trade date, no violation', async () => {
    const t = await challengeApp([...dayRows('2025-03-04', 19_950), ...dayRows('2025-03-05', 20_000)]);
    const c = (await t.s.challenges.create(t.userId, '50K', 'evaluation', 'standard', 'soft')).account.id;
    const x = await startOn(t, c, '2025-03-04');
    await step(t, x);
    await market(t, x, 1);
    const r = await step(t, x);
    expect(r.violations).toEqual([]);
    expect(r.propFirm).toEqual(propFirm({ tradingDaysCount: 1 }));
    expect(r.account).toEqual(account(48_997.2));
    expect(r.filledOrders).toEqual([{ orderId: 2, fillPrice: 19_950, fillQty: 1 }]);
    const refused = await t.post('Order/place', { accountId: x.accountId, contractId: x.contractId, type: 2, side: 0, size: 1 }, t.token);
    expect(refused.body).toEqual(
      failure(2, 'Daily loss limit reached: no new orders until the next trade date begins (17:00 America/Chicago)'),
    );
    await step(t, x); // 2025-03-05 15:00: a new trade date
    expect(await market(t, x, 1)).toBeGreaterThan(0);
  });
});

describe('maximum position size', () => {
  const rows: Row[] = [['2025-03-04T15:00:00Z', 20_000], ['2025-03-04T15:01:00Z', 20_000], ['2025-03-04T15:02:00Z', 20_000]];

  it('an order that would take the position past 5 NQ is rejected with 2 and the reason; not a violation', async () => {
    const t = await challengeApp(rows);
    const c = await createChallenge(t);
    const x = await startOn(t, c, '2025-03-04');
    await step(t, x);
    const place = (body: Record<string, unknown>) => t.post('Order/place', { accountId: x.accountId, contractId: x.contractId, ...body }, t.token);
    const six = 'Maximum position size exceeded: 6 NQ contracts would be open, limit 5';
    expect((await place({ type: 2, side: 0, size: 6 })).body).toEqual(failure(2, six));
    expect((await place({ type: 2, side: 1, size: 6 })).body).toEqual(failure(2, six));
    expect((await place({ type: 2, side: 0, size: 3 })).body.success).toBe(true);
    // Working entries count: 3 held + 2 resting = 5; one more would make 6.
    expect((await place({ type: 1, side: 0, size: 2, limitPrice: 19_000 })).body.success).toBe(true);
    expect((await place({ type: 2, side: 0, size: 1 })).body).toEqual(failure(2, six));
    expect((await place({ type: 4, side: 0, size: 1, stopPrice: 21_000 })).body).toEqual(failure(2, six));
    // A sell of 9 would flip to short 6.
    expect((await place({ type: 2, side: 1, size: 9 })).body).toEqual(failure(2, six));
    expect((await place({ type: 2, side: 1, size: 8 })).body.success).toBe(true); // short 5
    const r = await step(t, x);
    expect(r).toMatchObject({ propFirm: propFirm({ tradingDaysCount: 1 }), violations: [] });
    expect(r.account).toMatchObject({ positions: 1, marginUsed: 5000, pendingOrders: 1 });
    expect(await accountEntry(t, c)).toMatchObject({ canTrade: true });
  });

  it('a plain session has no such limit', async () => {
    const t = await challengeApp(rows);
    const x = await startOn(t, undefined, '2025-03-04');
    await step(t, x);
    expect((await t.post('Order/place', { accountId: x.accountId, contractId: x.contractId, type: 2, side: 0, size: 6 }, t.token)).body.success).toBe(true);
  });

  it('micros count 10:1: the 51st MNQ is rejected', async () => {
    const t = await challengeApp(rows, { symbol: 'MNQ' });
    const c = await createChallenge(t);
    const x = await startOn(t, c, '2025-03-04', 'MNQ');
    await step(t, x);
    const buy = (size: number) => t.post('Order/place', { accountId: x.accountId, contractId: x.contractId, type: 2, side: 0, size }, t.token);
    expect((await buy(51)).body).toEqual(failure(2, 'Maximum position size exceeded: 51 MNQ contracts would be open, limit 50'));
    expect((await buy(50)).body.success).toBe(true);
    expect((await buy(1)).body).toEqual(failure(2, 'Maximum position size exceeded: 51 MNQ contracts would be open, limit 50'));
    expect((await pause(t, x)).propFirm).toEqual(propFirm({ tradingDaysCount: 1 }));
  });
});

describe('pass', () => {
  // 2025-03-04: buy 5, +21 points → 52,086.00 (the floor locks at the next trade date).
  // 2025-03-05: buy 5, +11 points: +1,100 − 14 → 53,172.00: above the 53,000 target, flat, two days,
  //   but the best day 2,086 is not below 50% of the 3,172 profit: no pass yet.
  // 2025-03-06: buy 5 at 20,000 (−7), a sell limit 5 at 20,011 fills on the way up (+1,100 − 7) →
  //   54,258.00; best day 2,086 < 50% of 4,258: passed at that bar.
  // 2025-03-07: the performance phase.
  const rows: Row[] = [
    ...dayRows('2025-03-04', 20_021),
    ...dayRows('2025-03-05', 20_011),
    ['2025-03-06T15:00:00Z', 20_000],
    ['2025-03-06T15:01:00Z', 20_000, 20_012, 20_000, 20_012],
    ['2025-03-06T15:02:00Z', 20_012],
    ...dayRows('2025-03-07', 20_010),
  ];

  it('reaching the target flat with enough days and consistency passes; the next start opens the performance phase', async () => {
    const t = await challengeApp(rows);
    const c = await createChallenge(t);
    const x = await startOn(t, c, '2025-03-04');
    await roundTrip(t, x, 5);
    await roundTrip(t, x, 5);
    expect(await pause(t, x)).toEqual({ account: account(53_172), propFirm: propFirm({ tradingDaysCount: 2, drawdownLocked: true }) });
    await step(t, x);
    await market(t, x, 5); // order 5
    const tp = await t.post('Order/place', { accountId: x.accountId, contractId: x.contractId, type: 1, side: 1, size: 5, limitPrice: 20_011 }, t.token);
    expect(tp.body.orderId).toBe(6);
    const r = await step(t, x, 3);
    expect(r).toEqual({
      barsProcessed: 1,
      currentIndex: 6,
      totalBars: 9,
      account: account(54_258),
      propFirm: propFirm({ status: 'passed', tradingDaysCount: 3, drawdownLocked: true }),
      filledOrders: [{ orderId: 6, fillPrice: 20_011, fillQty: 5 }],
      violations: [],
      bars: [{ t: '2025-03-06T15:01:00Z', o: 20_000, h: 20_012, l: 20_000, c: 20_012, v: 1 }],
      ...envelope,
    });
    expect((await t.post('Replay/step', { accountId: x.accountId }, t.token)).body).toEqual(failure(1, 'No active replay session for this account'));
    expect((await t.post('Order/place', { accountId: c, contractId: x.contractId, type: 2, side: 0, size: 1 }, t.token)).body).toEqual(failure(4, 'Account violation'));
    expect(await accountEntry(t, c)).toMatchObject({ balance: 54_258, canTrade: false });
    // Going back in time is refused for a passed challenge as well; the challenge's last simulated
    // time is the deciding stored bar's.
    expect((await startReply(t, c, '2025-03-06')).body).toEqual(
      failure(7, `Challenge account ${c} has already traded up to 2025-03-06T15:01:00Z; a session on it must start after that time`),
    );

    const y = await startOn(t, c, '2025-03-07');
    expect(await pause(t, y)).toEqual({ account: account(50_000), propFirm: propFirm({ isFunded: true, currentPhase: 'performance' }) });
    expect(await accountEntry(t, c)).toMatchObject({ balance: 50_000, canTrade: true });
    const day = await roundTrip(t, y, 1);
    expect(day.propFirm).toEqual(propFirm({ isFunded: true, currentPhase: 'performance', tradingDaysCount: 1 }));
    expect(await accountEntry(t, c)).toMatchObject({ balance: 50_197.2, canTrade: true });
    // The performance phase has no profit target and payouts are open.
    expect((await t.post('Payout/eligibility', { accountId: c }, t.token)).body.success).toBe(true);
  });
});

// ---- restart ----

describe('nothing lost', () => {
  it("a challenge account's balance, trading days, floor, status and live session survive a restart", async () => {
    // The trailing-floor scenario on two twins; B restarts after two days, and both must then give
    // the same answers, down to the violation at the trailed floor 48,986.00.
    const rows: Row[] = [
      ...dayRows('2025-03-04', 20_010),
      ...dayRows('2025-03-05', 19_991),
      ...dayRows('2025-03-06', 19_991),
      ['2025-03-06T23:30:00Z', 20_000],
      ['2025-03-06T23:31:00Z', 20_000, 20_000, 19_980, 19_985],
      ['2025-03-06T23:32:00Z', 19_985],
    ];
    const dbPath = join(mkdtempSync(join(tmpdir(), 'rd-challenge-')), 'replaydesk.db');
    const a = await challengeApp(rows);
    const b = await challengeApp(rows, { dbPath });
    const ca = await createChallenge(a);
    const cb = await createChallenge(b);
    const xa = await startOn(a, ca, '2025-03-04');
    const xb = await startOn(b, cb, '2025-03-04');
    for (const [t, x] of [[a, xa], [b, xb]] as const) {
      await roundTrip(t, x, 5);
      await roundTrip(t, x, 4);
      await step(t, x);
      await market(t, x, 4); // held across the restart
    }
    const views = async (t: ChallengeApp, c: number, x: Session) => ({
      paused: await pause(t, x),
      accounts: (await t.post('Account/search', {}, t.token)).body.accounts,
      positions: (await t.post('Position/searchOpen', { accountId: c }, t.token)).body.positions,
      trades: await trades(t, x),
    });
    const before = await views(b, cb, xb);
    expect(before.paused).toEqual({
      account: account(50_249.2, { marginUsed: 4000, positions: 1 }),
      propFirm: propFirm({ tradingDaysCount: 3 }),
    });
    expect(before).toEqual(await views(a, ca, xa));

    await b.s.shutdown();
    b.s.db.close();
    const b2 = await challengeApp([], { dbPath });
    expect(await views(b2, cb, xb)).toEqual(before);
    // An open position and a live session: a second start is still refused, and the past too.
    expect((await startReply(b2, cb, '2025-03-06')).body).toEqual(failure(7, BUSY));

    // Both continue identically to the breach.
    const rest = async (t: ChallengeApp, x: Session) => {
      const exit = await step(t, x);
      await closeAll(t, x);
      await step(t, x);
      await market(t, x, 2);
      return [exit, await step(t, x, 5)];
    };
    const [exitA, breachA] = await rest(a, xa);
    const [exitB, breachB] = await rest(b2, xb);
    expect([exitB, breachB]).toEqual([exitA, breachA]);
    expect(breachB.violations).toEqual([{
      rule: 'maxLossLimit', message: 'Equity $48,980.80 reached the maximum loss limit $48,986.00', value: 48_980.8,
      limit: 48_986, time: '2025-03-06T23:31:00Z', barIndex: 7, phase: 'evaluation',
    }]);

    // The finished challenge stays finished across a second restart.
    await b2.s.shutdown();
    b2.s.db.close();
    const b3 = await challengeApp([], { dbPath });
    expect(await accountEntry(b3, cb)).toMatchObject({ balance: 48_978, canTrade: false });
    expect((await startReply(b3, cb, '2025-03-06')).body).toEqual(failure(7, `Challenge account ${cb} is no longer active (violated)`));
    b3.s.db.close();
  });
});
