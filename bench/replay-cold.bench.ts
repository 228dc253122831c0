// Cold start (defect 12): Replay/step of 100 × 1 d bars right after the server starts, on days whose
// rollups nobody has built yet. The start-up warm-up (data/rollup-warmup.ts) runs newest day first,
// so for its first minute or so older dates are cold: each day of the step must be generated (1 s
// bars) and rolled up before the step can answer.
//
// Setup: a fresh database in a temp dir, synthetic history 2023-01-01..2025-06-30, the warm-up
// started as the server does after listening (services.warmRollups()). Then, one call at a time and
// in process (no HTTP): for each of the seven instruments and three start dates (2024-01-02,
// 2023-07-03, 2023-01-03, newest first like the warm-up, so it has not reached them), start a 1 d
// session, time `await s.replay.step(…, 100)`, end the session. While each step runs, a 1 ms timer
// records the longest gap between its ticks: how long the server's event loop was held (what every
// other request waits). Then the same 21 steps again on new sessions (rollups kept by then): the
// warm figure.
//
// Reports medians (and max) of the step's wall time and of the event-loop hold, cold and warm, and
// how far back the warm-up had come when the cold steps were done.
//
// A/B: ROOT=<checkout> measures that checkout's src/ (bench/root.ts loads it; any commit since the
// previous release: only modules and exports they all have), the same load from this file and bench/'s
// helpers; `npm run bench -- --baseline <commit> --only replay-cold` runs this checkout and <commit> in turn.
// Run: ./node_modules/.bin/bun bench/replay-cold.bench.ts      (ROLLUP_WORKERS=0 or 2 to compare)

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Services } from '../src/service/services.ts';
import { median, SIM_POLICY } from './support.ts';
import { load } from './root.ts';

const { defaultConfig } = await load<typeof import('../src/config.ts')>('src/config.ts');
const { INSTRUMENTS } = await load<typeof import('../src/domain/instrument.ts')>('src/domain/instrument.ts');
const { systemClock } = await load<typeof import('../src/lib/clock.ts')>('src/lib/clock.ts');
const { randomSecret } = await load<typeof import('../src/lib/secrets.ts')>('src/lib/secrets.ts');
const { createServices } = await load<typeof import('../src/service/services.ts')>('src/service/services.ts');
const { openDb } = await load<typeof import('../src/store/db.ts')>('src/store/db.ts');

const START_DATES = ['2024-01-02', '2023-07-03', '2023-01-03'];
const STEP_BARS = 100;

interface Sample {
  label: string;
  stepMs: number;
  loopHoldMs: number;
  bars: number;
}

const dir = mkdtempSync(join(tmpdir(), 'rd-bench-cold-'));
// ROLLUP_WORKERS=0 builds on the main thread (the behaviour before the builder), for a side-by-side run.
const workers = process.env.ROLLUP_WORKERS ? { rollupWorkers: Number(process.env.ROLLUP_WORKERS) } : {};
const config = defaultConfig({ dataStartDate: '2023-01-01', dataEndDate: '2025-06-30', ...workers });
const s = await createServices({ config, clock: systemClock, db: openDb(join(dir, 'replaydesk.db')), jwtSecret: new TextEncoder().encode(randomSecret()) });
const startedMs = performance.now();
s.warmRollups();

/**
 * Steps 100 × 1 d once per instrument from `startDate`, each on a new session of a new user (starts
 * are limited to 20 a minute per user); one call at a time.
 */
async function pass(s: Services, email: string, startDate: string): Promise<Sample[]> {
  const created = await s.users.create({ email, plan: 'pro' });
  if (!created.ok) throw new Error('cannot create bench user');
  const userId = created.value.user.id;
  const out: Sample[] = [];
  {
    for (const inst of INSTRUMENTS) {
      const r = await s.replay.start(userId, {
        instrumentSymbol: inst.symbol, contractId: undefined, startDate, endDate: undefined, timeframe: '1d', accountId: undefined,
      }, SIM_POLICY.start);
      if (!r.ok) throw new Error(`Replay/start failed: ${JSON.stringify(r.error)}`);
      const accountId = r.value.session.accountId;
      let last = performance.now();
      let hold = 0;
      const timer = setInterval(() => {
        const now = performance.now();
        hold = Math.max(hold, now - last);
        last = now;
      }, 1);
      const t0 = performance.now();
      const step = await s.replay.step(userId, accountId, STEP_BARS, SIM_POLICY.stepsMax);
      const stepMs = performance.now() - t0;
      hold = Math.max(hold, performance.now() - last);
      clearInterval(timer);
      if (!step.ok) throw new Error(`Replay/step failed: ${JSON.stringify(step.error)}`);
      out.push({ label: `${inst.symbol} ${startDate}`, stepMs, loopHoldMs: hold, bars: step.value.advance.played });
      await s.replay.end(userId, accountId);
    }
  }
  return out;
}

function report(label: string, xs: Sample[]): void {
  const step = xs.map((x) => x.stepMs);
  const hold = xs.map((x) => x.loopHoldMs);
  console.log(
    `${label}: ${xs.length} steps of ${STEP_BARS} × 1 d (${Math.min(...xs.map((x) => x.bars))}–${Math.max(...xs.map((x) => x.bars))} bars)\n` +
      `  step wall time      median ${median(step).toFixed(1)} ms, max ${Math.max(...step).toFixed(1)} ms\n` +
      `  event loop held     median ${median(hold).toFixed(1)} ms, max ${Math.max(...hold).toFixed(1)} ms (longest gap of a 1 ms timer during the step)`,
  );
}

const cold: Sample[] = [];
const warm: Sample[] = [];
for (const [k, startDate] of START_DATES.entries()) cold.push(...(await pass(s, `cold${k}@example.com`, startDate)));
const coldDoneS = (performance.now() - startedMs) / 1000;
// The warm-up's progress: the oldest day it kept after the steps' days (they end by 2024-06-01).
const reached = s.db.query("SELECT MIN(day) AS d FROM bar_rollups WHERE day >= unixepoch('2024-06-01') / 86400").get() as { d: number | null };
for (const [k, startDate] of START_DATES.entries()) warm.push(...(await pass(s, `warm${k}@example.com`, startDate)));
console.log(`rollup workers: ${config.rollupWorkers}`);
report('cold, right after start', cold);
const reachedText = reached.d === null ? 'nothing yet' : new Date(reached.d * 86_400_000).toISOString().slice(0, 10);
console.log(`  (cold steps done ${coldDoneS.toFixed(1)} s after start; the warm-up had come back to ${reachedText})`);
report('warm, same steps again on new sessions', warm);
await s.shutdown();
s.db.close();
rmSync(dir, { recursive: true, force: true });
