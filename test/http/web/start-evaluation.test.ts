// A user starts an evaluation from the console: GET /api/auth/challenge-plans (the plans the server
// has, with their rules) and POST /api/auth/challenges (at most 3 evaluations active per user).
import { beforeAll, describe, expect, it } from 'bun:test';
import { PLANS } from '../../../src/challenge/plans.ts';
import { limits } from '../../../src/config.ts';
import { makeApp, makeWebUser, type TestApp, webCall, webLogin } from '../../support/app.ts';

let t: TestApp;
let cookie: string;
let userId: number;

beforeAll(async () => {
  t = await makeApp();
  const u = await makeWebUser(t);
  cookie = await webLogin(t, u.email, u.password);
  userId = (await t.s.users.list()).find((x) => x.email === u.email)!.id;
});

const plans = (c: string | null = cookie) => webCall(t, 'GET', '/api/auth/challenge-plans', { cookie: c });
const start = (body: unknown, c: string | null = cookie) => webCall(t, 'POST', '/api/auth/challenges', { cookie: c, body });

describe('GET /api/auth/challenge-plans', () => {
  it('lists every plan the server has with its rules in USD, and the user’s evaluations under way', async () => {
    const r = await plans();
    expect(r.status).toBe(200);
    expect(r.body.plans.map((p: any) => p.key)).toEqual(PLANS.map((p) => p.key));
    expect(r.body.plans.find((p: any) => p.key === '50K-standard')).toEqual({
      key: '50K-standard',
      size: '50K',
      policy: 'standard',
      dailyLossMode: 'hard',
      startingBalance: 50_000,
      profitTarget: 3_000,
      maxLossLimit: 2_000,
      dailyLossLimit: 1_000,
      maxContracts: 5,
      minTradingDays: 2,
      passConsistencyPct: 50,
      payout: expect.objectContaining({ requiredWinningDays: 5, consistencyPct: null, profitCapPct: 50 }),
    });
    expect(r.body).toMatchObject({ success: true, activeEvaluations: 0, activeEvaluationsMax: 3 });
    expect((await plans(null)).status).toBe(401);
  });
});

describe('POST /api/auth/challenges', () => {
  it('starts an evaluation on the chosen plan, as the admin CLI would create it', async () => {
    const r = await start({ planKey: '100K-consistency-soft' });
    expect(r.status).toBe(200);
    const c = r.body.challenge;
    expect(c).toMatchObject({
      name: `CHALLENGE-100K-${c.accountId}`,
      status: 'active',
      phase: 'evaluation',
      isFunded: false,
      plan: { key: '100K-consistency-soft', size: '100K', policy: 'consistency', dailyLossMode: 'soft' },
      startingBalance: 100_000,
      balance: 100_000,
      liveSession: false,
      outcome: null,
    });
    // The user's, listed with the others, and counted.
    const mine = (await webCall(t, 'GET', '/api/auth/challenges', { cookie })).body.challenges;
    expect(mine.map((x: any) => x.accountId)).toEqual([c.accountId]);
    expect((await t.s.challenges.byId(c.accountId))!.account.userId).toBe(userId);
    expect((await plans()).body.activeEvaluations).toBe(1);
  });

  it.each([
    ['an unknown plan', { planKey: '75K-standard' }],
    ['no plan', {}],
    ['a plan key that is not a string', { planKey: 50 }],
  ])('refuses %s with errorCode 1, creating nothing', async (_, body) => {
    const before = (await t.s.challenges.listOwned(userId)).length;
    expect((await start(body)).body).toEqual({ success: false, errorCode: 1, errorMessage: 'Plan not found' });
    expect((await t.s.challenges.listOwned(userId)).length).toBe(before);
  });

  it('refuses a fourth active evaluation, counts ended and funded ones out, and keeps users apart', async () => {
    while ((await t.s.challenges.activeEvaluationCount(userId)) < limits.userActiveEvaluationsMax) expect((await start({ planKey: '50K-standard' })).body.success).toBe(true);
    const before = (await t.s.challenges.listOwned(userId)).length;
    const refused = await start({ planKey: '50K-standard' });
    expect(refused.body).toEqual({ success: false, errorCode: 2, errorMessage: 'You have 3 evaluations under way, the most one user may have: one must pass, fail or be ended before another starts' });
    expect((await t.s.challenges.listOwned(userId)).length).toBe(before);
    // A funded account (admin-made) does not count; an ended evaluation frees its place.
    await t.s.challenges.create(userId, '50K', 'performance', 'standard');
    expect((await start({ planKey: '50K-standard' })).body.success).toBe(false);
    const first = (await t.s.challenges.listOwned(userId)).find((c) => c.state.phase === 'evaluation' && c.state.status === 'active')!;
    await t.s.challenges.end(first.account.id);
    expect((await start({ planKey: '150K-standard' })).body.challenge.plan.size).toBe('150K');

    // Another user has their own three; four asked at once give three and one refusal (the count and
    // the insert are one step).
    const other = await makeWebUser(t, { email: 'other@example.com' });
    const otherCookie = await webLogin(t, other.email, other.password);
    const both = await Promise.all([1, 2, 3, 4].map(() => start({ planKey: '50K-standard' }, otherCookie)));
    expect(both.filter((r) => r.body.success)).toHaveLength(3);
    expect(both.filter((r) => r.body.errorCode === 2)).toHaveLength(1);
    expect((await plans(otherCookie)).body.activeEvaluations).toBe(3);
  });

  it('is for signed-in Pro users: no cookie 401, the free plan 403', async () => {
    expect((await start({ planKey: '50K-standard' }, null)).status).toBe(401);
    const free = await makeWebUser(t, { email: 'free@example.com', plan: 'free' });
    const freeCookie = await webLogin(t, free.email, free.password);
    const r = await start({ planKey: '50K-standard' }, freeCookie);
    expect(r.status).toBe(403);
    expect((await webCall(t, 'GET', '/api/auth/challenges', { cookie: freeCookie })).body.challenges).toEqual([]);
  });
});
