// Earlier family: Payout/eligibility, Payout/request, Payout/history over the same payout service as
// the current family. Challenge sessions are set up and traded through the current family (the
// services are shared); every payout call goes through /api/legacy-sim/.
import { describe, expect, it } from 'bun:test';
import {
  accountEntry, type ChallengeApp, challengeApp, createChallenge, dayRows, market, otherUser, type Row, roundTrip, startOn,
} from '../../support/challenge.ts';
import { envelope, failure, legacyPost } from '../../support/legacy.ts';
import { type Session, step } from '../../support/replay.ts';

// One 50K standard-policy performance account trades one NQ contract a day, bought at 20,000 and
// closed at the day's exit ($20 a point, $2.80 fees a round turn): +197.20, +97.20, +197.20, −202.80,
// +197.20, +197.20, +597.20: profit 1,280.40 after 03-11. On 03-12's first bar it has five winning
// days and may take 125 to 640.20 (50% of the profit).
const EXITS: [string, number][] = [
  ['2025-03-03', 20_010], ['2025-03-04', 20_005], ['2025-03-05', 20_010], ['2025-03-06', 19_990],
  ['2025-03-07', 20_010], ['2025-03-10', 20_010], ['2025-03-11', 20_030],
];
const ROWS: Row[] = [...EXITS.flatMap(([d, exit]) => dayRows(d, exit)), ...dayRows('2025-03-12', 20_000)];

const winning = (have: number) =>
  `${have} of 5 winning days (closed profit of at least $150.00 on a finished trade date) since the funded phase began`;

function elig(over: Record<string, unknown> = {}) {
  return {
    eligible: false, reasons: [winning(0), 'No net profit since the funded phase began'], winningDays: 0, requiredWinningDays: 5,
    winningDayMinProfit: 150, netProfitSincePayout: 0, totalFundedProfits: 0, consistencyLimit: 0, maxPayout: 0, minPayout: 125,
    consistencyPct: null, windowStartDate: null, ...over,
  };
}

/** The performance account with its first `days` trading days played (and 03-12's first bar when `days` is 7). */
async function funded(days: number): Promise<{ t: ChallengeApp; id: number; x: Session }> {
  const t = await challengeApp(ROWS);
  const id = await createChallenge(t, 'performance', 'standard');
  const x = await startOn(t, id, '2025-03-03');
  for (let k = 0; k < days; k++) await roundTrip(t, x, 1);
  return { t, id, x };
}

async function eligible() {
  const f = await funded(7);
  await step(f.t, f.x);
  return f;
}

const eligibility = async (t: ChallengeApp, accountId: unknown) => (await legacyPost(t, 'Payout/eligibility', { accountId }, t.token)).body;
const request = (t: ChallengeApp, accountId: unknown, amount?: unknown) => legacyPost(t, 'Payout/request', { accountId, amount }, t.token);
const history = async (t: ChallengeApp, accountId: unknown) => (await legacyPost(t, 'Payout/history', { accountId }, t.token)).body;

/** An evaluation challenge, a violated and an ended performance one, a plain replay account, another user's. */
async function errorWorld(): Promise<{ t: ChallengeApp; ids: Record<string, unknown> }> {
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
  ['evaluation', 2, 'Account is not in funded phase'],
  ['violated', 2, 'Account is not in funded phase'],
  ['ended', 2, 'Account is not in funded phase'],
];

describe('Payout/eligibility', () => {
  it.each(PHASE_ROWS)('%s account → %i %s', async (name, code, message) => {
    const w = await errorWorld();
    expect(await eligibility(w.t, w.ids[name])).toEqual(failure(code, message));
  });

  it('answers the eligibility object with the current family’s fields and values', async () => {
    const { t, id, x } = await funded(0);
    expect(await eligibility(t, id)).toEqual({ eligibility: elig(), ...envelope });
    for (let k = 0; k < 7; k++) await roundTrip(t, x, 1);
    await step(t, x);
    const body = await eligibility(t, id);
    expect(body).toEqual({
      eligibility: elig({ eligible: true, reasons: [], winningDays: 5, netProfitSincePayout: 1280.4, totalFundedProfits: 1280.4, maxPayout: 640.2 }),
      ...envelope,
    });
    expect(body.eligibility).toEqual((await t.post('Payout/eligibility', { accountId: id }, t.token)).body.eligibility);
  });
});

describe('Payout/request', () => {
  it.each(PHASE_ROWS)('%s account → %i %s', async (name, code, message) => {
    const w = await errorWorld();
    expect((await request(w.t, w.ids[name], 200)).body).toEqual(failure(code, message));
    for (const id of ['evaluation', 'violated', 'ended']) expect((await history(w.t, w.ids[id])).payouts).toEqual([]);
  });

  it.each([
    ['missing', undefined],
    ['null', null],
    ['a string', '300'],
    ['zero', 0],
    ['negative', -5],
    ['fractions of a cent', 300.005],
    ['below the minimum 125', 124.99],
    ['above the maximum 640.20', 640.21],
  ])('amount %s → 3 Invalid payout amount, nothing changes', async (_n, amount) => {
    const { t, id } = await eligible();
    expect((await request(t, id, amount)).body).toEqual(failure(3, 'Invalid payout amount'));
    expect((await history(t, id)).payouts).toEqual([]);
    expect(await accountEntry(t, id)).toMatchObject({ balance: 51_280.4 });
  });

  it('not eligible → 4 Payout not eligible: <reasons>, with the full eligibility object', async () => {
    const { t, id } = await funded(7);
    expect((await request(t, id, 200)).body).toEqual({
      ...failure(4, `Payout not eligible: ${winning(4)}`),
      eligibility: elig({ reasons: [winning(4)], winningDays: 4, netProfitSincePayout: 1280.4, totalFundedProfits: 1280.4, maxPayout: 640.2 }),
    });
    expect(await accountEntry(t, id)).toMatchObject({ balance: 51_280.4 });
  });

  it('pays out: payoutId, balance down, the record in history (both families)', async () => {
    const { t, id } = await eligible();
    const r = await request(t, id, 300);
    expect(r.body).toEqual({ payoutId: expect.stringMatching(/^po_[A-Za-z0-9_-]{16}$/), ...envelope });
    expect(await accountEntry(t, id)).toMatchObject({ balance: 50_980.4, canTrade: true });
    const record = {
      id: r.body.payoutId, amount: 300, balanceBefore: 51_280.4, balanceAfter: 50_980.4, status: 'completed',
      requestedAt: '2025-03-10T09:00:00.000Z', simulatedDate: '2025-03-12',
    };
    expect(await history(t, id)).toEqual({ payouts: [record], ...envelope });
    expect((await t.post('Payout/history', { accountId: id }, t.token)).body.payouts).toEqual([record]);
  });

  it('two simultaneous requests: exactly one succeeds, the other answers 5 Payout failed — please retry', async () => {
    const { t, id } = await eligible();
    const replies = await Promise.all([request(t, id, 300), request(t, id, 300)]);
    expect(replies.filter((r) => r.body.success).length).toBe(1);
    expect(replies.filter((r) => !r.body.success).map((r) => r.body)).toEqual([failure(5, 'Payout failed — please retry')]);
    expect((await history(t, id)).payouts.length).toBe(1);
    expect(await accountEntry(t, id)).toMatchObject({ balance: 50_980.4 });
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

  it('without a valid token answers 401', async () => {
    const w = await errorWorld();
    expect((await legacyPost(w.t, 'Payout/history', { accountId: w.ids.ended }, null)).status).toBe(401);
  });
});
