// POST /api/auth/replay-sessions/:accountId/bars: the console's read of a live session's bars up to
// its clock, on its own budget: History's rate limit stays whole however often the desk reads
// (issue 30, defect 1).
import { describe, expect, it } from 'bun:test';
import { limits } from '../../../src/config.ts';
import { webCall, webLogin } from '../../support/app.ts';
import { DAY, NQ_CONTRACT, replayApp, startSession } from '../../support/replay.ts';
import { barsOf, dayOf, secondsOf } from '../../support/bars.ts';

const PASSWORD = 'correct horse battery staple';

async function setup() {
  const t = await replayApp([100, 101, 102, 103, 104, 105], { historyClose: 99 });
  await t.s.webAuth.setPassword(t.email, PASSWORD);
  const cookie = await webLogin(t, t.email, PASSWORD);
  const sess = await startSession(t);
  const bars = (body: unknown) => webCall(t, 'POST', `/api/auth/replay-sessions/${sess.accountId}/bars`, { cookie, body });
  return { t, sess, bars };
}

const bar = (hhmm: string, p: number) => ({ t: `${DAY}T${hhmm}:00Z`, o: p, h: p, l: p, c: p, v: 1 });

describe('POST /api/auth/replay-sessions/:accountId/bars', () => {
  it('answers the chart history and the played bars up to the clock, never a bar past it', async () => {
    const { t, sess, bars } = await setup();
    const empty = await bars({ after: null });
    expect(empty.body).toEqual({
      success: true, errorCode: 0, errorMessage: null,
      currentTime: `${DAY}T00:00:00Z`, currentIndex: 0, totalBars: 6, complete: true,
      bars: [{ t: '2025-03-02T23:59:00Z', o: 99, h: 99, l: 99, c: 99, v: 1 }],
    });
    await t.post('Replay/jumpTo', { accountId: sess.accountId, targetTime: `${DAY}T14:33:00Z` }, t.token);
    const r = await bars({ after: '2025-03-02T23:59:00Z' });
    expect(r.body).toMatchObject({ currentTime: `${DAY}T14:33:00Z`, currentIndex: 3, totalBars: 6, complete: true });
    expect(r.body.bars).toEqual([bar('14:30', 100), bar('14:31', 101), bar('14:32', 102)]);
    const paged = await bars({ after: `${DAY}T14:30:00Z`, limit: 1 });
    expect([paged.body.bars, paged.body.complete]).toEqual([[bar('14:31', 101)], false]);
  });

  it('has its own budget: History’s requests stay whole after more console reads than History allows', async () => {
    const { t, sess, bars } = await setup();
    for (let i = 0; i < limits.historyRequestsPerWindowMax + 5; i++) {
      const r = await bars({ after: null });
      expect(r.body.success).toBe(true);
    }
    const h = await t.post('History/retrieveBars', { contractId: NQ_CONTRACT, unit: 2, unitNumber: 1, startTime: `${DAY}T00:00:00Z`, endTime: `${DAY}T23:00:00Z` }, t.token);
    expect(h.body.success).toBe(true);
    expect(sess.accountId).toBeGreaterThan(0);
  });

  it('refuses a caller without the session cookie, an unreadable time, and reads past its own rate', async () => {
    const { t, sess, bars } = await setup();
    const other = await webCall(t, 'POST', `/api/auth/replay-sessions/${sess.accountId + 1000}/bars`, { body: {}, cookie: null });
    expect(other.status).toBe(401);
    expect((await bars({ after: 'yesterday' })).body).toMatchObject({ success: false, errorCode: 2, errorMessage: 'after must be an ISO 8601 time or null' });
    let last = await bars({});
    for (let i = 0; i < limits.consoleSessionBarsRequestsPerWindowMax && last.status !== 429; i++) last = await bars({});
    expect(last.status).toBe(429);
  });
});

describe('POST /api/auth/replay-sessions/:accountId/bars with a symbol', () => {
  it('reads another instrument of a session over several up to the clock; a symbol outside the session is refused', async () => {
    const t = await replayApp([100, 101, 102, 103]);
    t.s.chunks.put('ES', dayOf(`${DAY}T00:00:00Z`), 'import', barsOf([[secondsOf(`${DAY}T14:31:00Z`), 20_000, 20_004, 19_996, 20_002, 3]]));
    await t.s.webAuth.setPassword(t.email, PASSWORD);
    const cookie = await webLogin(t, t.email, PASSWORD);
    const start = await t.post('Replay/start', { instrumentSymbols: ['NQ', 'ES'], startDate: DAY, timeframe: '1m' }, t.token);
    const accountId = start.body.accountId;
    const bars = (body: unknown) => webCall(t, 'POST', `/api/auth/replay-sessions/${accountId}/bars`, { cookie, body });
    expect((await bars({ after: null, symbol: 'ES' })).body.bars).toEqual([]);
    await t.post('Replay/step', { accountId, steps: 2 }, t.token);
    const es = await bars({ after: null, symbol: 'ES' });
    expect(es.body).toMatchObject({ currentTime: `${DAY}T14:32:00Z`, currentIndex: 2, complete: true });
    expect(es.body.bars).toEqual([{ t: `${DAY}T14:31:00Z`, o: 5000, h: 5001, l: 4999, c: 5000.5, v: 3 }]);
    const gc = await bars({ after: null, symbol: 'GC' });
    expect([gc.body.success, gc.body.errorCode, gc.body.errorMessage]).toEqual([false, 4, 'symbol must name an instrument of this session, or be null']);
  });
});
