// GET /api/auth/challenges: the user's challenge accounts with the rule figures the console shows
// beside the spec's propFirm snapshot, read from the same stored state the rules write.
import { describe, expect, it } from 'bun:test';
import { webCall, webLogin } from '../../support/app.ts';
import { challengeApp, createChallenge, dayRows, ENTRY, market, startOn } from '../../support/challenge.ts';

const PASSWORD = 'correct horse battery staple';

async function setup() {
  const t = await challengeApp([...dayRows('2025-03-04', ENTRY + 10), ...dayRows('2025-03-05', ENTRY - 150)]);
  await t.s.webAuth.setPassword(t.email, PASSWORD);
  const cookie = await webLogin(t, t.email, PASSWORD);
  return { t, cookie };
}

describe('GET /api/auth/challenges', () => {
  it('lists a fresh 50K evaluation with its floors, target and days, and no other user’s accounts', async () => {
    const { t, cookie } = await setup();
    const c = await createChallenge(t);
    const other = await t.s.users.create({ email: 'other@example.com', plan: 'pro' });
    if (!other.ok) throw new Error('setup');
    await t.s.challenges.create((await t.s.users.list()).find((u) => u.email === 'other@example.com')!.id, '100K', 'evaluation', 'standard');
    const r = await webCall(t, 'GET', '/api/auth/challenges', { cookie });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      challenges: [
        {
          accountId: c,
          name: `CHALLENGE-50K-${c}`,
          status: 'active',
          phase: 'evaluation',
          isFunded: false,
          plan: { key: '50K-standard', size: '50K', policy: 'standard', dailyLossMode: 'hard' },
          startingBalance: 50_000,
          balance: 50_000,
          profit: 0,
          profitTarget: 3_000,
          targetBalance: 53_000,
          trailingFloor: 48_000,
          drawdownLocked: false,
          dailyLossLimit: 1_000,
          dailyLossFloor: null,
          effectiveFloor: 48_000,
          bestDay: 0,
          consistencyPct: 50,
          tradingDays: 0,
          minTradingDays: 2,
          maxContracts: 5,
          pausedForDay: false,
          liveSession: false,
          lastSimulatedTime: null,
          outcome: null,
        },
      ],
      success: true,
      errorCode: 0,
      errorMessage: null,
    });
  });

  it('follows a session: a live session and today’s daily-loss floor, then the violation with the message the step reported', async () => {
    const { t, cookie } = await setup();
    const c = await createChallenge(t);
    const x = await startOn(t, c, '2025-03-04');
    await t.post('Replay/step', { accountId: x.accountId, steps: 1 }, t.token);
    await market(t, x, 1);
    await t.post('Replay/step', { accountId: x.accountId, steps: 1 }, t.token);
    const mid = (await webCall(t, 'GET', '/api/auth/challenges', { cookie })).body.challenges[0];
    expect(mid.liveSession).toBe(true);
    expect(mid.dailyLossFloor).toBe(49_000);
    expect(mid.effectiveFloor).toBe(49_000);
    expect(mid.tradingDays).toBe(1);

    const big = await t.post('Order/place', { accountId: x.accountId, contractId: x.contractId, type: 2, side: 0, size: 4 }, t.token);
    expect(big.body.success).toBe(true);
    const r = await t.post('Replay/step', { accountId: x.accountId, steps: 10 }, t.token);
    expect(r.body.violations.length).toBe(1);
    const after = (await webCall(t, 'GET', '/api/auth/challenges', { cookie })).body.challenges[0];
    expect(after.status).toBe('violated');
    expect(after.liveSession).toBe(false);
    expect(after.outcome).toEqual({
      kind: 'violation',
      rule: r.body.violations[0].rule,
      message: r.body.violations[0].message,
      time: r.body.violations[0].time,
      phase: 'evaluation',
    });
    expect(after.balance).toBe(r.body.account.balance);
  });

  it('answers 401 without a session', async () => {
    const { t } = await setup();
    const r = await webCall(t, 'GET', '/api/auth/challenges', {});
    expect(r.status).toBe(401);
  });
});
