import { describe, expect, it } from 'bun:test';
import {
  accountEntry, type ChallengeApp, challengeApp, closeAll, createChallenge, dayRows, failure, market, otherUser,
  pause, propFirm, roundTrip, type Row, startOn,
} from '../../support/challenge.ts';
import { account, type Session, step } from '../../support/replay.ts';

// Two 50K performance-phase challenge accounts of the same user trade the same NQ days, one contract
// a day bought at 20,000 and closed at the day's exit ($20 a point, $2.80 fees a round turn):
//   03-03 +10 → +197.20   03-04 +5 → +97.20 (below $150)   03-05 +10 → +197.20   03-06 −10 → −202.80
//   03-07 +10 → +197.20   03-10 +10 → +197.20              03-11 +30 → +597.20
// Profit 1,280.40 after 03-11, balance 51,280.40. Trade dates are CME dates (bars at 15:00 UTC sit in
// their own calendar day's date); a date counts as a winning day only once the simulation has
// reached the next one. Standard policy (STD): 5 winning days of $150, payout $125 to
// min($2,000, 50% of the window's profit). Consistency policy (CON): 3 winning days, up to $6,000,
// no window day above 40% of the window's profit.
// After 03-12's first bar: a second payout cycle of five +197.20 days (03-12 to 03-18), then 03-19.

const EXITS: [string, number][] = [
  ['2025-03-03', 20_010], ['2025-03-04', 20_005], ['2025-03-05', 20_010], ['2025-03-06', 19_990],
  ['2025-03-07', 20_010], ['2025-03-10', 20_010], ['2025-03-11', 20_030],
];
const CYCLE2 = ['2025-03-12', '2025-03-13', '2025-03-14', '2025-03-17', '2025-03-18'];

const ROWS: Row[] = [
  ...EXITS.flatMap(([d, exit]) => dayRows(d, exit)),
  ...CYCLE2.flatMap((d) => dayRows(d, 20_010)),
  ...dayRows('2025-03-19', 20_000),
];

const NOT_ELIGIBLE = 'Withdrawal not eligible';
const envelope = { success: true, errorCode: 0, errorMessage: null };

const winning = (have: number, need: number, since = 'the performance phase began') =>
  `${have} of ${need} winning days (closed profit of at least $150.00 on a finished trade date) since ${since}`;

/** The eligibility object; defaults are a fresh standard-policy account. */
function elig(over: Record<string, unknown> = {}) {
  return {
    eligible: false,
    reasons: [winning(0, 5), 'No net profit since the performance phase began'],
    winningDays: 0,
    requiredWinningDays: 5,
    winningDayMinProfit: 150,
    netProfitSincePayout: 0,
    totalFundedProfits: 0,
    consistencyLimit: 0,
    maxPayout: 0,
    minPayout: 125,
    consistencyPct: null,
    windowStartDate: null,
    ...over,
  };
}

interface Funded {
  t: ChallengeApp;
  std: number;
  con: number;
  xs: Session;
  xc: Session;
}

/** Both accounts with live sessions from 2025-03-03, their first `days` trading days played. */
async function funded(days: number, rows: Row[] = ROWS): Promise<Funded> {
  const t = await challengeApp(rows);
  const std = await createChallenge(t, 'performance', 'standard');
  const con = await createChallenge(t, 'performance', 'consistency');
  const xs = await startOn(t, std, '2025-03-03');
  const xc = await startOn(t, con, '2025-03-03');
  for (let k = 0; k < days; k++) {
    await roundTrip(t, xs, 1);
    await roundTrip(t, xc, 1);
  }
  return { t, std, con, xs, xc };
}

/** Seven days played and 03-12's first bar: STD is eligible for up to 640.20. */
async function eligible(rows: Row[] = ROWS): Promise<Funded> {
  const f = await funded(7, rows);
  await step(f.t, f.xs);
  await step(f.t, f.xc);
  return f;
}

const eligibility = async (t: ChallengeApp, accountId: unknown) => (await t.post('Payout/eligibility', { accountId }, t.token)).body;
const request = (t: ChallengeApp, accountId: unknown, amount?: unknown) => t.post('Payout/request', { accountId, amount }, t.token);
const history = async (t: ChallengeApp, accountId: unknown) => (await t.post('Payout/history', { accountId }, t.token)).body;

// ---- error rows shared by the three endpoints ----

interface ErrorWorld {
  t: ChallengeApp;
  ids: Record<string, unknown>;
}

/**
 * Accounts of every kind: an evaluation challenge, a performance challenge violated by its daily
 * loss limit, an ended one, a plain replay account, another user's performance challenge.
 */
async function errorWorld(): Promise<ErrorWorld> {
  const t = await challengeApp([
    ['2025-03-04T15:00:00Z', 20_000],
    ['2025-03-04T15:01:00Z', 20_000, 20_000, 19_985, 19_990],
  ]);
  const evaluation = await createChallenge(t);
  const violated = await createChallenge(t, 'performance');
  const x = await startOn(t, violated, '2025-03-04');
  await step(t, x);
  await market(t, x, 5);
  expect((await step(t, x)).violations[0].rule).toBe('dailyLossLimit');
  const ended = await createChallenge(t, 'performance');
  await t.s.challenges.end(ended);
  const plain = (await startOn(t, undefined, '2025-03-04')).accountId;
  const other = await otherUser(t);
  const theirs = await createChallenge(t, 'performance', 'standard', other.userId);
  return { t, ids: { missing: undefined, string: '1', unknown: 999, plain, theirs, evaluation, violated, ended } };
}

const PHASE_ROWS: [string, number, string][] = [
  ['missing', 1, 'Account not found'],
  ['string', 1, 'Account not found'],
  ['unknown', 1, 'Account not found'],
  ['plain', 1, 'Account not found'],
  ['theirs', 1, 'Account not found'],
  ['evaluation', 2, 'Account is not in the performance phase'],
  ['violated', 2, 'Account is not in the performance phase'],
  ['ended', 2, 'Account is not in the performance phase'],
];

describe('Payout/eligibility', () => {
  it.each(PHASE_ROWS)('%s account → %i %s', async (name, code, message) => {
    const w = await errorWorld();
    expect(await eligibility(w.t, w.ids[name])).toEqual(failure(code, message));
  });

  it('a fresh performance account: nothing to pay yet, for each policy', async () => {
    const { t, std, con } = await funded(0);
    expect(await eligibility(t, std)).toEqual({ eligibility: elig(), ...envelope });
    expect(await eligibility(t, con)).toEqual({
      eligibility: elig({
        reasons: [winning(0, 3), 'No net profit since the performance phase began'], requiredWinningDays: 3, consistencyPct: 40,
      }),
      ...envelope,
    });
  });

  it('counts winning days on finished trade dates only, caps at 50% of the profit, applies the consistency limit', async () => {
    const { t, std, con, xs, xc } = await funded(6);
    // On 03-10 (unfinished): 03-03, 03-05 and 03-07 are winning days; profit 683.20.
    expect((await eligibility(t, std)).eligibility).toEqual(
      elig({ reasons: [winning(3, 5)], winningDays: 3, netProfitSincePayout: 683.2, totalFundedProfits: 683.2, maxPayout: 341.6 }),
    );
    // CON needs 3; best day 197.20 ≤ 40% of 683.20 = 273.28: eligible.
    expect((await eligibility(t, con)).eligibility).toEqual(
      elig({
        eligible: true, reasons: [], winningDays: 3, requiredWinningDays: 3, netProfitSincePayout: 683.2, totalFundedProfits: 683.2,
        consistencyLimit: 273.28, maxPayout: 341.6, consistencyPct: 40,
      }),
    );
    // 03-11 +597.20: 03-10 has become a winning day; 03-11 is unfinished but its profit is in the window.
    await roundTrip(t, xs, 1);
    await roundTrip(t, xc, 1);
    expect((await eligibility(t, std)).eligibility).toEqual(
      elig({ reasons: [winning(4, 5)], winningDays: 4, netProfitSincePayout: 1280.4, totalFundedProfits: 1280.4, maxPayout: 640.2 }),
    );
    const conOver = {
      reasons: ['Best day $597.20 is above 40% of window profit $1,280.40'], winningDays: 4, requiredWinningDays: 3,
      netProfitSincePayout: 1280.4, totalFundedProfits: 1280.4, consistencyLimit: 512.16, maxPayout: 640.2, consistencyPct: 40,
    };
    expect((await eligibility(t, con)).eligibility).toEqual(elig(conOver));
    // 03-12 begins: five winning days for STD; CON's best day still breaks the limit.
    await step(t, xs);
    await step(t, xc);
    expect((await eligibility(t, std)).eligibility).toEqual(
      elig({ eligible: true, reasons: [], winningDays: 5, netProfitSincePayout: 1280.4, totalFundedProfits: 1280.4, maxPayout: 640.2 }),
    );
    expect((await eligibility(t, con)).eligibility).toEqual(elig({ ...conOver, winningDays: 5 }));
    // Without a live session the stored state answers the same.
    await t.post('Replay/end', { accountId: xs.accountId }, t.token);
    expect((await eligibility(t, std)).eligibility.eligible).toBe(true);
  });
});

describe('Payout/request', () => {
  it.each(PHASE_ROWS)('%s account → %i %s', async (name, code, message) => {
    const w = await errorWorld();
    expect((await request(w.t, w.ids[name], 200)).body).toEqual(failure(code, message));
    // Nothing was paid anywhere.
    for (const id of ['evaluation', 'violated', 'ended']) expect((await history(w.t, w.ids[id])).payouts).toEqual([]);
  });

  it.each([
    ['missing', undefined],
    ['null', null],
    ['a string', '300'],
    ['a boolean', true],
    ['zero', 0],
    ['negative', -5],
    ['fractions of a cent', 300.005],
    ['three decimals', 12.345],
    ['below the minimum 125', 124.99],
    ['above the maximum 640.20', 640.21],
    ['above the plan maximum', 2_000.01],
  ])('amount %s → 3 Invalid withdrawal amount, nothing changes', async (_n, amount) => {
    const { t, std } = await eligible();
    expect((await request(t, std, amount)).body).toEqual(failure(3, 'Invalid withdrawal amount'));
    expect((await history(t, std)).payouts).toEqual([]);
    expect(await accountEntry(t, std)).toMatchObject({ balance: 51_280.4, canTrade: true });
    expect((await eligibility(t, std)).eligibility.eligible).toBe(true);
  });

  it('a malformed amount is refused as such even when not eligible', async () => {
    const { t, con } = await eligible();
    expect((await request(t, con, '100')).body).toEqual(failure(3, 'Invalid withdrawal amount'));
  });

  it('not eligible → 4 with the reasons and the full eligibility object', async () => {
    const { t, std, con } = await funded(7);
    expect((await request(t, std, 200)).body).toEqual({
      success: false,
      errorCode: 4,
      errorMessage: `${NOT_ELIGIBLE}: ${winning(4, 5)}`,
      eligibility: elig({ reasons: [winning(4, 5)], winningDays: 4, netProfitSincePayout: 1280.4, totalFundedProfits: 1280.4, maxPayout: 640.2 }),
    });
    const r = await request(t, con, 200);
    expect(r.body.errorCode).toBe(4);
    expect(r.body.errorMessage).toBe(`${NOT_ELIGIBLE}: Best day $597.20 is above 40% of window profit $1,280.40`);
    expect(r.body.eligibility).toEqual((await eligibility(t, con)).eligibility);
    expect(await accountEntry(t, std)).toMatchObject({ balance: 51_280.4 });
  });

  it('pays out: balance down in the account and the live session, floor locked, window restarted, history newest first', async () => {
    const { t, std, xs } = await eligible();
    const first = await request(t, std, 300);
    expect(first.body).toEqual({ payoutId: expect.stringMatching(/^po_[A-Za-z0-9_-]{16}$/), ...envelope });
    expect(await accountEntry(t, std)).toMatchObject({ balance: 50_980.4, canTrade: true });
    expect(await pause(t, xs)).toEqual({
      account: account(50_980.4),
      propFirm: propFirm({ isFunded: true, currentPhase: 'performance', tradingDaysCount: 7, drawdownLocked: true }),
    });
    expect((await eligibility(t, std)).eligibility).toEqual(
      elig({
        reasons: [winning(0, 5, 'the last payout'), 'No net profit since the last payout'], totalFundedProfits: 1280.4,
        windowStartDate: '2025-03-12',
      }),
    );
    const firstRecord = {
      id: first.body.payoutId, amount: 300, balanceBefore: 51_280.4, balanceAfter: 50_980.4, status: 'completed',
      requestedAt: '2025-03-10T09:00:00.000Z', simulatedDate: '2025-03-12',
    };
    expect(await history(t, std)).toEqual({ payouts: [firstRecord], ...envelope });

    // The session trades on from the reduced balance.
    await market(t, xs, 1);
    const next = await step(t, xs);
    expect(next.account).toEqual(account(50_979, { equity: 51_179, unrealizedPnl: 200, marginUsed: 1000, positions: 1 }));
    expect(next.propFirm).toEqual(propFirm({ isFunded: true, currentPhase: 'performance', tradingDaysCount: 8, drawdownLocked: true }));
    await closeAll(t, xs);
    // Four more +197.20 days, then 03-19 begins: five winning days in the new window.
    for (let k = 0; k < 4; k++) await roundTrip(t, xs, 1);
    await step(t, xs);
    expect((await eligibility(t, std)).eligibility).toEqual(
      elig({
        eligible: true, reasons: [], winningDays: 5, netProfitSincePayout: 986, totalFundedProfits: 2266.4, maxPayout: 493,
        windowStartDate: '2025-03-12',
      }),
    );
    t.clock.advance(60_000);
    const second = await request(t, std, 493);
    expect(second.body.success).toBe(true);
    expect(await accountEntry(t, std)).toMatchObject({ balance: 51_473.4 });
    expect((await history(t, std)).payouts).toEqual([
      {
        id: second.body.payoutId, amount: 493, balanceBefore: 51_966.4, balanceAfter: 51_473.4, status: 'completed',
        requestedAt: '2025-03-10T09:01:00.000Z', simulatedDate: '2025-03-19',
      },
      firstRecord,
    ]);
  });

  // Same data, but 03-12 drops after the payout: day start 50,980.40, so the daily floor 49,980.40 is
  // below the locked 50,000 (unlocked, the floor would be 51,280.40 − 2,000 = 49,280.40). Buy 5 (−7) →
  // 50,973.40; equity ≤ 50,000 at or below 19,990.25 (tick 79,961), where it is 49,998.40.
  it('after a payout the loss floor is the starting balance', async () => {
    const rows = ROWS.map((r): Row => (r[0] === '2025-03-12T15:01:00Z' ? [r[0], 20_000, 20_000, 19_980, 19_985] : r));
    const { t, std, xs } = await eligible(rows);
    expect((await request(t, std, 300)).body.success).toBe(true);
    await market(t, xs, 5);
    const r = await step(t, xs);
    expect(r.violations).toEqual([{
      rule: 'maxLossLimit', message: 'Equity $49,998.40 reached the maximum loss limit $50,000.00', value: 49_998.4,
      limit: 50_000, time: '2025-03-12T15:01:00Z', barIndex: 15, phase: 'performance',
    }]);
    expect(r.account.balance).toBe(49_991.4);
    expect(r.propFirm).toEqual(propFirm({ status: 'violated', isFunded: true, currentPhase: 'performance', tradingDaysCount: 8, drawdownLocked: true }));
    expect(await eligibility(t, std)).toEqual(failure(2, 'Account is not in the performance phase'));
    expect((await history(t, std)).payouts.length).toBe(1);
  });

  it.each([
    ['with a live session', true],
    ['without a live session', false],
  ])('two simultaneous requests %s: exactly one succeeds, the other answers 5', async (_n, live) => {
    const { t, std, xs } = await eligible();
    if (!live) await t.post('Replay/end', { accountId: xs.accountId }, t.token);
    const replies = await Promise.all([request(t, std, 300), request(t, std, 300)]);
    const ok = replies.filter((r) => r.body.success);
    const lost = replies.filter((r) => !r.body.success);
    expect(ok.length).toBe(1);
    expect(lost.map((r) => r.body)).toEqual([failure(5, 'Withdrawal failed — please retry')]);
    expect((await history(t, std)).payouts.map((p: any) => [p.id, p.amount])).toEqual([[ok[0].body.payoutId, 300]]);
    expect(await accountEntry(t, std)).toMatchObject({ balance: 50_980.4 });
  });
});

describe('Payout/history', () => {
  it.each(PHASE_ROWS.filter(([, code]) => code === 1))('%s account → 1 Account not found', async (name) => {
    const w = await errorWorld();
    expect(await history(w.t, w.ids[name])).toEqual(failure(1, 'Account not found'));
  });

  it.each([['evaluation'], ['violated'], ['ended']])('any challenge account of the user answers, here %s: no payouts', async (name) => {
    const w = await errorWorld();
    expect(await history(w.t, w.ids[name])).toEqual({ payouts: [], ...envelope });
  });
});
