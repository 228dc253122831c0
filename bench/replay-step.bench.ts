// Replay/step with steps=100 on 1 m NQ sessions (6,000 stored 1 s bars walked per step, the
// cursor committed to SQLite every step), 10 sessions stepping at once over loopback.
// Targets (replay issue): median server time per step ≤ 1 ms; ≥ 3,000 steps/s across 10 sessions.
//
// Data: 110 days of generated NQ 1 s bars (generateDay) written as imported chunks to a temp-dir
// database; the synthetic span is moved to 2020 so nothing else is generated. All sessions start on
// 2025-03-03 and walk the same days, so each day is read from the store once per phase (by the first
// session to reach it, in the step that prefetches it) and found in memory by the others.
//
// Phase 1, loopback: a real Bun.serve on 127.0.0.1 (production fetch handler) in this process; the
// load generator is a separate process (this file spawned with --client) running 10 concurrent
// loops, each stepping its own session of one user (4 far-away working orders each) and parsing
// every JSON answer. WARMUP steps per loop first, then STEPS timed steps per loop. Reports
// steps/s over the timed part, median and p99 latency seen by the client, the server's own time
// per step under that load (advanceSliced + prefetch, measured by wrappers installed below), and the
// server process's CPU (user + sys) per timed step: the client prints a line when its warm-up is done,
// and the server samples process.cpuUsage() then and when the result arrives. A step that starts
// doing I/O or system calls shows here even when its latency hides it behind the client's.
// Phase 2, in process without HTTP: a fresh services instance (cold day cache), 10 new sessions of
// a second user stepped round-robin one call at a time; times `await s.replay.step(...)` (including
// the lock's event-loop yield), its parts, barsResponse (the JSON encoding of the 100 bars), and the
// process's CPU per step over the timed steps (one call at a time: the service's own cost).
// Wrappers are bench-only (prototype patches below); nothing is instrumented in src/. They time
// advanceSliced (SessionAdvancer's, or ReplayService's before the service was split), or advanceLocked
// where no advanceSliced exists, so this file also measures a commit from before advances were
// sliced (e7625e2), and loads advancing.ts only where the checkout has it.
//
// Run: ./node_modules/.bin/bun bench/replay-step.bench.ts
// A/B: ROOT=<checkout> measures that checkout's src/ (bench/root.ts); this file and bench/support.ts
// stay this checkout's. `npm run bench -- --baseline <commit> --only replay-step` runs both in turn.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Instrument } from '../src/domain/instrument.ts';
import type { Services } from '../src/service/services.ts';
import { storeGeneratedDays, SIM_POLICY } from './support.ts';
import { load, loadIfPresent } from './root.ts';

const { buildApp, silentLogger } = await load<typeof import('../src/app.ts')>('src/app.ts');
const { defaultConfig } = await load<typeof import('../src/config.ts')>('src/config.ts');
const { findInstrument } = await load<typeof import('../src/domain/instrument.ts')>('src/domain/instrument.ts');
const { daysFromCivil } = await load<typeof import('../src/domain/timeframe.ts')>('src/domain/timeframe.ts');
const { OrderSide, OrderType } = await load<typeof import('../src/engine/types.ts')>('src/engine/types.ts');
const { barsResponse } = await load<typeof import('../src/http/shared/bars.ts')>('src/http/shared/bars.ts');
const { systemClock } = await load<typeof import('../src/lib/clock.ts')>('src/lib/clock.ts');
const { dayToDateString } = await load<typeof import('../src/lib/iso-time.ts')>('src/lib/iso-time.ts');
const { randomSecret } = await load<typeof import('../src/lib/secrets.ts')>('src/lib/secrets.ts');
const { ReplayService } = await load<typeof import('../src/service/replay/service.ts')>('src/service/replay/service.ts');
const { LiveSession } = await load<typeof import('../src/service/replay/session.ts')>('src/service/replay/session.ts');
type LiveSession = import('../src/service/replay/session.ts').LiveSession;
const { createServices } = await load<typeof import('../src/service/services.ts')>('src/service/services.ts');
const { createFetch } = await load<typeof import('../src/server.ts')>('src/server.ts');
const { openDb } = await load<typeof import('../src/store/db.ts')>('src/store/db.ts');

const SESSIONS = 10;
const STEPS = 1000; // timed steps per loop
const WARMUP = 20; // untimed steps per loop first
const STEP_BARS = 100;
const START_DAY = daysFromCivil(2025, 3, 3); // a Monday
const STORE_FIRST_DAY = START_DAY - 3;
const STORE_LAST_DAY = START_DAY + 110;
const NQ = findInstrument('NQ') as Instrument;

const median = (xs: ArrayLike<number>): number => {
  const v = Array.from(xs).sort((a, b) => a - b);
  const m = v.length >> 1;
  return v.length % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
};
const pct = (xs: ArrayLike<number>, p: number): number => {
  const v = Array.from(xs).sort((a, b) => a - b);
  return v[Math.min(v.length - 1, Math.ceil(v.length * p) - 1)];
};
const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;
/** CPU used over `steps` steps, per step, in µs. */
const cpuLine = (cpu: NodeJS.CpuUsage, steps: number): string =>
  `${((cpu.user + cpu.system) / steps).toFixed(0)} µs (user ${(cpu.user / steps).toFixed(0)} + sys ${(cpu.system / steps).toFixed(0)} µs) ` +
  `over ${steps} steps, ${((cpu.user + cpu.system) / 1e6).toFixed(2)} s in all`;

if (process.argv[2] === '--client') await client();
else await main();

// ---- The load generator (its own process). ----
async function client(): Promise<void> {
  const base = process.env.BENCH_BASE as string;
  const token = process.env.BENCH_TOKEN as string;
  const accounts = JSON.parse(process.env.BENCH_ACCOUNTS as string) as number[];
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${token}` };
  const latencies: number[] = [];
  let bars = 0;
  const loop = async (accountId: number, n: number, timed: boolean) => {
    const body = JSON.stringify({ accountId, steps: STEP_BARS });
    for (let i = 0; i < n; i++) {
      const t0 = performance.now();
      const res = await fetch(`${base}/Replay/step`, { method: 'POST', headers, body });
      const r = (await res.json()) as { success: boolean; bars: unknown[]; barsProcessed: number };
      const ms = performance.now() - t0;
      if (!r.success || r.barsProcessed !== STEP_BARS) throw new Error(`Replay/step failed: ${res.status} ${JSON.stringify(r).slice(0, 300)}`);
      if (timed) {
        latencies.push(ms);
        bars += r.bars.length;
      }
    }
  };
  await Promise.all(accounts.map((a) => loop(a, WARMUP, false)));
  process.stdout.write('warm\n');
  const t0 = performance.now();
  await Promise.all(accounts.map((a) => loop(a, STEPS, true)));
  const wallMs = performance.now() - t0;
  process.stdout.write(`${JSON.stringify({ latencies, wallMs, bars })}\n`);
}

// ---- The server side. ----
async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'rd-bench-step-'));
  const path = join(dir, 'replaydesk.db');
  const config = defaultConfig({ dataStartDate: '2020-01-06', dataEndDate: '2020-01-07' });
  const jwtSecret = new TextEncoder().encode(randomSecret());
  const open = () => {
    const db = openDb(path);
    return createServices({ config, clock: systemClock, db, jwtSecret });
  };

  let lo: number;
  let hi: number;
  {
    const s = await open();
    const r = storeGeneratedDays(s, NQ, STORE_FIRST_DAY, STORE_LAST_DAY);
    ({ lo, hi } = r);
    s.db.close();
    console.log(`stored ${r.stored.toLocaleString('en-US')} NQ 1 s bars (${dayToDateString(STORE_FIRST_DAY)}..${dayToDateString(STORE_LAST_DAY)})`);
  }

  // Server time per call, recorded by wrappers while `recording` holds the array to push to.
  let recording: number[] | null = null;
  let prefetchMs = 0;
  // A step is one advance piece: advanceSliced runs it without yielding, so its time is the server's
  // work for the step (walk, fills, commit). It is SessionAdvancer's (src/service/replay/advancing.ts);
  // ReplayService's before the service was split, so the same file measures both sides of that change.
  const advancing = await loadIfPresent<typeof import('../src/service/replay/advancing.ts')>('src/service/replay/advancing.ts');
  const proto = (advancing?.SessionAdvancer ?? ReplayService).prototype as unknown as Record<string, (...args: unknown[]) => unknown>;
  const advanceName = 'advanceSliced' in proto ? 'advanceSliced' : 'advanceLocked';
  const advance = proto[advanceName];
  proto[advanceName] = function (this: unknown, ...args: unknown[]) {
    const t0 = performance.now();
    const r = advance.apply(this, args);
    const done = () => recording?.push(performance.now() - t0);
    if (r instanceof Promise) return r.then((v) => (done(), v));
    done();
    return r;
  };
  const prefetch = LiveSession.prototype.prefetch;
  LiveSession.prototype.prefetch = function (this: LiveSession) {
    const t0 = performance.now();
    prefetch.apply(this);
    prefetchMs = performance.now() - t0;
  };

  /** A Pro user with SESSIONS live 1 m sessions from START_DAY, each with 4 far working orders. */
  async function sessionsFor(s: Services, email: string): Promise<{ userId: number; apiKey: string; accounts: number[] }> {
    const created = await s.users.create({ email, plan: 'pro' });
    if (!created.ok) throw new Error('cannot create bench user');
    const userId = created.value.user.id;
    const contractId = s.contracts.contractFor(NQ).id;
    const accounts: number[] = [];
    for (let k = 0; k < SESSIONS; k++) {
      const r = await s.replay.start(userId, {
        instrumentSymbol: 'NQ', contractId: undefined, startDate: dayToDateString(START_DAY),
        endDate: dayToDateString(STORE_LAST_DAY), timeframe: '1m', accountId: undefined,
      }, SIM_POLICY.start);
      if (!r.ok) throw new Error(`Replay/start failed: ${JSON.stringify(r.error)}`);
      const accountId = r.value.session.accountId;
      for (let j = 0; j < 4; j++) {
        const buy = j % 2 === 0;
        const limit = j < 2;
        const price = (buy === limit ? lo - 2000 - j : hi + 2000 + j) / 4;
        const placed = await s.trading.place(userId, {
          accountId, contractId, type: limit ? OrderType.Limit : OrderType.Stop, side: buy ? OrderSide.Buy : OrderSide.Sell,
          size: 1, limitPrice: limit ? price : undefined, stopPrice: limit ? undefined : price,
          stopLossTicks: undefined, takeProfitTicks: undefined,
        });
        if (!placed.ok) throw new Error(`Order/place failed: ${JSON.stringify(placed.error)}`);
      }
      accounts.push(accountId);
    }
    return { userId, apiKey: created.value.apiKey, accounts };
  }

  // ---- Phase 1: loopback, client in another process. ----
  {
    const s = await open();
    const user = await sessionsFor(s, 'loopback@example.com');
    // Replay/start counted every day of the span, filling the day cache: restart for a cold cache.
    await s.shutdown();
    s.db.close();
    const s2 = await open();
    const server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: createFetch(buildApp(s2), silentLogger, false) });
    const base = `http://127.0.0.1:${server.port}/api/sim`;
    const login = (await (
      await fetch(`${base}/Auth/loginKey`, {
        method: 'POST', headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ userName: 'loopback@example.com', apiKey: user.apiKey }),
      })
    ).json()) as { success: boolean; token: string };
    if (!login.success) throw new Error('login failed');
    const serverMs: number[] = [];
    recording = serverMs;
    const cpu0 = process.cpuUsage();
    const wall0 = performance.now();
    const child = Bun.spawn([process.execPath, import.meta.path, '--client'], {
      env: { ...process.env, BENCH_BASE: base, BENCH_TOKEN: login.token, BENCH_ACCOUNTS: JSON.stringify(user.accounts) },
      stdout: 'pipe',
      stderr: 'inherit',
    });
    // The client's lines: 'warm' when its warm-up is done, then its result.
    let out = '';
    let cpuTimed0: NodeJS.CpuUsage | null = null;
    let cpuTimed: NodeJS.CpuUsage | null = null;
    const decoder = new TextDecoder();
    for await (const chunk of child.stdout) {
      out += decoder.decode(chunk, { stream: true });
      if (cpuTimed0 === null && out.startsWith('warm\n')) {
        cpuTimed0 = process.cpuUsage();
        out = out.slice(5);
      }
      if (cpuTimed0 !== null && cpuTimed === null && out.endsWith('\n')) cpuTimed = process.cpuUsage(cpuTimed0);
    }
    const code = await child.exited;
    const wallMs = performance.now() - wall0;
    const cpu = process.cpuUsage(cpu0);
    const childCpu = child.resourceUsage()?.cpuTime;
    recording = null;
    if (code !== 0 || cpuTimed === null) throw new Error(`client exited with ${code}`);
    const r = JSON.parse(out) as { latencies: number[]; wallMs: number; bars: number };
    const timedServer = serverMs.slice(SESSIONS * WARMUP);
    console.log(
      `loopback, ${SESSIONS} sessions × ${STEPS} steps of ${STEP_BARS} bars (client: separate process, ${SESSIONS} concurrent loops, after ${WARMUP} warm-up steps each)`,
    );
    console.log(
      `  ${(r.latencies.length / (r.wallMs / 1000)).toFixed(0)} steps/s (${r.latencies.length} steps in ${r.wallMs.toFixed(0)} ms, ` +
        `${(r.bars / (r.wallMs / 1000) / 1000).toFixed(0)}k bars/s returned); latency median ${median(r.latencies).toFixed(2)} ms, ` +
        `p99 ${pct(r.latencies, 0.99).toFixed(2)} ms, max ${Math.max(...r.latencies).toFixed(2)} ms`,
    );
    console.log(
      `  server advance under load: median ${median(timedServer).toFixed(3)} ms, p99 ${pct(timedServer, 0.99).toFixed(3)} ms, ` +
        `mean ${mean(timedServer).toFixed(3)} ms`,
    );
    console.log(
      `  CPU over the client's lifetime (${wallMs.toFixed(0)} ms wall, warm-up included): server process ` +
        `${((cpu.user + cpu.system) / 10 / wallMs).toFixed(0)}% (user ${(cpu.user / 1000).toFixed(0)} ms, sys ${(cpu.system / 1000).toFixed(0)} ms), ` +
        `client process ${childCpu ? `${(Number(childCpu.total) / 10 / wallMs).toFixed(0)}%` : 'n/a'} of one core`,
    );
    console.log(`  server CPU per timed step: ${cpuLine(cpuTimed, r.latencies.length)}`);
    await server.stop(true);
    await s2.shutdown();
    s2.db.close();
  }

  // ---- Phase 2: in process, no HTTP, one call at a time. ----
  {
    const s = await open();
    const user = await sessionsFor(s, 'inprocess@example.com');
    await s.shutdown();
    s.db.close();
    const s2 = await open();
    const total: number[] = [];
    const locked: number[] = [];
    const prefetches: number[] = [];
    const encode: number[] = [];
    const request = new Request('http://localhost/');
    let cpu0 = process.cpuUsage();
    for (let k = 0; k < WARMUP + STEPS; k++) {
      if (k === WARMUP) cpu0 = process.cpuUsage();
      for (const accountId of user.accounts) {
        const lockedNow: number[] = [];
        recording = lockedNow;
        const t0 = performance.now();
        const r = await s2.replay.step(user.userId, accountId, STEP_BARS, SIM_POLICY.stepsMax);
        const ms = performance.now() - t0;
        recording = null;
        if (!r.ok || r.value.advance.played !== STEP_BARS) throw new Error(`step failed: ${JSON.stringify(r)}`);
        const t1 = performance.now();
        barsResponse(request, NQ, r.value.advance.bars as NonNullable<typeof r.value.advance.bars>, { barsProcessed: STEP_BARS });
        const encodeMs = performance.now() - t1;
        if (k < WARMUP) continue;
        total.push(ms);
        locked.push(lockedNow[0]);
        prefetches.push(prefetchMs);
        encode.push(encodeMs);
      }
    }
    const line = (label: string, xs: number[]) =>
      console.log(
        `  ${label.padEnd(44)} median ${median(xs).toFixed(3)} ms  p99 ${pct(xs, 0.99).toFixed(3)} ms  mean ${mean(xs).toFixed(3)} ms  max ${Math.max(...xs).toFixed(2)} ms`,
      );
    console.log(`in process, no HTTP: ${SESSIONS} sessions × ${STEPS} steps, one call at a time (cold day cache at the start)`);
    line('await s.replay.step (incl. lock yield)', total);
    line('  advance (walk + aggregate + commit)  ', locked);
    line('  prefetch (reads a day when one is due)', prefetches);
    line('barsResponse JSON, 100 bars', encode);
    console.log(`  process CPU per timed step (step + JSON): ${cpuLine(process.cpuUsage(cpu0), total.length)}`);
    console.log('targets: median server time ≤ 1 ms per step; ≥ 3,000 steps/s across 10 sessions over loopback');
    await s2.shutdown();
    s2.db.close();
  }
  rmSync(dir, { recursive: true, force: true });
}
