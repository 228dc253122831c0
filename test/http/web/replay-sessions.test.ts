// GET /api/auth/replay-sessions/:accountId: what a live session is, so a browser that did not start
// it can open it (instrument, timeframe, span, clock, progress, history, playback).
import { describe, expect, it } from 'bun:test';
import { webCall, webLogin } from '../../support/app.ts';
import { challengeApp, createChallenge, dayRows, ENTRY, startOn } from '../../support/challenge.ts';
import { DAY, NQ_CONTRACT, replayApp, startSession } from '../../support/replay.ts';

const PASSWORD = 'correct horse battery staple';

async function setup() {
  const t = await replayApp([100, 101, 102, 103, 104, 105], { historyClose: 100 });
  await t.s.webAuth.setPassword(t.email, PASSWORD);
  return { t, cookie: await webLogin(t, t.email, PASSWORD) };
}

describe('GET /api/auth/replay-sessions/:accountId', () => {
  it('states the session’s contract, timeframe, span, clock, progress, history and starting balance', async () => {
    const { t, cookie } = await setup();
    const sess = await startSession(t);
    await t.post('Replay/step', { accountId: sess.accountId, steps: 2 }, t.token);
    const r = await webCall(t, 'GET', `/api/auth/replay-sessions/${sess.accountId}`, { cookie });
    expect(r.status).toBe(200);
    const start = await t.post('Replay/jumpTo', { accountId: sess.accountId, targetTime: '2000-01-01T00:00:00Z' }, t.token);
    expect(r.body).toEqual({
      success: true,
      errorCode: 0,
      errorMessage: null,
      accountId: sess.accountId,
      name: `REPLAY-NQ-1m-${sess.accountId}`,
      contract: { id: NQ_CONTRACT, name: 'NQH5', description: 'E-mini NASDAQ-100', tickSize: 0.25, tickValue: 5, symbolId: 'NQ' },
      timeframe: '1m',
      startTime: `${DAY}T00:00:00Z`,
      endTime: '2025-03-04T00:00:00Z',
      // Two 1 m bars played from 14:30: the clock is the second one's close.
      currentTime: `${DAY}T14:32:00Z`,
      currentIndex: 2,
      totalBars: start.body.totalBars,
      historyBars: 1,
      playing: false,
      challenge: null,
      startingBalance: 50_000,
    });
  });

  it('names the challenge a session trades for, and leaves its starting balance to the challenge', async () => {
    const t = await challengeApp(dayRows('2025-03-04', ENTRY + 10));
    await t.s.webAuth.setPassword(t.email, PASSWORD);
    const cookie = await webLogin(t, t.email, PASSWORD);
    const c = await createChallenge(t);
    const sess = await startOn(t, c, '2025-03-04');
    const r = await webCall(t, 'GET', `/api/auth/replay-sessions/${sess.accountId}`, { cookie });
    expect(r.body).toMatchObject({ success: true, accountId: sess.accountId, challenge: { accountId: c, name: `CHALLENGE-50K-${c}` }, startingBalance: null });
  });

  it('answers the current family’s rows for an ended session, another user’s, or none', async () => {
    const { t, cookie } = await setup();
    const sess = await startSession(t);
    await t.post('Replay/end', { accountId: sess.accountId }, t.token);
    const ended = await webCall(t, 'GET', `/api/auth/replay-sessions/${sess.accountId}`, { cookie });
    expect(ended.body).toEqual({ success: false, errorCode: 1, errorMessage: 'No active replay session for this account' });
    for (const id of ['999999', 'abc']) {
      const r = await webCall(t, 'GET', `/api/auth/replay-sessions/${id}`, { cookie });
      expect(r.body).toEqual({ success: false, errorCode: 1, errorMessage: 'Account not found' });
    }
  });
});
