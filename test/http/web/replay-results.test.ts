// GET /api/auth/replay-results/:accountId: a session's statistics (the earlier family's Replay/end
// `results`) for the console, live or ended, for the user's own accounts only.
import { describe, expect, it } from 'bun:test';
import { webCall, webLogin } from '../../support/app.ts';
import { replayApp, startSession } from '../../support/replay.ts';

const PASSWORD = 'correct horse battery staple';

async function setup() {
  // NQ: 100, then up 2 points a bar for a winning long, then down for a losing one.
  const t = await replayApp([100, 100, 102, 104, 104, 100, 98, 98, 98, 98], { historyClose: 100 });
  await t.s.webAuth.setPassword(t.email, PASSWORD);
  const cookie = await webLogin(t, t.email, PASSWORD);
  return { t, cookie };
}

describe('GET /api/auth/replay-results/:accountId', () => {
  it('states round trips, win rate, averages, largest, profit factor and drawdown, and keeps them after the end', async () => {
    const { t, cookie } = await setup();
    const sess = await startSession(t);
    const place = (side: number) => t.post('Order/place', { accountId: sess.accountId, contractId: sess.contractId, type: 2, side, size: 1 }, t.token);
    const step = () => t.post('Replay/step', { accountId: sess.accountId, steps: 1 }, t.token);
    await step();
    await place(0); // long from the first bar's close
    await step();
    await step();
    await place(1); // out with a gain
    await step();
    await place(0); // long again
    await step();
    await step();
    await place(1); // out with a loss
    await step();
    const live = await webCall(t, 'GET', `/api/auth/replay-results/${sess.accountId}`, { cookie });
    expect(live.status).toBe(200);
    expect(live.body).toMatchObject({ success: true, accountId: sess.accountId, canTrade: true });
    expect(live.body.results.totalTrades).toBe(2);
    expect(live.body.results.winningTrades).toBe(1);
    expect(live.body.results.losingTrades).toBe(1);
    expect(live.body.results.winRate).toBe(50);
    expect(live.body.results.largestWin).toBe(live.body.results.averageWin);
    expect(live.body.results.largestLoss).toBe(live.body.results.averageLoss);
    expect(live.body.results.profitFactor).toBe(Math.round((live.body.results.averageWin / -live.body.results.averageLoss) * 100) / 100);
    expect(live.body.results.maxDrawdown).toBeLessThan(0);

    const end = await t.post('Replay/end', { accountId: sess.accountId }, t.token);
    expect(end.body.success).toBe(true);
    const after = await webCall(t, 'GET', `/api/auth/replay-results/${sess.accountId}`, { cookie });
    expect(after.body).toMatchObject({ canTrade: false, results: live.body.results });
    expect(after.body.results.finalBalance).toBe(end.body.account.balance);
    // The same figures as the earlier family's Replay/end results read from the same service.
    expect(after.body.results.totalPnl).toBe(Math.round((end.body.account.balance - 50_000) * 100) / 100);
  });

  it('reads another user’s account, or no account, as not found', async () => {
    const { t, cookie } = await setup();
    const other = await t.s.users.create({ email: 'other@example.com', plan: 'pro' });
    if (!other.ok) throw new Error('setup');
    const theirs = await t.post('Auth/loginKey', { userName: 'other@example.com', apiKey: other.value.apiKey });
    const sess = await startSession(t, theirs.body.token);
    for (const id of [String(sess.accountId), '999999', 'abc']) {
      const r = await webCall(t, 'GET', `/api/auth/replay-results/${id}`, { cookie });
      expect(r.status).toBe(200);
      expect(r.body).toEqual({ success: false, errorCode: 1, errorMessage: 'Account not found' });
    }
    expect((await webCall(t, 'GET', `/api/auth/replay-results/${sess.accountId}`)).status).toBe(401);
  });
});
