// History/retrieveBars under the live profile (docs/gateway-profile.md): the bars end at the replay
// clock (the user's live session acted on last), a client's wall-clock window is read on it, bars
// come newest first, `limit` keeps those nearest the end, `includePartialBar` is honoured, weeks and
// months are served, and the gateway's rate (50 per 30 s) applies. The console (spec) reads the same
// bars oldest first, for comparison.
import { describe, expect, it } from 'bun:test';
import { limits } from '../../../src/config.ts';
import { makeApp, webCall, webLogin } from '../../support/app.ts';
import { barsOf, dayOf, secondsOf } from '../../support/bars.ts';

const WALL_MS = Date.UTC(2026, 10, 28, 9, 0, 0);
const DAY_MS = 86_400_000;
const NQ = 'CON.F.US.ENQ.H25';
const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');
/** A Python client's `datetime.now(timezone.utc).isoformat()`. */
const pythonIso = (ms: number) => new Date(ms).toISOString().replace('Z', '000+00:00');

/**
 * A live-profile server on 2026-11-28 with synthetic NQ from 2025-02-01 to 2025-03-07, and the trader's
 * 1 m session of 2025-03-03 jumped to 2025-03-05 15:00 (the session's time S).
 */
async function historyApp() {
  const t = await makeApp({ nowMs: WALL_MS, config: { apiProfile: 'live', dataStartDate: '2025-02-01', dataEndDate: '2025-03-07' } });
  const token = await t.login();
  expect((await t.s.webAuth.setPassword(t.email, 'a long enough password')).ok).toBe(true);
  const cookie = await webLogin(t, t.email, 'a long enough password');
  const started = await t.post('Replay/start', { instrumentSymbol: 'NQ', startDate: '2025-03-03', timeframe: '1m' }, token);
  const accountId = started.body.accountId as number;
  const jumped = await t.post('Replay/jumpTo', { accountId, targetTime: '2025-03-05T15:00:00Z' }, token);
  expect(jumped.body.success).toBe(true);
  return Object.assign(t, { token, cookie, accountId });
}

type HistoryApp = Awaited<ReturnType<typeof historyApp>>;
const S_MS = Date.parse('2025-03-05T15:00:00Z');

async function liveBars(t: HistoryApp, body: Record<string, unknown>): Promise<any[]> {
  const r = await t.post('History/retrieveBars', { contractId: NQ, live: false, unit: 2, unitNumber: 1, ...body }, t.token);
  expect(r.body).toMatchObject({ success: true, errorCode: 0, errorMessage: null });
  return r.body.bars;
}

/** The same bars through the console's cookie (the spec profile: oldest first, as sent). */
async function specBars(t: HistoryApp, body: Record<string, unknown>): Promise<any[]> {
  const r = await webCall(t, 'POST', '/api/sim/History/retrieveBars', { cookie: t.cookie, headers: { origin: 'http://localhost' }, body: { contractId: NQ, unit: 2, unitNumber: 1, ...body } });
  expect(r.body.success).toBe(true);
  return r.body.bars;
}

describe('History/retrieveBars on the replay clock', () => {
  it('"3 days until now" on the wall clock is exactly the bars of the 3 days before the session\'s time, newest first', async () => {
    const t = await historyApp();
    const bars = await liveBars(t, { startTime: pythonIso(WALL_MS - 3 * DAY_MS), endTime: pythonIso(WALL_MS), limit: 20_000, includePartialBar: false });
    const spec = await specBars(t, { startTime: iso(S_MS - 3 * DAY_MS), endTime: iso(S_MS) });
    expect(spec.length).toBeGreaterThan(2000);
    expect(bars).toEqual([...spec].reverse());
    expect(bars[0].t).toBe('2025-03-05T14:59:00Z');
    expect(Date.parse(bars.at(-1).t)).toBeGreaterThanOrEqual(S_MS - 3 * DAY_MS);
    expect(Number.isInteger(bars[0].v)).toBe(true);
  });

  it('never serves a bar after the session\'s time: a future end, or none, ends at it', async () => {
    const t = await historyApp();
    const future = await liveBars(t, { startTime: iso(S_MS - 3_600_000), endTime: iso(WALL_MS + DAY_MS), includePartialBar: true });
    expect(future.length).toBe(60);
    expect(future[0].t).toBe('2025-03-05T14:59:00Z');
    const unbounded = await liveBars(t, { limit: 3 });
    expect(unbounded.map((b) => b.t)).toEqual(['2025-03-05T14:59:00Z', '2025-03-05T14:58:00Z', '2025-03-05T14:57:00Z']);
    // Under the spec (the console) the same unbounded request reads from the start of the data.
    const spec = await specBars(t, { limit: 1 });
    expect(spec[0].t < '2025-02-04').toBe(true);
  });

  it('limit keeps the N bars nearest the end', async () => {
    const t = await historyApp();
    const bars = await liveBars(t, { startTime: iso(WALL_MS - 3 * DAY_MS), endTime: iso(WALL_MS), limit: 5, includePartialBar: false });
    expect(bars.map((b) => b.t)).toEqual(['2025-03-05T14:59:00Z', '2025-03-05T14:58:00Z', '2025-03-05T14:57:00Z', '2025-03-05T14:56:00Z', '2025-03-05T14:55:00Z']);
  });

  it('includePartialBar: true keeps the bar still forming at the session\'s time, false (or absent) drops it', async () => {
    const t = await historyApp();
    expect((await t.post('Replay/step', { accountId: t.accountId, steps: 2 }, t.token)).body.success).toBe(true); // S = 15:02
    const window = { unitNumber: 5, startTime: iso(WALL_MS - DAY_MS), endTime: iso(WALL_MS), limit: 2 };
    const partial = await liveBars(t, { ...window, includePartialBar: true });
    const spec = await specBars(t, { unitNumber: 5, startTime: '2025-03-05T14:55:00Z', endTime: '2025-03-05T15:02:00Z' });
    expect(partial).toEqual([...spec].reverse());
    expect(partial[0].t).toBe('2025-03-05T15:00:00Z');
    const oneMinute = await specBars(t, { startTime: '2025-03-05T15:00:00Z', endTime: '2025-03-05T15:02:00Z' });
    expect(partial[0].v).toBe(oneMinute[0].v + oneMinute[1].v);
    const whole = await liveBars(t, { ...window, includePartialBar: false });
    expect(whole.map((b) => b.t)).toEqual(['2025-03-05T14:55:00Z', '2025-03-05T14:50:00Z']);
    const { includePartialBar: _, ...absent } = { ...window, includePartialBar: false };
    expect((await liveBars(t, absent)).map((b) => b.t)).toEqual(['2025-03-05T14:55:00Z', '2025-03-05T14:50:00Z']);
  });

  it('serves week (5) and month (6) bars: ISO weeks and UTC months up to the session\'s time', async () => {
    const t = await historyApp();
    const weeks = await liveBars(t, { unit: 5, unitNumber: 1, limit: 2, includePartialBar: true });
    expect(weeks.map((b) => b.t)).toEqual(['2025-03-03T00:00:00Z', '2025-02-24T00:00:00Z']);
    // The forming week is the week's days up to the session's time.
    const days = await specBars(t, { unit: 4, unitNumber: 1, startTime: '2025-03-03T00:00:00Z', endTime: iso(S_MS) });
    expect(days.length).toBe(3);
    expect(weeks[0]).toEqual({
      t: '2025-03-03T00:00:00Z',
      o: days[0].o,
      h: Math.max(...days.map((d) => d.h)),
      l: Math.min(...days.map((d) => d.l)),
      c: days[2].c,
      v: days.reduce((sum, d) => sum + d.v, 0),
    });
    const wholeWeek = await liveBars(t, { unit: 5, unitNumber: 1, limit: 1, includePartialBar: false });
    expect(wholeWeek).toEqual([weeks[1]]);
    const months = await liveBars(t, { unit: 6, unitNumber: 1, limit: 2, includePartialBar: true });
    expect(months.map((b) => b.t)).toEqual(['2025-03-01T00:00:00Z', '2025-02-01T00:00:00Z']);
    expect((await liveBars(t, { unit: 6, unitNumber: 1, includePartialBar: false })).map((b) => b.t)).toEqual(['2025-02-01T00:00:00Z']);
  });

  it('refuses with the spec\'s codes, which are the gateway\'s; weeks stay refused under the spec', async () => {
    const t = await historyApp();
    const rows: [Record<string, unknown>, number, string][] = [
      [{ unit: 5, unitNumber: 2 }, 2, 'Custom timeframes are currently disabled'],
      [{ unit: 6, unitNumber: 13 }, 3, 'Unit number invalid'],
      [{ unit: 7, unitNumber: 1 }, 2, 'Unit invalid'],
      [{ limit: 0 }, 4, 'Limit invalid'],
      [{ endTime: 'yesterday' }, 2, 'Invalid time range'],
    ];
    for (const [over, errorCode, errorMessage] of rows) {
      const r = await t.post('History/retrieveBars', { contractId: NQ, unit: 2, unitNumber: 1, ...over }, t.token);
      expect([over, r.body]).toEqual([over, { success: false, errorCode, errorMessage }]);
    }
    const spec = await webCall(t, 'POST', '/api/sim/History/retrieveBars', { cookie: t.cookie, headers: { origin: 'http://localhost' }, body: { contractId: NQ, unit: 5, unitNumber: 1 } });
    expect(spec.body).toEqual({ success: false, errorCode: 2, errorMessage: 'Unit invalid' });
  });
});

describe('History/retrieveBars rate under the live profile', () => {
  it('is the gateway\'s, 50 requests per 30 s: a bot paced for the gateway is not refused at the spec\'s 21st', async () => {
    const t = await makeApp({ nowMs: WALL_MS, config: { apiProfile: 'live', dataStartDate: '2024-01-08', dataEndDate: '2024-01-09' } });
    const open = secondsOf('2025-03-03T14:30:00Z');
    t.s.chunks.put('NQ', dayOf('2025-03-03T00:00:00Z'), 'import', barsOf(Array.from({ length: 10 }, (_, i) => [open + i * 60, 80_000, 80_000, 80_000, 80_000, 1])));
    const token = await t.login();
    const ask = (limit: number) => t.post('History/retrieveBars', { contractId: NQ, unit: 2, unitNumber: 1, startTime: '2025-03-03T14:30:00Z', endTime: '2025-03-03T14:40:00Z', limit }, token);
    expect(limits.historyLiveRequestsPerWindowMax).toBe(50);
    for (let i = 1; i <= 50; i++) expect((await ask(i)).status).toBe(200);
    const refused = await ask(51);
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ success: false, errorCode: 429, errorMessage: 'Too many requests' });
    const retryAfterS = Number(refused.headers.get('retry-after'));
    expect(retryAfterS).toBeGreaterThan(0);
    expect(retryAfterS).toBeLessThanOrEqual(30);
    t.clock.advance(limits.historyLiveWindowMs);
    expect((await ask(51)).status).toBe(200);
  });
});
