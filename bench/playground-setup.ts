// The playground benches' in-process setup: ROOT's services (bench/root.ts) over a fresh SQLite
// database with the 2024–2025 data span and a runner pool of one (as a server runs: each run takes
// the child loaded ahead of need, and its successor loads meanwhile), a Pro user, and the server's
// Execution of a planned run driving a child. Only modules and exports every commit since the
// previous release has.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from './root.ts';

const { defaultConfig, limits } = await import(join(ROOT, 'src/config.ts'));
const { systemClock } = await import(join(ROOT, 'src/lib/clock.ts'));
const { randomSecret } = await import(join(ROOT, 'src/lib/secrets.ts'));
const { createServices } = await import(join(ROOT, 'src/service/services.ts'));
const { Execution } = await import(join(ROOT, 'src/service/playground/execution.ts'));
const { openDb } = await import(join(ROOT, 'src/store/db.ts'));

export const BENCH_EMAIL = 'bench@example.com';
export const BENCH_PASSWORD = 'bench password 123';

/** ROOT's services (loaded by path, so untyped here: they are that checkout's). */
type Services = Awaited<ReturnType<typeof createServices>>;

/** ROOT's services over a fresh database in a temporary directory; `close` shuts them and removes it. */
export async function benchServices(prefix: string): Promise<{ s: Services; close: () => Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const db = openDb(join(dir, 'replaydesk.db'));
  const s = await createServices({
    config: defaultConfig({ dataStartDate: '2024-01-01', dataEndDate: '2025-12-31', runnerCacheDir: join(tmpdir(), 'replaydesk-bench-runner'), runnerPoolSize: 1 }),
    clock: systemClock,
    db,
    jwtSecret: new TextEncoder().encode(randomSecret()),
  });
  const close = async () => {
    await s.shutdown();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  };
  return { s, close };
}

/** The bench user (Pro), made once; answers its id. */
export async function benchUser(s: Services): Promise<number> {
  await s.users.create({ email: BENCH_EMAIL, plan: 'pro', password: BENCH_PASSWORD });
  return (await s.users.list())[0].id;
}

/** The server's Execution of a planned run (`s.runs.plan`'s value), as a run over HTTP makes it. */
export function executionOf(s: Services, userId: number, p: Services) {
  return new Execution(
    {
      id: crypto.randomUUID(), userId, span: { inst: p.inst, tf: p.tf, ctx: p.ctx, startS: p.startS, endS: p.endS }, code: p.code, params: p.params,
      totalBars: p.totalBars, speed: null, timeoutMs: 600_000, slippageTicks: 1, startingBalanceCents: limits.startingBalanceCents, nowMs: () => Date.now(),
      logError: (message: string, fields: Record<string, unknown>) => console.error(message, fields),
    },
    s.bars,
  );
}
