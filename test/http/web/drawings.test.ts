// A replay session's chart drawings: GET and PUT /api/auth/replay-sessions/:accountId/drawings, for
// the user's own sessions (live or ended) only; replaced whole, bounded, and refused whole.
import { beforeAll, describe, expect, it } from 'bun:test';
import { DrawingsStore } from '../../../src/store/drawings.ts';
import { ReplayStore } from '../../../src/store/replay.ts';
import { webCall, webLogin } from '../../support/app.ts';
import { type ReplayTestApp, replayApp, type Session, startSession } from '../../support/replay.ts';

const PASSWORD = 'correct horse battery staple';

let t: ReplayTestApp;
let cookie: string;
let sess: Session;

beforeAll(async () => {
  t = await replayApp([100, 101, 102, 103], { historyClose: 100 });
  await t.s.webAuth.setPassword(t.email, PASSWORD);
  cookie = await webLogin(t, t.email, PASSWORD);
  sess = await startSession(t);
});

const path = (accountId: number | string) => `/api/auth/replay-sessions/${accountId}/drawings`;
const read = (accountId: number | string, c: string | null = cookie) => webCall(t, 'GET', path(accountId), { cookie: c });
const put = (accountId: number | string, body: unknown, c: string | null = cookie) => webCall(t, 'PUT', path(accountId), { cookie: c, body });

const TREND = { startTime: '2025-03-03T14:31:00Z', startPrice: 100.5, endTime: '2025-03-03T14:33:00Z', endPrice: 103.25 };
const OK = { success: true, errorCode: 0, errorMessage: null };
// The kinds beside the lines (issue 30): none.
const NO_SHAPES = { rectangles: [], rays: [], fibRetracements: [], texts: [] };

describe('GET and PUT /api/auth/replay-sessions/:accountId/drawings', () => {
  it('answers no lines for a session without drawings', async () => {
    const r = await read(sess.accountId);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ ...OK, accountId: sess.accountId, horizontalLines: [], trendLines: [], ...NO_SHAPES, updatedAt: null });
  });

  it('replaces the lines whole, keeps prices at the nearest tick and times to the second, and reads them back', async () => {
    const updatedAt = new Date(t.clock.nowMs()).toISOString();
    const w = await put(sess.accountId, { horizontalLines: [{ price: 101.75 }, { price: 99.1 }], trendLines: [{ ...TREND, endTime: '2025-03-03T14:33:00.700Z' }] });
    // NQ's tick is 0.25: 99.1 is kept at 99.
    const want = { ...OK, accountId: sess.accountId, horizontalLines: [{ price: 101.75 }, { price: 99 }], trendLines: [TREND], ...NO_SHAPES, updatedAt };
    expect(w.body).toEqual(want);
    expect((await read(sess.accountId)).body).toEqual(want);
    expect(await new DrawingsStore(t.s.sql).of(sess.accountId)).toEqual({
      hlinesTicks: [407, 396],
      trends: [{ t1S: Date.parse(TREND.startTime) / 1000, p1Ticks: 402, t2S: Date.parse(TREND.endTime) / 1000, p2Ticks: 413 }],
      updatedMs: t.clock.nowMs(),
    });
    // A second write replaces the first: the horizontal lines are gone.
    expect((await put(sess.accountId, { horizontalLines: [], trendLines: [TREND] })).body.horizontalLines).toEqual([]);
    expect((await read(sess.accountId)).body).toMatchObject({ horizontalLines: [], trendLines: [TREND] });
  });

  it('accepts exactly 200 lines in all; empty lists clear them', async () => {
    const hs = Array.from({ length: 150 }, (_, i) => ({ price: 100 + i / 4 }));
    const ts = Array.from({ length: 50 }, () => TREND);
    const r = await put(sess.accountId, { horizontalLines: hs, trendLines: ts });
    expect(r.body.success).toBe(true);
    expect(r.body.horizontalLines).toEqual(hs);
    expect(r.body.trendLines).toHaveLength(50);
    expect((await put(sess.accountId, { horizontalLines: [], trendLines: [] })).body).toMatchObject({ ...OK, horizontalLines: [], trendLines: [] });
    expect((await read(sess.accountId)).body.updatedAt).toBeNull();
    expect(await new DrawingsStore(t.s.sql).of(sess.accountId)).toBeNull();
  });

  const INVALID = 'Invalid drawings: horizontalLines holds {price}, trendLines {startTime, startPrice, endTime, endPrice}; prices are finite numbers, times ISO 8601';
  it.each([
    ['201 lines', { horizontalLines: Array.from({ length: 101 }, () => ({ price: 100 })), trendLines: Array.from({ length: 100 }, () => TREND) }, 3, 'Too many drawings (at most 200 lines)'],
    ['a price that is not a number', { horizontalLines: [{ price: '100' }], trendLines: [] }, 2, INVALID],
    ['a price past the largest finite number', '{"horizontalLines":[{"price":1e999}],"trendLines":[]}', 2, INVALID],
    ['a price too large for ticks', { horizontalLines: [{ price: 1e300 }], trendLines: [] }, 2, INVALID],
    ['a time that is not ISO 8601', { horizontalLines: [], trendLines: [{ ...TREND, endTime: '3/3/2025 2:33 PM' }] }, 2, INVALID],
    ['a trend line without its end', { horizontalLines: [], trendLines: [{ startTime: TREND.startTime, startPrice: 100 }] }, 2, INVALID],
    ['no trend lines field', { horizontalLines: [] }, 2, INVALID],
    ['lines that are not a list', { horizontalLines: { price: 100 }, trendLines: [] }, 2, INVALID],
  ])('refuses %s, changing nothing', async (_, body, errorCode, errorMessage) => {
    await put(sess.accountId, { horizontalLines: [{ price: 102 }], trendLines: [TREND] });
    const before = await new DrawingsStore(t.s.sql).of(sess.accountId);
    const r = await put(sess.accountId, body);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ success: false, errorCode, errorMessage });
    expect(await new DrawingsStore(t.s.sql).of(sess.accountId)).toEqual(before);
  });
});

describe('CSRF', () => {
  it('a PUT that is not typed application/json is refused with 403 and writes nothing, with or without Origin', async () => {
    await put(sess.accountId, { horizontalLines: [{ price: 101 }], trendLines: [] });
    const body = JSON.stringify({ horizontalLines: [{ price: 50 }], trendLines: [] });
    for (const headers of [{ 'content-type': 'text/plain' }, { 'content-type': 'text/plain;charset=UTF-8', origin: 'http://localhost' }, {}] as Record<string, string>[]) {
      const res = await t.app.handle(new Request(`http://localhost${path(sess.accountId)}`, { method: 'PUT', headers: { cookie: `rd_session=${cookie}`, ...headers }, body }));
      expect([res.status, await res.json()]).toEqual([403, { success: false, errorCode: 403, errorMessage: 'Cross-site request refused' }]);
    }
    expect((await read(sess.accountId)).body.horizontalLines).toEqual([{ price: 101 }]);
  });
});

describe('isolation', () => {
  it("reads and writes another user's session, an unknown one or a bad id as not found; no cookie is 401", async () => {
    const other = await t.s.users.create({ email: 'other@example.com', plan: 'pro', password: PASSWORD });
    if (!other.ok) throw new Error('setup');
    const theirs = await startSession(t, (await t.post('Auth/loginKey', { userName: 'other@example.com', apiKey: other.value.apiKey })).body.token);
    const otherCookie = await webLogin(t, 'other@example.com', PASSWORD);
    expect((await put(theirs.accountId, { horizontalLines: [{ price: 50 }], trendLines: [] }, otherCookie)).body.success).toBe(true);
    await put(sess.accountId, { horizontalLines: [{ price: 102 }], trendLines: [] });
    const NOT_FOUND = { success: false, errorCode: 1, errorMessage: 'Replay session not found' };
    for (const id of [String(theirs.accountId), '999999', 'abc']) {
      expect((await read(id)).body).toEqual(NOT_FOUND);
      expect((await put(id, { horizontalLines: [{ price: 1 }], trendLines: [] })).body).toEqual(NOT_FOUND);
    }
    expect((await read(theirs.accountId, otherCookie)).body.horizontalLines).toEqual([{ price: 50 }]);
    expect((await read(sess.accountId, otherCookie)).body).toEqual(NOT_FOUND);
    expect((await read(sess.accountId)).body.horizontalLines).toEqual([{ price: 102 }]);
    expect((await read(sess.accountId, null)).status).toBe(401);
    expect((await put(sess.accountId, { horizontalLines: [], trendLines: [] }, null)).status).toBe(401);
  });

  it('keeps the drawings of an ended session, and deletes them with it when it is pruned', async () => {
    await put(sess.accountId, { horizontalLines: [{ price: 104 }], trendLines: [TREND] });
    expect((await t.post('Replay/end', { accountId: sess.accountId }, t.token)).body.success).toBe(true);
    expect((await read(sess.accountId)).body).toMatchObject({ ...OK, horizontalLines: [{ price: 104 }], trendLines: [TREND] });
    await t.s.sql.transaction(() => new ReplayStore(t.s.sql).deleteEnded(sess.accountId));
    expect(await new DrawingsStore(t.s.sql).of(sess.accountId)).toBeNull();
  });
});
