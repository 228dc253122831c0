// History's large answers are encoded in slices with the event loop free between them (issue 32,
// http/shared/bars.ts barsResponseSliced), and stay byte for byte what the one-go encoder
// (`barsResponse`) writes: 20,000 bars under the spec profile and under the live profile (newest
// first, on the replay clock), JSON and msgpack.

import { describe, expect, it } from 'bun:test';
import { allocBars, reversedBars } from '../../../src/data/bar-columns.ts';
import { findInstrument, type Instrument } from '../../../src/domain/instrument.ts';
import { barsResponse, barsResponseSliced, MSGPACK } from '../../../src/http/shared/bars.ts';
import { SIM_LIVE_HISTORY_POLICY, SIM_POLICY } from '../../../src/http/sim/policy.ts';
import { replayBounds } from '../../../src/http/sim/replay-window.ts';
import { makeApp } from '../../support/app.ts';

const NQ = findInstrument('NQ') as Instrument;
const CONTRACT = 'CON.F.US.ENQ.H25';
const bytes = async (r: Response) => new Uint8Array(await r.arrayBuffer());

function post(path: string, token: string, body: unknown, accept = 'application/json'): Request {
  return new Request(`http://localhost${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept, authorization: `Bearer ${token}` },
    body: JSON.stringify(body),
  });
}

describe('History/retrieveBars: a 20,000-bar answer', () => {
  it('is the one-go encoder\'s bytes under both profiles, JSON and msgpack', async () => {
    const t = await makeApp({ nowMs: Date.UTC(2026, 10, 28, 9), config: { dataStartDate: '2025-02-01', dataEndDate: '2025-03-07' } });
    const token = await t.login();
    const started = await t.post('Replay/start', { instrumentSymbol: 'NQ', startDate: '2025-03-03', timeframe: '1m' }, token);
    expect((await t.post('Replay/jumpTo', { accountId: started.body.accountId, targetTime: '2025-03-05T15:00:00Z' }, token)).body.success).toBe(true);
    const userId = (await t.s.auth.authenticate(token))!.user.id;
    const body = { contractId: CONTRACT, live: false, unit: 2, unitNumber: 1, startTime: '2025-02-10T00:00:00Z', endTime: null, limit: 20_000 };

    const spec = await t.s.history.retrieve(userId, { ...body }, SIM_POLICY.history);
    if (!spec.ok) throw new Error('spec history refused');
    expect(spec.value.bars.length).toBe(20_000);
    const clock = await t.s.replayClock.ofUser(userId);
    const bounds = replayBounds(body.startTime, body.endTime, clock);
    const live = await t.s.history.retrieve(userId, {
      ...body, startTime: bounds.start, endTime: bounds.end, defaultEndS: Math.floor(clock.nowMs / 1000), fromEnd: true, wholeBarsOnly: true,
    }, SIM_LIVE_HISTORY_POLICY);
    if (!live.ok) throw new Error('live history refused');
    expect(live.value.bars.length).toBe(20_000);

    for (const accept of ['application/json', MSGPACK]) {
      const specReq = post('/api/sim/History/retrieveBars', token, body, accept);
      const served = await t.app.handle(specReq.clone() as Request);
      expect(served.headers.get('content-type')).toContain(accept);
      expect(await bytes(served)).toEqual(await bytes(barsResponse(specReq, NQ, spec.value.bars)));
      const liveReq = post('/live/api/sim/History/retrieveBars', token, body, accept);
      const liveServed = await t.app.handle(liveReq.clone() as Request);
      expect(await bytes(liveServed)).toEqual(await bytes(barsResponse(liveReq, NQ, reversedBars(live.value.bars))));
    }
  });
});

describe('barsResponseSliced', () => {
  it('yields to the event loop between slices and writes the same bytes as barsResponse, with extra fields', async () => {
    const n = 20_000;
    const b = allocBars(n);
    for (let i = 0; i < n; i++) {
      b.time[i] = 1_740_000_000 + 60 * i;
      b.open[i] = 80_000 + (i % 97);
      b.high[i] = 80_100 + (i % 13);
      b.low[i] = 79_900 - (i % 7);
      b.close[i] = 80_001 + (i % 5);
      b.volume[i] = (i * 7919) % 100_000;
    }
    b.length = n;
    for (const accept of ['application/json', MSGPACK]) {
      const req = new Request('http://localhost/', { headers: { accept } });
      let turns = 0;
      let done = false;
      const tick = () => {
        turns++;
        if (!done) setImmediate(tick);
      };
      setImmediate(tick);
      // A slice of 0 ms yields after every slice of bars: other callbacks run meanwhile.
      const sliced = await barsResponseSliced(req, NQ, b, 0, { barsProcessed: 7 });
      done = true;
      expect(turns).toBeGreaterThan(0);
      expect(await bytes(sliced)).toEqual(await bytes(barsResponse(req, NQ, b, { barsProcessed: 7 })));
    }
  });
});
