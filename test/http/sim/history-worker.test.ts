// History's large answers are encoded off the event loop by a worker (issue 32, http/shared/bars-worker.ts)
// and stay byte for byte what the sliced path (`barsResponseSliced`) answers: JSON and msgpack, for
// random bars of instruments with different tick sizes, empty, one and 20,000 bars. A worker that
// dies leaves its answer to the sliced path and is replaced; closing the pool leaves no worker; a
// real listening server's History answer comes from the worker, unchanged.

import { afterAll, describe, expect, it } from 'bun:test';
import { readdirSync, readFileSync } from 'node:fs';
import { limits } from '../../../src/config.ts';
import { allocBars, type BarColumns } from '../../../src/data/bar-columns.ts';
import { findInstrument, type Instrument } from '../../../src/domain/instrument.ts';
import { barsResponse, barsResponseSliced, MSGPACK } from '../../../src/http/shared/bars.ts';
import { barsResponseOffLoop, barsWorkers, BarsWorkerPool, envelopeAround } from '../../../src/http/shared/bars-worker.ts';
import { createFetch } from '../../../src/server.ts';
import { silentLogger } from '../../../src/app.ts';
import { SIM_POLICY } from '../../../src/http/sim/policy.ts';
import { makeApp } from '../../support/app.ts';

const bytes = async (r: Response) => new Uint8Array(await r.arrayBuffer());
const ACCEPTS = ['application/json', MSGPACK];
const FIELDS = { barsProcessed: 42, note: 'é"\\' };
const pools: BarsWorkerPool[] = [];
afterAll(() => pools.forEach((p) => p.close()));

function pool(answerMsMax = 120_000): BarsWorkerPool {
  const p = new BarsWorkerPool(1, 8, answerMsMax);
  pools.push(p);
  return p;
}

/** A deterministic random walk of `n` bars (prices may go negative, volumes up to 2^32 - 1). */
function randomBars(n: number, seed: number): BarColumns {
  let x = seed >>> 0 || 1;
  const rnd = () => ((x = (Math.imul(x, 1_103_515_245) + 12_345) >>> 0) / 0x1_0000_0000);
  const b = allocBars(n);
  let t = 1_600_000_000 + Math.floor(rnd() * 1e8);
  let p = Math.floor(rnd() * 2_000_000) - 200_000;
  for (let i = 0; i < n; i++) {
    t += 1 + Math.floor(rnd() * 7_200);
    p += Math.floor(rnd() * 41) - 20;
    b.time[i] = t;
    b.open[i] = p;
    b.high[i] = p + Math.floor(rnd() * 30);
    b.low[i] = p - Math.floor(rnd() * 30);
    b.close[i] = p + Math.floor(rnd() * 21) - 10;
    b.volume[i] = i % 97 === 0 ? 0xffff_ffff : Math.floor(rnd() * 100_000);
  }
  b.length = n;
  return b;
}

const request = (accept: string) => new Request('http://localhost/', { headers: { accept } });

describe('the History encoding worker', () => {
  it("answers the sliced path's bytes for JSON and msgpack, for tick sizes 0.25, 0.1, 0.01, 1/64, 0.0001, 0.00001, 0.0000005, 1 and 0, 1, 1,001, 20,000 bars", async () => {
    const p = pool();
    let seed = 7;
    for (const symbol of ['NQ', 'GC', 'LIGHTCMDUSD', 'ZN', '6B', 'EURUSD', '6J', 'YM']) {
      const inst = findInstrument(symbol, 'all') as Instrument;
      expect(inst).toBeDefined();
      for (const n of [0, 1, 1_001, 20_000]) {
        const bars = randomBars(n, seed++);
        for (const accept of ACCEPTS) {
          const sliced = await bytes(await barsResponseSliced(request(accept), inst, bars, 4, FIELDS));
          const body = await p.encode(inst.ticksPerPoint, bars, envelopeAround(accept === MSGPACK, FIELDS, n));
          expect(body).not.toBeNull();
          expect(body!).toEqual(sliced);
          if (n > 1_000) expect(await bytes(await barsResponseOffLoop(request(accept), inst, bars, 4, FIELDS, p))).toEqual(sliced);
        }
      }
    }
    expect(p.stats.fallbacks).toBe(0);
    expect(p.stats.encoded).toBe(8 * (4 * 2 + 2 * 2));
  });

  it('copies the columns it is given: a cache\'s longer buffer stays whole and unchanged', async () => {
    const p = pool();
    const NQ = findInstrument('NQ') as Instrument;
    const cache = randomBars(5_000, 3);
    cache.length = 2_000; // spare capacity beyond the answer, as a cache's columns may have
    const before = new Uint8Array(cache.time.buffer.slice(0));
    const served = await barsResponseOffLoop(request('application/json'), NQ, cache, 4, {}, p);
    expect(cache.time.buffer.byteLength).toBe(before.byteLength);
    expect(new Uint8Array(cache.time.buffer)).toEqual(before);
    expect(await bytes(served)).toEqual(await bytes(barsResponse(request('application/json'), NQ, cache)));
  });

  it('a killed worker leaves its answer to the sliced path and is replaced by the next answer', async () => {
    const p = pool();
    const NQ = findInstrument('NQ') as Instrument;
    const bars = randomBars(20_000, 11);
    for (const accept of ACCEPTS) {
      const sliced = await bytes(await barsResponseSliced(request(accept), NQ, bars, 4));
      const fallbacks = p.stats.fallbacks;
      const answer = barsResponseOffLoop(request(accept), NQ, bars, 4, {}, p);
      const [killed] = p.workers();
      killed.onmessage = null; // whatever it managed to encode is never heard: the answer must come another way
      killed.terminate();
      expect(await bytes(await answer)).toEqual(sliced);
      expect(p.stats.fallbacks).toBe(fallbacks + 1);
      expect(p.workers()).not.toContain(killed);

      const encoded = p.stats.encoded;
      expect(await bytes(await barsResponseOffLoop(request(accept), NQ, bars, 4, {}, p))).toEqual(sliced);
      expect(p.stats.encoded).toBe(encoded + 1);
      expect(p.workers()).toHaveLength(1);
      expect(p.workers()[0]).not.toBe(killed);
    }
    expect(p.stats.died).toBe(2);
    expect(p.stats.started).toBe(3);
  });

  it('a worker silent past its bound leaves the answer to the sliced path and is replaced', async () => {
    const p = pool(1_000);
    const NQ = findInstrument('NQ') as Instrument;
    const bars = randomBars(20_000, 13);
    const json = await bytes(barsResponse(request('application/json'), NQ, bars));
    const answer = barsResponseOffLoop(request('application/json'), NQ, bars, 4, {}, p);
    const [deaf] = p.workers();
    deaf.onmessage = null; // it still encodes, but the pool never hears an answer
    expect(await bytes(await answer)).toEqual(json);
    expect(p.stats.fallbacks).toBe(1);
    expect(p.workers()).not.toContain(deaf);
    expect(await bytes(await barsResponseOffLoop(request('application/json'), NQ, bars, 4, {}, p))).toEqual(json);
    expect(p.stats.started).toBe(2);
  });

  it('closing the pool ends its worker, and answers still come (a new worker is started on demand)', async () => {
    const p = pool();
    const NQ = findInstrument('NQ') as Instrument;
    const bars = randomBars(3_000, 17);
    await barsResponseOffLoop(request(MSGPACK), NQ, bars, 4, {}, p);
    const [worker] = p.workers();
    const closed = new Promise<void>((resolve) => worker.addEventListener('close', () => resolve()));
    p.close();
    expect(p.workers()).toHaveLength(0);
    await closed;
    const again = await barsResponseOffLoop(request(MSGPACK), NQ, bars, 4, {}, p);
    expect(await bytes(again)).toEqual(await bytes(barsResponse(request(MSGPACK), NQ, bars)));
    expect(p.stats.encoded).toBe(2);
    p.close();
    expect(p.workers()).toHaveLength(0);
  });
});

describe('the encoding worker on Linux', () => {
  it.if(process.platform === 'linux')("runs at a lower CPU priority than the server's event loop (nice barsWorkerNice)", async () => {
    const niceOf = (task: string) => Number(readFileSync(`${task}/stat`, 'utf8').replace(/^.*\) /s, '').split(' ')[16]);
    const tasks = () => readdirSync('/proc/self/task').map((t) => `/proc/self/task/${t}`);
    const before = new Set(tasks());
    const p = pool();
    await p.encode(4, randomBars(2_000, 5), envelopeAround(false, {}, 2_000));
    const started = tasks().filter((t) => !before.has(t));
    expect(started.map(niceOf)).toContain(limits.barsWorkerNice);
    expect(niceOf('/proc/self')).toBeLessThan(limits.barsWorkerNice);
  });
});

describe('History/retrieveBars on a listening server', () => {
  it("answers 20,000 bars from the worker, the one-go encoder's bytes, JSON and msgpack", async () => {
    const t = await makeApp({ nowMs: Date.UTC(2026, 10, 28, 9), config: { dataStartDate: '2025-02-01', dataEndDate: '2025-03-07' } });
    const token = await t.login();
    const userId = (await t.s.auth.authenticate(token))!.user.id;
    const body = { contractId: 'CON.F.US.ENQ.H25', live: false, unit: 2, unitNumber: 1, startTime: '2025-02-10T00:00:00Z', endTime: '2025-03-06T00:00:00Z', limit: 20_000 };
    const read = await t.s.history.retrieve(userId, { ...body }, SIM_POLICY.history);
    if (!read.ok) throw new Error('history refused');
    expect(read.value.bars.length).toBe(20_000);
    const server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: createFetch(t.app, silentLogger, false) });
    try {
      for (const accept of ACCEPTS) {
        const encoded = barsWorkers.stats.encoded;
        const served = await fetch(`http://127.0.0.1:${server.port}/api/sim/History/retrieveBars`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept, authorization: `Bearer ${token}` },
          body: JSON.stringify(body),
        });
        expect(served.status).toBe(200);
        expect(served.headers.get('content-type')).toContain(accept);
        expect(await bytes(served)).toEqual(await bytes(barsResponse(request(accept), findInstrument('NQ') as Instrument, read.value.bars)));
        expect(barsWorkers.stats.encoded).toBe(encoded + 1);
      }
    } finally {
      server.stop(true);
      barsWorkers.close();
    }
    expect(barsWorkers.workers()).toHaveLength(0);
  });
});
