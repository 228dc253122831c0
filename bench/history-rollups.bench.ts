// History/retrieveBars over loopback with rollups warm: 1 d over 365 days, 1 h over 120
// days, and 20,000 1 m bars, JSON, through a real listening server (Bun.serve on 127.0.0.1, the
// production fetch handler). Beside each: the flat path (every bar aggregated from 1 s bars, the
// service alone, no HTTP) on the same request, and the rollup bytes kept per instrument-day.
// Targets (bench/README.md): 1 d × 365 days ≤ 20 ms, 1 h × 120 days ≤ 20 ms, 20,000 × 1 m ≤ 25 ms (medians).
//
// Each timed request differs from the previous ones in `limit` only (part of the response cache key;
// never binding here), and a fresh Pro user is logged in for every 20 requests (the rate limit).
//
// A/B: ROOT=<checkout> measures that checkout's src/ (bench/root.ts loads it; any commit since the
// previous release: only modules and exports they all have), the same load from this file and bench/'s
// helpers; `npm run bench -- --baseline <commit> --only history-rollups` runs this checkout and <commit> in turn.
// Run: ./node_modules/.bin/bun bench/history-rollups.bench.ts

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BarColumns } from '../src/data/bar-columns.ts';
import type { Instrument } from '../src/domain/instrument.ts';
import { median, percentile, rotatingTokens, SIM_POLICY } from './support.ts';
import { load } from './root.ts';

const { buildApp, silentLogger } = await load<typeof import('../src/app.ts')>('src/app.ts');
const { defaultConfig } = await load<typeof import('../src/config.ts')>('src/config.ts');
const { BarSource } = await load<typeof import('../src/data/bar-source.ts')>('src/data/bar-source.ts');
const { findInstrument } = await load<typeof import('../src/domain/instrument.ts')>('src/domain/instrument.ts');
const { daysFromCivil } = await load<typeof import('../src/domain/timeframe.ts')>('src/domain/timeframe.ts');
const { systemClock } = await load<typeof import('../src/lib/clock.ts')>('src/lib/clock.ts');
const { randomSecret } = await load<typeof import('../src/lib/secrets.ts')>('src/lib/secrets.ts');
const { HistoryService } = await load<typeof import('../src/service/history.ts')>('src/service/history.ts');
const { createServices, syntheticSpan } = await load<typeof import('../src/service/services.ts')>('src/service/services.ts');
const { createFetch } = await load<typeof import('../src/server.ts')>('src/server.ts');
const { openDb } = await load<typeof import('../src/store/db.ts')>('src/store/db.ts');
const { BarRollupStore } = await load<typeof import('../src/store/rollups.ts')>('src/store/rollups.ts');
const { UsageStore } = await load<typeof import('../src/store/usage.ts')>('src/store/usage.ts');

const RUNS = 30;
const WARMUP = 5;
const FLAT_RUNS = 3;
const REQUESTS_PER_USER = 20; // limits.historyRequestsPerWindowMax

const dir = mkdtempSync(join(tmpdir(), 'rd-bench-rollups-'));
const db = openDb(join(dir, 'replaydesk.db'));
const config = defaultConfig({ dataStartDate: '2024-12-01', dataEndDate: '2025-12-31' });
const s = await createServices({ config, clock: systemClock, db, jwtSecret: new TextEncoder().encode(randomSecret()) });
const server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: createFetch(buildApp(s), silentLogger, false) });
const base = `http://127.0.0.1:${server.port}/api/sim`;
const nq = findInstrument('NQ') as Instrument;

/** The flat path: the same HistoryService over a source without rollups. */
class FlatSource extends BarSource {
  override rollup(): BarColumns | null {
    return null;
  }
}
const flat = new HistoryService({
  source: new FlatSource(s.chunks, syntheticSpan(config, systemClock)),
  usage: new UsageStore(s.sql),
  clock: systemClock,
  customTimeframes: false,
  isImporting: async () => false,
});

const tokenForNextRequest = rotatingTokens(s, base, REQUESTS_PER_USER);

interface Case {
  label: string;
  unit: number;
  unitNumber: number;
  startTime: string;
  endTime: string;
  limit: number;
  target: number;
}

const CASES: Case[] = [
  { label: '1 d over 365 days', unit: 4, unitNumber: 1, startTime: '2025-01-01T00:00:00Z', endTime: '2025-12-31T00:00:00Z', limit: 20_000, target: 20 },
  { label: '1 h over 120 days', unit: 3, unitNumber: 1, startTime: '2025-06-01T00:00:00Z', endTime: '2025-09-29T00:00:00Z', limit: 20_000, target: 20 },
  { label: '20,000 × 1 m', unit: 2, unitNumber: 1, startTime: '2025-03-03T00:00:00Z', endTime: '2025-04-30T00:00:00Z', limit: 20_000, target: 25 },
];

async function timedPost(body: object): Promise<{ ms: number; bytes: number; bars: number }> {
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${await tokenForNextRequest()}` };
  const t0 = Bun.nanoseconds();
  const res = await fetch(`${base}/History/retrieveBars`, { method: 'POST', headers, body: JSON.stringify(body) });
  const text = await res.text();
  const ms = (Bun.nanoseconds() - t0) / 1e6;
  if (res.status !== 200) throw new Error(`HTTP ${res.status}: ${text.slice(0, 200)}`);
  const parsed = JSON.parse(text) as { success: boolean; bars: unknown[] };
  if (!parsed.success) throw new Error(text.slice(0, 200));
  return { ms, bytes: text.length, bars: parsed.bars.length };
}

// Warm: one request per case fills the rollups it reads (kept in SQLite and in memory).
let nonce = 0;
const request = (c: Case) => ({ contractId: 'CON.F.US.ENQ.H25', unit: c.unit, unitNumber: c.unitNumber, startTime: c.startTime, endTime: c.endTime, limit: c.limit - nonce++ });
const tw = Bun.nanoseconds();
for (const c of CASES) await timedPost(request(c));
const warmS = (Bun.nanoseconds() - tw) / 1e9;

console.log('History/retrieveBars over rollups, NQ, JSON, loopback 127.0.0.1 (medians; flat = service alone from 1 s bars)');
for (const c of CASES) {
  const ms: number[] = [];
  let last = { ms: 0, bytes: 0, bars: 0 };
  for (let i = 0; i < WARMUP + RUNS; i++) {
    last = await timedPost(request(c));
    if (i >= WARMUP) ms.push(last.ms);
  }
  const flatMs: number[] = [];
  for (let i = 0; i < FLAT_RUNS; i++) {
    const t0 = Bun.nanoseconds();
    const r = await flat.retrieve(2_000_000 + nonce, request(c), SIM_POLICY.history);
    flatMs.push((Bun.nanoseconds() - t0) / 1e6);
    if (!r.ok) throw new Error(JSON.stringify(r.error));
  }
  console.log(
    `${c.label.padEnd(20)} ${last.bars.toLocaleString('en-US').padStart(6)} bars  median ${median(ms).toFixed(2).padStart(6)} ms  ` +
      `p99 ${percentile(ms, 0.99).toFixed(2).padStart(6)} ms  (target ≤ ${c.target} ms, n=${ms.length})  ` +
      `flat ${median(flatMs).toFixed(0).padStart(6)} ms (n=${FLAT_RUNS})  ${last.bytes.toLocaleString('en-US')} bytes`,
  );
}

// Rollup bytes per instrument-day: fill one instrument's whole span, then read the table's BLOB sizes.
const rollups = new BarRollupStore(db);
const first = daysFromCivil(2024, 12, 1);
const last = daysFromCivil(2025, 12, 31);
for (let d = first; d <= last; d++) for (const w of [3_600, 60]) s.bars.rollup(nq, d, w);
const fp = rollups.footprint('NQ');
const tradingDays = (db.query("SELECT COUNT(*) AS n FROM bar_rollups WHERE symbol = 'NQ' AND width_s = 3600 AND bar_count > 0").get() as { n: number }).n;
console.log(
  `rollup bytes, NQ ${fp.days} days (${tradingDays} with bars): ${(fp.bytes / tradingDays).toFixed(0)} B per trading day ` +
    `(1 h + 1 m BLOBs; ${(fp.bytes / 1024 / 1024).toFixed(1)} MB in all); first warm-up of the three cases took ${warmS.toFixed(2)} s`,
);

await server.stop(true);
await s.shutdown();
db.close();
rmSync(dir, { recursive: true, force: true });
