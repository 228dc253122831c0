// Shared pieces of the benchmarks: order statistics and a cheap deterministic bar walk.

import type { BarColumns } from '../src/data/bar-columns.ts';
import type { Instrument } from '../src/domain/instrument.ts';
import type { Services } from '../src/service/services.ts';
import { load, loadIfPresent } from './root.ts';

const { allocBars } = await load<typeof import('../src/data/bar-columns.ts')>('src/data/bar-columns.ts');
const { generateDay } = await load<typeof import('../src/data/generator.ts')>('src/data/generator.ts');
const { inTransaction } = await load<typeof import('../src/store/db.ts')>('src/store/db.ts');

type SimPolicy = typeof import('../src/http/sim/policy.ts');
/**
 * The current family's policy (src/http/sim/policy.ts, since 9c211e2 on 2026-11-25). Before it the
 * services' policy parameters had defaults, which the empty object's undefined members leave in force.
 */
export const SIM_POLICY = (await loadIfPresent<SimPolicy>('src/http/sim/policy.ts'))?.SIM_POLICY ?? ({} as SimPolicy['SIM_POLICY']);

export function median(xs: ArrayLike<number>): number {
  const s = Array.from(xs).sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

/** The q-quantile (0.99 for p99) by the nearest-rank method. */
export function percentile(xs: ArrayLike<number>, q: number): number {
  const s = Array.from(xs).sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(s.length * q) - 1))];
}

/**
 * `n` one-second bars from `startS`: a deterministic random walk (xorshift32) from `startTicks`,
 * ±2 ticks a second with a 0–1 tick wick each side.
 */
export function syntheticBars(n: number, startS: number, startTicks: number): BarColumns {
  const b = allocBars(n);
  let seed = 0x9e3779b9;
  let price = startTicks;
  for (let i = 0; i < n; i++) {
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    const r = seed >>> 0;
    const o = price;
    const c = o + ((r >>> 8) % 5) - 2;
    b.time[i] = startS + i;
    b.open[i] = o;
    b.close[i] = c;
    b.high[i] = Math.max(o, c) + ((r >>> 3) & 1);
    b.low[i] = Math.min(o, c) - ((r >>> 4) & 1);
    b.volume[i] = 1 + ((r >>> 5) & 15);
    price = c;
  }
  b.length = n;
  return b;
}

/** Lowest low and highest high of the bars. */
export function priceRange(b: BarColumns): [number, number] {
  let lo = b.low[0];
  let hi = b.high[0];
  for (let i = 1; i < b.length; i++) {
    if (b.low[i] < lo) lo = b.low[i];
    if (b.high[i] > hi) hi = b.high[i];
  }
  return [lo, hi];
}

/**
 * Writes generated bars of `inst` for every day in [firstDay, lastDay] into the store as imported
 * chunks (one transaction, then a WAL checkpoint), as if real data had been loaded.
 */
export function storeGeneratedDays(s: Services, inst: Instrument, firstDay: number, lastDay: number) {
  let stored = 0;
  let lo = Infinity;
  let hi = -Infinity;
  const barsByDay = new Map<number, number>();
  inTransaction(s.db, () => {
    for (let d = firstDay; d <= lastDay; d++) {
      const bars = generateDay(inst, d);
      if (bars.length === 0) continue;
      s.chunks.put(inst.symbol, d, 'import', bars);
      stored += bars.length;
      barsByDay.set(d, bars.length);
      const [dayLo, dayHi] = priceRange(bars);
      lo = Math.min(lo, dayLo);
      hi = Math.max(hi, dayHi);
    }
  });
  s.db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
  return { stored, lo, hi, barsByDay };
}

/**
 * Tokens for History benches: a fresh Pro user every `perUser` requests (History allows 20 a minute
 * per account), logged in over HTTP at `base` (the current family's base URL).
 */
export function rotatingTokens(s: Services, base: string, perUser: number): () => Promise<string> {
  let userCount = 0;
  let token = '';
  let used = perUser;
  return async () => {
    if (used < perUser) {
      used++;
      return token;
    }
    const email = `bench${++userCount}@example.com`;
    const created = await s.users.create({ email, plan: 'pro' });
    if (!created.ok) throw new Error('cannot create bench user');
    const res = await fetch(`${base}/Auth/loginKey`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ userName: email, apiKey: created.value.apiKey }),
    });
    const body = (await res.json()) as { success: boolean; token: string };
    if (!body.success) throw new Error(`login failed: ${JSON.stringify(body)}`);
    token = body.token;
    used = 1;
    return token;
  };
}

/**
 * Round trips of `GET url`, one every `everyMs` (or right after the previous answer when it was
 * late), for `seconds`: a client's view of the server's event-loop lag (the pinger processes).
 */
export async function pingRoundTrips(url: string, everyMs: number, seconds: number): Promise<number[]> {
  const ms: number[] = [];
  const endMs = performance.now() + seconds * 1000;
  let nextMs = performance.now();
  while (performance.now() < endMs) {
    const t0 = performance.now();
    await (await fetch(url)).text();
    ms.push(performance.now() - t0);
    nextMs += everyMs;
    const waitMs = nextMs - performance.now();
    if (waitMs > 0) await Bun.sleep(waitMs);
    else nextMs = performance.now();
  }
  return ms;
}
