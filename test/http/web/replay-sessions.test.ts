// GET /api/auth/replay-sessions/:accountId: what a live session is, so a browser that did not start
// it can open it (instrument, timeframe, span, clock, progress, history, playback).
import { describe, expect, it } from 'bun:test';
import { webCall, webLogin } from '../../support/app.ts';
import { challengeApp, createChallenge, dayRows, ENTRY, startOn } from '../../support/challenge.ts';
import { barsOf, dayOf, secondsOf } from '../../support/bars.ts';
import { DAY, ES_CONTRACT, NQ_CONTRACT, replayApp, startSession, ticks } from '../../support/replay.ts';

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
      historyStartTime: '2025-03-02T23:59:00Z',
      playing: false,
      challenge: null,
      startingBalance: 50_000,
    });
  });

  it('names every instrument of a session started with instrumentSymbols, in the order started (the first is `contract`)', async () => {
    const { t, cookie } = await setup();
    t.s.chunks.put('ES', dayOf(`${DAY}T00:00:00Z`), 'import', barsOf([[secondsOf(`${DAY}T14:31:00Z`), ticks(5000), ticks(5000), ticks(5000), ticks(5000), 1]]));
    const started = await t.post('Replay/start', { instrumentSymbols: ['ES', 'NQ'], startDate: DAY, timeframe: '1m' }, t.token);
    expect(started.body.success).toBe(true);
    const r = await webCall(t, 'GET', `/api/auth/replay-sessions/${started.body.accountId}`, { cookie });
    const es = { id: ES_CONTRACT, name: 'ESH5', description: 'E-mini S&P 500', tickSize: 0.25, tickValue: 12.5, symbolId: 'ES' };
    const nq = { id: NQ_CONTRACT, name: 'NQH5', description: 'E-mini NASDAQ-100', tickSize: 0.25, tickValue: 5, symbolId: 'NQ' };
    expect([r.body.contract, r.body.instruments]).toEqual([es, [es, nq]]);
  });

  it('says where the chart history begins: the first of its bars (at most 500, within the 30 days before the start), as History reads them', async () => {
    const { t, cookie } = await setup();
    const p = ticks(100);
    const put = (day: string, times: number[]) => t.s.chunks.put('NQ', dayOf(`${day}T00:00:00Z`), 'import', barsOf(times.map((s) => [s, p, p, p, p, 1])));
    // One bar 47 days before the start (outside the window), one at 12:03 on 2025-02-10, and 600 a minute from 10:00 on 2025-03-02 (the 23:59 one is replaced).
    put('2025-01-15', [secondsOf('2025-01-15T12:00:00Z')]);
    put('2025-02-10', [secondsOf('2025-02-10T12:03:00Z')]);
    put('2025-03-02', Array.from({ length: 600 }, (_, i) => secondsOf('2025-03-02T10:00:00Z') + i * 60));
    const opened = async (timeframe: string, unitNumber: number) => {
      const started = await t.post('Replay/start', { instrumentSymbol: 'NQ', startDate: DAY, timeframe }, t.token);
      const info = (await webCall(t, 'GET', `/api/auth/replay-sessions/${started.body.accountId}`, { cookie })).body;
      const history = await t.post('History/retrieveBars', { contractId: NQ_CONTRACT, unit: 2, unitNumber, startTime: info.historyStartTime, endTime: info.startTime }, t.token);
      return { info, times: history.body.bars.map((b: { t: string }) => b.t) as string[] };
    };
    // 1 m: the last 500 of the 600 bars, from 10:00 + 100 min.
    const m1 = await opened('1m', 1);
    expect([m1.info.historyBars, m1.info.historyStartTime]).toEqual([500, '2025-03-02T11:40:00Z']);
    expect([m1.times.length, m1.times[0], m1.times.at(-1)]).toEqual([500, '2025-03-02T11:40:00Z', '2025-03-02T19:59:00Z']);
    // 5 m: 120 buckets on 2025-03-02 and the one of 12:03 on 2025-02-10, which opens at 12:00; not the January bar.
    const m5 = await opened('5m', 5);
    expect([m5.info.historyBars, m5.info.historyStartTime]).toEqual([121, '2025-02-10T12:00:00Z']);
    expect([m5.times.length, m5.times[0]]).toEqual([121, '2025-02-10T12:00:00Z']);
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
