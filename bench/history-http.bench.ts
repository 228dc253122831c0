// History/retrieveBars over loopback: 20,000 one-minute NQ bars built from 1 s bars, JSON and
// msgpack, through a real listening server (Bun.serve on 127.0.0.1, the production fetch handler).
// Targets (bench/README.md): median ≤ 40 ms for JSON, ≤ 25 ms for msgpack.
//
// Identical requests are served from the 5-minute cache and the endpoint allows 20 requests per
// minute per account, so every timed request starts one weekday later than the previous one and a
// fresh Pro user is logged in for every 20 requests. The cached path (an identical request repeated)
// is timed on its own. The split times the service (`s.history.retrieve`) and the encoders
// (`barsResponse`, body read included) directly on the same requests.
//
// A/B: ROOT=<checkout> measures that checkout's src/ (bench/root.ts loads it; any commit since the
// previous release: only modules and exports they all have), the same load from this file and bench/'s
// helpers; `npm run bench -- --baseline <commit> --only history-http` runs this checkout and <commit> in turn.
// Run: ./node_modules/.bin/bun bench/history-http.bench.ts

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { median, percentile, rotatingTokens, SIM_POLICY } from './support.ts';
import { load } from './root.ts';

const { buildApp, silentLogger } = await load<typeof import('../src/app.ts')>('src/app.ts');
const { defaultConfig } = await load<typeof import('../src/config.ts')>('src/config.ts');
const { daysFromCivil } = await load<typeof import('../src/domain/timeframe.ts')>('src/domain/timeframe.ts');
const { weekdayOf } = await load<typeof import('../src/domain/trading-hours.ts')>('src/domain/trading-hours.ts');
const { barsResponse, MSGPACK } = await load<typeof import('../src/http/shared/bars.ts')>('src/http/shared/bars.ts');
const { systemClock } = await load<typeof import('../src/lib/clock.ts')>('src/lib/clock.ts');
const { dayToDateString } = await load<typeof import('../src/lib/iso-time.ts')>('src/lib/iso-time.ts');
const { randomSecret } = await load<typeof import('../src/lib/secrets.ts')>('src/lib/secrets.ts');
const { createServices } = await load<typeof import('../src/service/services.ts')>('src/service/services.ts');
const { createFetch } = await load<typeof import('../src/server.ts')>('src/server.ts');
const { openDb } = await load<typeof import('../src/store/db.ts')>('src/store/db.ts');

const RUNS = 40;
const WARMUP = 5;
const CACHED_RUNS = 40;
const REQUESTS_PER_USER = 20; // limits.historyRequestsPerWindowMax
const FIRST_DAY = daysFromCivil(2025, 1, 6); // a Monday

const dir = mkdtempSync(join(tmpdir(), 'rd-bench-history-'));
const db = openDb(join(dir, 'replaydesk.db'));
const s = await createServices({
  config: defaultConfig({ dataStartDate: '2024-12-01', dataEndDate: '2025-12-31' }),
  clock: systemClock,
  db,
  jwtSecret: new TextEncoder().encode(randomSecret()),
});
const server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: createFetch(buildApp(s), silentLogger, false) });
const base = `http://127.0.0.1:${server.port}/api/sim`;

const weekdays: number[] = [];
for (let d = FIRST_DAY; weekdays.length < 2 * (RUNS + WARMUP) + 4 * RUNS + 10; d++) if (weekdayOf(d) % 6 !== 0) weekdays.push(d);
let nextWeekday = 0;
/** A request no earlier request matched: each starts on the next unused weekday, 14:30Z. */
const freshRequest = () => ({
  contractId: 'CON.F.US.ENQ.H25',
  unit: 2,
  unitNumber: 1,
  startTime: `${dayToDateString(weekdays[nextWeekday++])}T14:30:00Z`,
  endTime: null,
  limit: 20_000,
});

// ---- A logged-in user per 20 requests. ----
const tokenForNextRequest = rotatingTokens(s, base, REQUESTS_PER_USER);

async function timedPost(body: object, msgpack: boolean, bearer: string): Promise<{ ms: number; bytes: number }> {
  const headers: Record<string, string> = { 'content-type': 'application/json', authorization: `Bearer ${bearer}` };
  if (msgpack) headers.accept = MSGPACK;
  const t0 = Bun.nanoseconds();
  const res = await fetch(`${base}/History/retrieveBars`, { method: 'POST', headers, body: JSON.stringify(body) });
  const buf = await res.arrayBuffer();
  const ms = (Bun.nanoseconds() - t0) / 1e6;
  if (res.status !== 200) throw new Error(`HTTP ${res.status}: ${new TextDecoder().decode(buf).slice(0, 200)}`);
  return { ms, bytes: buf.byteLength };
}

function report(label: string, ms: number[], bytes: number): void {
  console.log(
    `${label.padEnd(38)} median ${median(ms).toFixed(2).padStart(6)} ms  p99 ${percentile(ms, 0.99).toFixed(2).padStart(6)} ms  ` +
      `min ${Math.min(...ms).toFixed(2).padStart(6)} ms  ${bytes.toLocaleString('en-US')} bytes  (n=${ms.length})`,
  );
}

// ---- Loopback, uncached: JSON and msgpack interleaved so both see the same server state. ----
const jsonMs: number[] = [];
const packMs: number[] = [];
let jsonBytes = 0;
let packBytes = 0;
for (let i = 0; i < WARMUP + RUNS; i++) {
  const j = await timedPost(freshRequest(), false, await tokenForNextRequest());
  const p = await timedPost(freshRequest(), true, await tokenForNextRequest());
  if (i < WARMUP) continue;
  jsonMs.push(j.ms);
  packMs.push(p.ms);
  jsonBytes = j.bytes;
  packBytes = p.bytes;
}

// ---- Loopback, cached: the same request again (served from the cache, not rate-limited). ----
const cachedJsonMs: number[] = [];
const cachedPackMs: number[] = [];
{
  const body = freshRequest();
  const bearer = await tokenForNextRequest();
  await timedPost(body, false, bearer);
  for (let i = 0; i < WARMUP + CACHED_RUNS; i++) {
    const j = await timedPost(body, false, bearer);
    const p = await timedPost(body, true, bearer);
    if (i < WARMUP) continue;
    cachedJsonMs.push(j.ms);
    cachedPackMs.push(p.ms);
  }
}

// ---- Split: the service alone, then each encoder alone, on fresh requests. ----
// The source keeps recent days of 1 s bars in memory (96 days); consecutive requests share all
// days but the newest, which is generated, as in the loopback runs above. The same request for
// another account then times aggregation alone. A fresh user id per 20 requests.
const retrieveMs: number[] = [];
const retrieveWarmMs: number[] = [];
const jsonEncodeMs: number[] = [];
const packEncodeMs: number[] = [];
let barCount = 0;
const jsonRequest = new Request('http://localhost/');
const packRequest = new Request('http://localhost/', { headers: { accept: MSGPACK } });
for (let i = 0; i < WARMUP + RUNS; i++) {
  const userId = 1_000_000 + Math.floor(i / REQUESTS_PER_USER);
  const t0 = Bun.nanoseconds();
  const lastRequest = freshRequest();
  const r = await s.history.retrieve(userId, lastRequest, SIM_POLICY.history);
  const t1 = Bun.nanoseconds();
  if (!r.ok) throw new Error(`retrieve failed: ${JSON.stringify(r.error)}`);
  // The same request for another account misses the response cache but finds every day in memory.
  const tw = Bun.nanoseconds();
  await s.history.retrieve(userId + 1_000_000, lastRequest, SIM_POLICY.history);
  const warmMs = (Bun.nanoseconds() - tw) / 1e6;
  const { instrument, bars } = r.value;
  barCount = bars.length;
  const t2 = Bun.nanoseconds();
  await barsResponse(jsonRequest, instrument, bars).arrayBuffer();
  const t3 = Bun.nanoseconds();
  await barsResponse(packRequest, instrument, bars).arrayBuffer();
  const t4 = Bun.nanoseconds();
  if (i < WARMUP) continue;
  retrieveMs.push((t1 - t0) / 1e6);
  retrieveWarmMs.push(warmMs);
  jsonEncodeMs.push((t3 - t2) / 1e6);
  packEncodeMs.push((t4 - t3) / 1e6);
}

console.log(`History/retrieveBars, NQ 1 m from 1 s bars, limit 20,000 (${barCount.toLocaleString('en-US')} bars returned), loopback 127.0.0.1`);
report('HTTP JSON (uncached)', jsonMs, jsonBytes);
report('HTTP msgpack (uncached)', packMs, packBytes);
report('HTTP JSON (cached, same request)', cachedJsonMs, jsonBytes);
report('HTTP msgpack (cached, same request)', cachedPackMs, packBytes);
report('split: retrieve (1 new day generated)', retrieveMs, 0);
report('split: retrieve (all days in memory)', retrieveWarmMs, 0);
report('split: barsResponse JSON', jsonEncodeMs, jsonBytes);
report('split: barsResponse msgpack', packEncodeMs, packBytes);
console.log(`targets: JSON median ≤ 40 ms, msgpack median ≤ 25 ms; ${(await s.users.list()).length} users logged in`);

await server.stop(true);
db.close();
rmSync(dir, { recursive: true, force: true });
