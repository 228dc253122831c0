// Drawings beside the lines (issue 30): rectangles, horizontal rays, Fibonacci retracements and text
// notes through PUT and GET /api/auth/replay-sessions/:accountId/drawings, each kind's fields
// refused with its own row; and the scope: a drawing kept for the instrument is listed with every
// session of that user on that instrument, never another instrument's or another user's.
import { beforeAll, describe, expect, it } from 'bun:test';
import { DrawingsStore } from '../../../src/store/drawings.ts';
import { webCall, webLogin } from '../../support/app.ts';
import { barsOf, dayOf, secondsOf } from '../../support/bars.ts';
import { DAY, OPEN_S, type ReplayTestApp, replayApp, type Session, startSession } from '../../support/replay.ts';

// The first NQ session, its user's cookie, and the app with NQ and ES bars.
let sess: Session;
let cookie: string;
let t: ReplayTestApp;
const PASSWORD = 'correct horse battery staple';

beforeAll(async () => {
  t = await replayApp([100, 101, 102, 103], { historyClose: 100 });
  await t.s.webAuth.setPassword(t.email, PASSWORD);
  // ES bars on the same day: a session of another instrument.
  t.s.chunks.put('ES', dayOf(`${DAY}T00:00:00Z`), 'import', barsOf([0, 1, 2].map((i) => [OPEN_S + i * 60, 20_000, 20_004, 19_996, 20_000, 1])));
  [cookie, sess] = await Promise.all([webLogin(t, t.email, PASSWORD), startSession(t)]);
});

const path = (accountId: number) => `/api/auth/replay-sessions/${accountId}/drawings`;
const read = (accountId: number, c = cookie) => webCall(t, 'GET', path(accountId), { cookie: c });
const put = (accountId: number, body: unknown, c = cookie) => webCall(t, 'PUT', path(accountId), { cookie: c, body });

const OK = { success: true, errorCode: 0, errorMessage: null };
const T1 = '2025-03-03T14:31:00Z';
const T2 = '2025-03-03T14:33:00Z';
const RECT = { startTime: T1, startPrice: 103.25, endTime: T2, endPrice: 100.5 };
const RAY = { time: T1, price: 101.5 };
const FIB = { startTime: T1, startPrice: 100, endTime: T2, endPrice: 104 };
const NOTE = { time: T2, price: 102.25, text: 'Failed breakout' };
const NONE = { horizontalLines: [], trendLines: [], rectangles: [], rays: [], fibRetracements: [], texts: [] };
const s = (iso: string) => secondsOf(iso);

describe('rectangles, rays, Fibonacci retracements and notes', () => {
  it('keeps each kind at the tick and the second, trims a note, and reads them back', async () => {
    const body = {
      ...NONE,
      rectangles: [{ ...RECT, endPrice: 100.6 }],
      rays: [{ ...RAY, time: '2025-03-03T14:31:00.900Z' }],
      fibRetracements: [FIB],
      texts: [{ ...NOTE, text: '  Failed breakout \n' }],
    };
    const want = { ...OK, accountId: sess.accountId, ...NONE, rectangles: [RECT], rays: [RAY], fibRetracements: [FIB], texts: [NOTE], updatedAt: new Date(t.clock.nowMs()).toISOString() };
    expect((await put(sess.accountId, body)).body).toEqual(want);
    expect((await read(sess.accountId)).body).toEqual(want);
    // NQ's tick is 0.25: 100.6 is kept at 100.5 (402 ticks).
    expect(await new DrawingsStore(t.s.sql).of(sess.accountId)).toEqual({
      hlinesTicks: [],
      trends: [],
      rects: [{ t1S: s(T1), p1Ticks: 413, t2S: s(T2), p2Ticks: 402 }],
      rays: [{ tS: s(T1), pTicks: 406 }],
      fibs: [{ t1S: s(T1), p1Ticks: 400, t2S: s(T2), p2Ticks: 416 }],
      texts: [{ tS: s(T2), pTicks: 409, text: 'Failed breakout' }],
      updatedMs: t.clock.nowMs(),
    });
    // Omitting the newer kinds keeps them (a client that knows lines only deletes nothing else)…
    expect((await put(sess.accountId, { horizontalLines: [{ price: 101 }], trendLines: [] })).body).toMatchObject({
      horizontalLines: [{ price: 101 }], rectangles: [RECT], rays: [RAY], fibRetracements: [FIB], texts: [NOTE],
    });
    // …and empty lists clear them.
    expect((await put(sess.accountId, { ...NONE, horizontalLines: [{ price: 101 }] })).body).toMatchObject({ ...NONE, horizontalLines: [{ price: 101 }] });
  });

  const RECT_ERR = [4, 'Invalid drawings: rectangles holds {startTime, startPrice, endTime, endPrice}; prices are finite numbers, times ISO 8601'];
  const RAY_ERR = [5, 'Invalid drawings: rays holds {time, price}; prices are finite numbers, times ISO 8601'];
  const FIB_ERR = [6, 'Invalid drawings: fibRetracements holds {startTime, startPrice, endTime, endPrice}; prices are finite numbers and differ by at least a tick, times ISO 8601'];
  const TEXT_ERR = [7, 'Invalid drawings: texts holds {time, price, text}; text is 1 to 200 characters, prices are finite numbers, times ISO 8601'];
  const SCOPE_ERR = [8, 'Invalid drawings: scope is "session" or "instrument"'];
  it.each([
    ['a rectangle without its second corner', { rectangles: [{ startTime: T1, startPrice: 100 }] }, RECT_ERR],
    ['a rectangle whose time is not ISO 8601', { rectangles: [{ ...RECT, endTime: 'yesterday' }] }, RECT_ERR],
    ['a rectangle price too large for ticks', { rectangles: [{ ...RECT, startPrice: 1e300 }] }, RECT_ERR],
    ['rectangles that are not a list', { rectangles: RECT }, RECT_ERR],
    ['a ray without a time', { rays: [{ price: 100 }] }, RAY_ERR],
    ['a ray whose price is text', { rays: [{ ...RAY, price: '100' }] }, RAY_ERR],
    ['a ray whose time is not ISO 8601', { rays: [{ ...RAY, time: '14:31' }] }, RAY_ERR],
    ['a retracement whose two prices are the same tick', { fibRetracements: [{ ...FIB, endPrice: 100.1 }] }, FIB_ERR],
    ['a retracement whose time is not ISO 8601', { fibRetracements: [{ ...FIB, startTime: 'noon' }] }, FIB_ERR],
    ['a blank note', { texts: [{ ...NOTE, text: '   ' }] }, TEXT_ERR],
    ['a note of 201 characters', { texts: [{ ...NOTE, text: 'x'.repeat(201) }] }, TEXT_ERR],
    ['a note without text', { texts: [{ time: T1, price: 100 }] }, TEXT_ERR],
    ['a note whose time is not ISO 8601', { texts: [{ ...NOTE, time: '3 March' }] }, TEXT_ERR],
    ['a scope that is neither', { rays: [{ ...RAY, scope: 'everywhere' }] }, SCOPE_ERR],
  ])('refuses %s, changing nothing', async (_, fields, [errorCode, errorMessage]) => {
    await put(sess.accountId, { ...NONE, rays: [RAY], texts: [NOTE] });
    const before = await new DrawingsStore(t.s.sql).of(sess.accountId);
    const r = await put(sess.accountId, { ...NONE, ...fields });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ success: false, errorCode, errorMessage });
    expect(await new DrawingsStore(t.s.sql).of(sess.accountId)).toEqual(before);
  });

  it('accepts a note of exactly 200 characters, and counts every kind toward the 200 drawings', async () => {
    expect((await put(sess.accountId, { ...NONE, texts: [{ ...NOTE, text: 'x'.repeat(200) }] })).body.texts[0].text).toHaveLength(200);
    const fifty = <T>(x: T) => Array.from({ length: 50 }, () => x);
    const full = { ...NONE, rectangles: fifty(RECT), rays: fifty(RAY), fibRetracements: fifty(FIB), texts: fifty({ ...NOTE, scope: 'instrument' }) };
    expect((await put(sess.accountId, full)).body.success).toBe(true);
    const over = await put(sess.accountId, { ...full, horizontalLines: [{ price: 100, scope: 'instrument' }] });
    expect(over.body).toEqual({ success: false, errorCode: 3, errorMessage: 'Too many drawings (at most 200 lines)' });
    await put(sess.accountId, NONE);
  });
});

describe('scope: the session or the instrument', () => {
  it("lists the instrument's drawings with every session of this user on it, and only those", async () => {
    const a = await startSession(t);
    const body = { ...NONE, horizontalLines: [{ price: 101, scope: 'instrument' }, { price: 102 }, { price: 99, scope: 'session' }], rays: [{ ...RAY, scope: 'instrument' }] };
    const w = await put(a.accountId, body);
    // The session's own first, then the instrument's; "session" is said by saying nothing.
    expect(w.body).toMatchObject({ ...OK, horizontalLines: [{ price: 102 }, { price: 99 }, { price: 101, scope: 'instrument' }], rays: [{ ...RAY, scope: 'instrument' }] });
    expect(w.body.horizontalLines[0]).toEqual({ price: 102 });

    // The same user's next session of NQ sees the instrument's line and ray, not a's own lines.
    const b = await startSession(t);
    expect((await read(b.accountId)).body).toEqual({ ...OK, accountId: b.accountId, ...NONE, horizontalLines: [{ price: 101, scope: 'instrument' }], rays: [{ ...RAY, scope: 'instrument' }], updatedAt: w.body.updatedAt });

    // A session of ES sees none of them.
    const es = await t.post('Replay/start', { instrumentSymbol: 'ES', startDate: DAY, timeframe: '1m' }, t.token);
    expect(es.body.success).toBe(true);
    expect((await read(es.body.accountId)).body).toMatchObject({ ...OK, ...NONE, updatedAt: null });

    // Another user's NQ session sees none of them either.
    const other = await t.s.users.create({ email: 'scope-other@example.com', plan: 'pro', password: PASSWORD });
    if (!other.ok) throw new Error('setup');
    const theirs = await startSession(t, (await t.post('Auth/loginKey', { userName: 'scope-other@example.com', apiKey: other.value.apiKey })).body.token);
    expect((await read(theirs.accountId, await webLogin(t, 'scope-other@example.com', PASSWORD))).body).toMatchObject({ ...OK, ...NONE, updatedAt: null });

    // b replaces the instrument's drawings (a moved level): a sees the change, and keeps its own.
    await put(b.accountId, { ...NONE, horizontalLines: [{ price: 103.5, scope: 'instrument' }] });
    expect((await read(a.accountId)).body).toMatchObject({ horizontalLines: [{ price: 102 }, { price: 99 }, { price: 103.5, scope: 'instrument' }], rays: [] });
    // Ended, a session still lists them (the journal reopens it).
    expect((await t.post('Replay/end', { accountId: a.accountId }, t.token)).body.success).toBe(true);
    expect((await read(a.accountId)).body.horizontalLines).toEqual([{ price: 102 }, { price: 99 }, { price: 103.5, scope: 'instrument' }]);
  });
  it("a write that names none of the instrument's drawings leaves them; instrumentDrawings: true clears them; over the cap a deletion still goes", async () => {
    const a = await startSession(t);
    const b = await startSession(t);
    await put(a.accountId, { ...NONE, horizontalLines: [{ price: 110, scope: 'instrument' }] });
    // b (a tab that read before a's line, or a client of the two-field contract) writes its own lines only.
    expect((await put(b.accountId, { horizontalLines: [{ price: 111 }], trendLines: [] })).body.horizontalLines).toEqual([{ price: 111 }, { price: 110, scope: 'instrument' }]);
    expect((await read(a.accountId)).body.horizontalLines).toEqual([{ price: 110, scope: 'instrument' }]);
    expect((await put(b.accountId, { ...NONE, instrumentDrawings: 'yes' })).body).toEqual({ success: false, errorCode: 9, errorMessage: 'Invalid drawings: instrumentDrawings is true or false' });
    expect((await put(b.accountId, { ...NONE, horizontalLines: [{ price: 111 }], instrumentDrawings: true })).body.horizontalLines).toEqual([{ price: 111 }]);
    expect((await read(a.accountId)).body.horizontalLines).toEqual([]);

    // 150 of a's own and 150 of the instrument's (each write within 200): a's 300 can still be thinned.
    const lines = (n: number, from: number, scope?: string) => Array.from({ length: n }, (_, i) => ({ price: from + i, ...(scope ? { scope } : {}) }));
    expect((await put(a.accountId, { ...NONE, horizontalLines: lines(150, 1_000) })).body.success).toBe(true);
    expect((await put(b.accountId, { ...NONE, horizontalLines: [...lines(50, 3_000), ...lines(150, 2_000, 'instrument')] })).body.success).toBe(true);
    expect((await read(a.accountId)).body.horizontalLines).toHaveLength(300);
    expect((await put(a.accountId, { ...NONE, horizontalLines: lines(149, 1_000) })).body.horizontalLines).toHaveLength(299);
    const grow = await put(a.accountId, { ...NONE, horizontalLines: lines(151, 1_000) });
    expect(grow.body).toEqual({ success: false, errorCode: 3, errorMessage: 'Too many drawings (at most 200 lines)' });
    expect((await read(a.accountId)).body.horizontalLines).toHaveLength(299);
  });
});
