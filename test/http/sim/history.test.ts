import { describe, expect, it } from 'bun:test';
import { unpack } from 'msgpackr';
import { limits } from '../../../src/config.ts';
import { SIM_POLICY } from '../../../src/http/sim/policy.ts';
import type { HistoryRequest } from '../../../src/service/history.ts';
import { UsageStore } from '../../../src/store/usage.ts';
import { makeApp, type TestApp } from '../../support/app.ts';
import { dayOf, rampBars, secondsOf } from '../../support/bars.ts';

// Known data: 600 one-second NQ bars from 2025-03-03T14:30:00Z, imported; the synthetic span is a
// single far-away week so defaults and windows are predictable.
const START = '2025-03-03T14:30:00Z';
const BASE = 80_000; // ticks: 20,000.00

async function setup(config = {}): Promise<TestApp & { token: string }> {
  const t = await makeApp({ config: { dataStartDate: '2024-01-08', dataEndDate: '2024-01-09', ...config } });
  t.s.chunks.put('NQ', dayOf(START), 'import', rampBars(secondsOf(START), 600, BASE));
  t.s.chunks.put('GC', dayOf(START), 'import', rampBars(secondsOf(START), 60, 20_000, 10));
  return Object.assign(t, { token: await t.login() });
}

const req = (over: Record<string, unknown> = {}) => ({
  contractId: 'CON.F.US.ENQ.H25',
  unit: 2,
  unitNumber: 1,
  startTime: START,
  endTime: '2025-03-03T15:00:00Z',
  ...over,
});

describe('History/retrieveBars: bars', () => {
  it('aggregates 1 s bars into 1 m bars, chronological, exact fields', async () => {
    const t = await setup();
    const r = await t.post('History/retrieveBars', req(), t.token);
    expect(r.body).toMatchObject({ success: true, errorCode: 0, errorMessage: null });
    expect(r.body.bars.length).toBe(10);
    expect(r.body.bars[0]).toEqual({ t: '2025-03-03T14:30:00Z', o: 20000, h: 20015.25, l: 19999.75, c: 20015, v: 60 });
    expect(r.body.bars[9]).toEqual({ t: '2025-03-03T14:39:00Z', o: 20135, h: 20150.25, l: 20134.75, c: 20150, v: 60 });
    const times = r.body.bars.map((b: any) => b.t);
    expect([...times].sort()).toEqual(times);
  });

  it('limit returns the first bars from startTime', async () => {
    const t = await setup();
    const r = await t.post('History/retrieveBars', req({ limit: 3 }), t.token);
    expect(r.body.bars.map((b: any) => b.t)).toEqual(['2025-03-03T14:30:00Z', '2025-03-03T14:31:00Z', '2025-03-03T14:32:00Z']);
  });

  it('a startTime inside a bucket starts at the next bucket (paging never repeats a bar)', async () => {
    const t = await setup();
    const r = await t.post('History/retrieveBars', req({ startTime: '2025-03-03T14:31:00.001Z', limit: 2 }), t.token);
    expect(r.body.bars.map((b: any) => b.t)).toEqual(['2025-03-03T14:32:00Z', '2025-03-03T14:33:00Z']);
  });

  it('endTime is exclusive and the trailing partial bar is included', async () => {
    const t = await setup();
    const r = await t.post('History/retrieveBars', req({ endTime: '2025-03-03T14:32:30Z', includePartialBar: false }), t.token);
    expect(r.body.bars.length).toBe(3);
    expect(r.body.bars[2]).toEqual({ t: '2025-03-03T14:32:00Z', o: 20030, h: 20037.75, l: 20029.75, c: 20037.5, v: 30 });
  });

  it('accepts times with a UTC offset', async () => {
    const t = await setup();
    const r = await t.post('History/retrieveBars', req({ startTime: '2025-03-03T09:35:00-05:00', limit: 1 }), t.token);
    expect(r.body.bars[0].t).toBe('2025-03-03T14:35:00Z');
  });

  it.each([
    [1, 5, START, 120, '2025-03-03T14:30:05Z'],
    [1, 1, START, 600, '2025-03-03T14:30:01Z'],
    [2, 5, START, 2, '2025-03-03T14:35:00Z'],
    [3, 1, '2025-03-03T14:00:00Z', 1, undefined],
    [3, 1, START, 0, undefined], // the 14:00 bucket started before startTime
    [4, 1, '2025-03-03T00:00:00Z', 1, undefined],
  ])('unit %i × %i from %s → %i bars', async (unit, unitNumber, startTime, count, second) => {
    const t = await setup();
    const r = await t.post('History/retrieveBars', req({ unit, unitNumber, startTime }), t.token);
    expect(r.body.bars.length).toBe(count);
    if (count === 1) expect(r.body.bars[0]).toMatchObject({ o: 20000, c: 20150, v: 600 });
    if (second) expect(r.body.bars[1].t).toBe(second);
  });

  it('GC (10 s stored) serves 30 s bars', async () => {
    const t = await setup();
    const r = await t.post('History/retrieveBars', req({ contractId: 'CON.F.US.GCE.J25', unit: 1, unitNumber: 30 }), t.token);
    expect(r.body.bars.length).toBe(20);
    expect(r.body.bars[0]).toEqual({ t: '2025-03-03T14:30:00Z', o: 2000, h: 2000.4, l: 1999.9, c: 2000.3, v: 3 });
  });

  it('scans at most 30 days from startTime for minute bars; the next page continues', async () => {
    const t = await setup();
    const later = '2025-04-07T14:30:00Z'; // 35 days later
    t.s.chunks.put('NQ', dayOf(later), 'import', rampBars(secondsOf(later), 120, BASE));
    const r = await t.post('History/retrieveBars', req({ endTime: null }), t.token);
    expect(r.body.bars.length).toBe(10);
    const next = await t.post('History/retrieveBars', req({ startTime: '2025-04-02T00:00:00Z', endTime: null }), t.token);
    expect(next.body.bars.map((b: any) => b.t)).toEqual(['2025-04-07T14:30:00Z', '2025-04-07T14:31:00Z']);
  });

  it('msgpack clients get the same envelope', async () => {
    const t = await setup();
    const json = await t.post('History/retrieveBars', req(), t.token);
    const res = await t.app.handle(
      new Request('http://localhost/api/sim/History/retrieveBars', {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/x-msgpack', authorization: `Bearer ${t.token}` },
        body: JSON.stringify(req()),
      }),
    );
    expect(res.headers.get('content-type')).toBe('application/x-msgpack');
    expect(unpack(new Uint8Array(await res.arrayBuffer()))).toEqual(json.body);
  });
});

describe('History/retrieveBars: error rows', () => {
  it.each([
    ['missing contractId', { contractId: undefined }, 1, 'Contract not found'],
    ['unknown contractId', { contractId: 'CON.F.US.ZZZ.H25' }, 1, 'Contract not found'],
    ['missing unit', { unit: undefined }, 2, 'Unit invalid'],
    ['week unit', { unit: 5 }, 2, 'Unit invalid'],
    ['month unit', { unit: 6 }, 2, 'Unit invalid'],
    ['string unit', { unit: '2' }, 2, 'Unit invalid'],
    ['unparseable startTime', { startTime: 'yesterday' }, 2, 'Invalid time range'],
    ['unparseable endTime', { endTime: '2025-13-01T00:00:00Z' }, 2, 'Invalid time range'],
    ['numeric startTime', { startTime: 12345 }, 2, 'Invalid time range'],
    ['5 s on a 10 s instrument', { contractId: 'CON.F.US.GCE.J25', unit: 1, unitNumber: 5 }, 2, 'Invalid timeframe for this instrument'],
    ['custom 7 m', { unitNumber: 7 }, 2, 'Custom timeframes are currently disabled'],
    ['custom 2 h', { unit: 3, unitNumber: 2 }, 2, 'Custom timeframes are currently disabled'],
    ['missing unitNumber', { unitNumber: undefined }, 3, 'Unit number invalid'],
    ['unitNumber 0', { unitNumber: 0 }, 3, 'Unit number invalid'],
    ['unitNumber 1.5', { unitNumber: 1.5 }, 3, 'Unit number invalid'],
    ['width past the day scan window', { unit: 4, unitNumber: 366 }, 3, 'Unit number invalid'],
    ['width past the minute scan window', { unit: 2, unitNumber: 43_201 }, 3, 'Unit number invalid'],
    ['limit 0', { limit: 0 }, 4, 'Limit invalid'],
    ['limit -5', { limit: -5 }, 4, 'Limit invalid'],
    ['limit 2.5', { limit: 2.5 }, 4, 'Limit invalid'],
  ])('%s → %i %s', async (_n, over, code, message) => {
    const t = await setup();
    const usage = new UsageStore(t.s.sql);
    const r = await t.post('History/retrieveBars', req(over), t.token);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ success: false, errorCode: code, errorMessage: message });
    expect(await usage.get(1, Math.floor(t.clock.nowMs() / 86_400_000))).toEqual({ bars: 0, sourceBars: 0 });
  });

  it('custom timeframes work when the switch is on', async () => {
    const t = await setup({ customTimeframes: true });
    const r = await t.post('History/retrieveBars', req({ unitNumber: 7 }), t.token);
    expect(r.body.success).toBe(true);
    // 7 m buckets lie on the epoch grid: 14:36:00 is the first boundary after 14:30.
    // The data ends at 14:40, so that one bar is partial: 240 one-second bars.
    expect(r.body.bars.map((b: any) => [b.t, b.v])).toEqual([['2025-03-03T14:36:00Z', 240]]);
  });

  it('a limit above the cap is capped at 20,000', async () => {
    const t = await setup();
    const r = await t.post('History/retrieveBars', req({ unit: 1, limit: 50_000 }), t.token);
    expect(r.body.success).toBe(true);
    expect(r.body.bars.length).toBe(600);
  });

  it('20 requests per minute; the 21st is HTTP 429 with Retry-After; identical requests come from the cache', async () => {
    const t = await setup();
    for (let i = 1; i <= limits.historyRequestsPerWindowMax; i++) {
      const r = await t.post('History/retrieveBars', req({ limit: i }), t.token);
      expect(r.status).toBe(200);
    }
    const cached = await t.post('History/retrieveBars', req({ limit: 1 }), t.token);
    expect(cached.status).toBe(200);
    const r = await t.post('History/retrieveBars', req({ limit: 99 }), t.token);
    expect(r.status).toBe(429);
    expect(r.body).toEqual({ success: false, errorCode: 429, errorMessage: 'Too many requests' });
    expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('a cached identical request is not billed again', async () => {
    const t = await setup();
    const usage = new UsageStore(t.s.sql);
    const today = Math.floor(t.clock.nowMs() / 86_400_000);
    await t.post('History/retrieveBars', req(), t.token);
    expect((await usage.get(1, today)).bars).toBe(10);
    await t.post('History/retrieveBars', req(), t.token);
    expect((await usage.get(1, today)).bars).toBe(10);
    t.clock.advance(limits.historyCacheTtlMs + 1);
    await t.post('History/retrieveBars', req(), t.token);
    expect((await usage.get(1, today)).bars).toBe(20);
  });

  it('the daily bar budget answers HTTP 429 errorCode 429 with the spec message and Retry-After to midnight', async () => {
    const t = await setup();
    const today = Math.floor(t.clock.nowMs() / 86_400_000);
    await new UsageStore(t.s.sql).add(1, today, limits.historyBarsPerDayMax - 5, 0);
    const r = await t.post('History/retrieveBars', req(), t.token);
    expect(r.status).toBe(429);
    expect(r.body).toEqual({ success: false, errorCode: 429, errorMessage: 'Daily data limit reached. Resets at 00:00 UTC.' });
    expect(Number(r.headers.get('retry-after'))).toBe(Math.ceil(((today + 1) * 86_400_000 - t.clock.nowMs()) / 1000));
    const small = await t.post('History/retrieveBars', req({ limit: 5 }), t.token);
    expect(small.body.bars.length).toBe(5);
  });

  it('the daily processing budget answers HTTP 429 with its message', async () => {
    const t = await setup();
    const today = Math.floor(t.clock.nowMs() / 86_400_000);
    await new UsageStore(t.s.sql).add(1, today, 0, 500_000_000);
    const r = await t.post('History/retrieveBars', req(), t.token);
    expect(r.status).toBe(429);
    expect(r.body.errorMessage).toBe('Daily data-processing limit reached. Resets at 00:00 UTC.');
  });

  it('while the contract is being imported: HTTP 503 with Retry-After 30', async () => {
    const t = await setup();
    t.s.chunks.lockImport('NQ', 0, 1);
    const r = await t.post('History/retrieveBars', req(), t.token);
    expect(r.status).toBe(503);
    expect(r.headers.get('retry-after')).toBe('30');
    expect(r.body.success).toBe(false);
    const gc = await t.post('History/retrieveBars', req({ contractId: 'CON.F.US.GCE.J25', unit: 1, unitNumber: 30 }), t.token);
    expect(gc.status).toBe(200);
    t.s.chunks.unlockImport('NQ');
    expect((await t.post('History/retrieveBars', req(), t.token)).status).toBe(200);
  });
});

describe('History/retrieveBars: slices (a long scan lets other requests run)', () => {
  // Seven generated days of NQ 1 s bars read as 30 s bars: tens of milliseconds of work, in slices.
  const long = (): HistoryRequest => ({
    contractId: 'CON.F.US.ENQ.H25',
    unit: 1,
    unitNumber: 30,
    startTime: '2025-03-04T00:00:00Z',
    endTime: '2025-03-14T00:00:00Z',
    limit: 20_000,
  });
  const longSetup = () => setup({ dataStartDate: '2025-03-03', dataEndDate: '2025-03-14' });

  it('yields to the event loop between days and returns the bars the unsliced scan returns', async () => {
    const t = await longSetup();
    let settled = false;
    const sliced = t.s.history.retrieveSliced(1, long(), SIM_POLICY.history, 1).then((r) => ((settled = true), r));
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(false);
    const a = await sliced;
    const b = await t.s.history.retrieve(2, long(), SIM_POLICY.history);
    if (!a.ok || !b.ok) throw new Error('refused');
    expect(a.value.bars.length).toBe(20_000);
    expect(Array.from(a.value.bars.close.subarray(0, 20_000))).toEqual(Array.from(b.value.bars.close.subarray(0, 20_000)));
    expect(Array.from(a.value.bars.time.subarray(0, 20_000))).toEqual(Array.from(b.value.bars.time.subarray(0, 20_000)));
    const today = Math.floor(t.clock.nowMs() / 86_400_000);
    const usage = new UsageStore(t.s.sql);
    expect(await usage.get(1, today)).toEqual(await usage.get(2, today));
  });

  it('a request sent while a long scan runs is answered before the scan ends', async () => {
    const t = await longSetup();
    const order: string[] = [];
    const scan = t.s.history.retrieveSliced(1, long(), SIM_POLICY.history, 1).then((r) => {
      order.push('history');
      return r;
    });
    await t.app.handle(new Request('http://localhost/api/sim/Status/ping'));
    order.push('ping');
    expect((await scan).ok).toBe(true);
    expect(order).toEqual(['ping', 'history']);
  });

  it('an identical request sent while the first scans is served from its result and billed once', async () => {
    const t = await longSetup();
    const today = Math.floor(t.clock.nowMs() / 86_400_000);
    const [a, b] = await Promise.all([t.post('History/retrieveBars', long(), t.token), t.post('History/retrieveBars', long(), t.token)]);
    expect(a.body.bars.length).toBe(20_000);
    expect(b.body).toEqual(a.body);
    expect((await new UsageStore(t.s.sql).get(1, today)).bars).toBe(20_000);
  });
});
