// Replay over several instruments (issue 34): Replay/step (100 × 1 m bars) and jumpTo (a day) for
// sessions of 1, 2 and 4 instruments on one clock, without orders and with working orders that can
// never trigger on every instrument (a limit far below, a stop far above). What a step reads grows
// with the instruments (each one's bars are aggregated for `barsByContract`); what the walk does
// should grow with the bars that can trigger, not with the instruments listed: the jump, which
// aggregates nothing, shows that. The spec's one-instrument session (instrumentSymbol) is the first row.
//
// In process (services without HTTP), synthetic data: a warm-up session walks the same days first, so
// the timed ones find every day generated and rolled up. Medians of the timed calls and CPU per call.
// Run: ./node_modules/.bin/bun bench/replay-multi.bench.ts
// A/B: the one-instrument rows run against any checkout (ROOT=<checkout>, bench/root.ts); the
// others need a checkout with instrumentSymbols (they are skipped, with a line, where it is absent).

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { median, SIM_POLICY } from './support.ts';
import { load } from './root.ts';

const { defaultConfig } = await load<typeof import('../src/config.ts')>('src/config.ts');
const { findInstrument } = await load<typeof import('../src/domain/instrument.ts')>('src/domain/instrument.ts');
const { systemClock } = await load<typeof import('../src/lib/clock.ts')>('src/lib/clock.ts');
const { randomSecret } = await load<typeof import('../src/lib/secrets.ts')>('src/lib/secrets.ts');
const { createServices } = await load<typeof import('../src/service/services.ts')>('src/service/services.ts');
const { openDb } = await load<typeof import('../src/store/db.ts')>('src/store/db.ts');

const STEPS = Number(process.env.MULTI_STEPS ?? 40);
const JUMPS = Number(process.env.MULTI_JUMPS ?? 8);
const START = '2025-03-03';
const SETS: { label: string; symbols: string[] | null }[] = [
  { label: 'NQ (instrumentSymbol)', symbols: null },
  { label: 'NQ (instrumentSymbols)', symbols: ['NQ'] },
  { label: 'NQ ES', symbols: ['NQ', 'ES'] },
  { label: 'NQ ES MNQ MES', symbols: ['NQ', 'ES', 'MNQ', 'MES'] },
];

const dir = mkdtempSync(join(tmpdir(), 'rd-bench-multi-'));
const s = await createServices({
  config: defaultConfig(), clock: systemClock, db: openDb(join(dir, 'replaydesk.db')), jwtSecret: new TextEncoder().encode(randomSecret()),
});
const created = await s.users.create({ email: 'multi@example.com', plan: 'pro' });
if (!created.ok) throw new Error('cannot create bench user');
const userId = created.value.user.id;

type StartBody = Parameters<typeof s.replay.start>[1];
async function start(symbols: string[] | null): Promise<number | null> {
  const body = { instrumentSymbol: symbols ? undefined : 'NQ', contractId: undefined, startDate: START, endDate: undefined, timeframe: '1m', accountId: undefined };
  const r = await s.replay.start(userId, (symbols ? { ...body, instrumentSymbols: symbols } : body) as StartBody, SIM_POLICY.start);
  if (!r.ok) throw new Error(`Replay/start failed: ${JSON.stringify(r.error)}`);
  // An older checkout ignores instrumentSymbols: its session has one instrument.
  const legs = (r.value.session as { legs?: unknown[] }).legs?.length ?? 1;
  if (symbols && legs !== symbols.length) return null;
  return r.value.session.accountId;
}

async function placeFarOrders(accountId: number, symbols: string[]): Promise<void> {
  for (const symbol of symbols) {
    const inst = findInstrument(symbol);
    if (!inst) throw new Error(symbol);
    const contractId = s.contracts.contractFor(inst).id;
    for (const [type, price] of [[1, inst.tickSize], [4, 1_000_000]] as const) {
      const r = await s.trading.place(userId, {
        accountId, contractId, type, side: 0, size: 1, limitPrice: type === 1 ? price : undefined, stopPrice: type === 4 ? price : undefined,
        stopLossTicks: undefined, takeProfitTicks: undefined,
      });
      if (!r.ok) throw new Error(`Order/place failed: ${JSON.stringify(r.error)}`);
    }
  }
}

async function timed(n: number, call: () => Promise<void>): Promise<{ ms: number; cpuUs: number }> {
  const times: number[] = [];
  const cpu0 = process.cpuUsage();
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await call();
    times.push(performance.now() - t0);
  }
  const cpu = process.cpuUsage(cpu0);
  return { ms: median(times), cpuUs: (cpu.user + cpu.system) / n };
}

async function run(symbols: string[] | null, withOrders: boolean) {
  const accountId = await start(symbols);
  if (accountId === null) return null;
  if (withOrders) await placeFarOrders(accountId, symbols ?? ['NQ']);
  const step = await timed(STEPS, async () => {
    const r = await s.replay.step(userId, accountId, 100, SIM_POLICY.stepsMax);
    if (!r.ok || r.value.advance.played !== 100) throw new Error(`step failed: ${JSON.stringify(r.ok ? r.value.advance.played : r.error)}`);
  });
  let day = 0;
  const jump = await timed(JUMPS, async () => {
    day++;
    const target = new Date(Date.parse(`${START}T00:00:00Z`) + (4 + day) * 86_400_000).toISOString();
    const r = await s.replay.jumpTo(userId, accountId, target);
    if (!r.ok) throw new Error(`jump failed: ${JSON.stringify(r.error)}`);
  });
  await s.replay.end(userId, accountId);
  return { step, jump };
}

// Warm-up: every instrument's days generated and rolled up once.
await run(['NQ', 'ES', 'MNQ', 'MES'], false).catch(() => run(null, false));
console.log(`Replay over several instruments: ${STEPS} steps of 100 × 1 m, then ${JUMPS} jumps of a day (medians; CPU per call)`);
const base: Record<string, { step: number; jump: number }> = {};
for (const withOrders of [false, true]) {
  for (const set of SETS) {
    const r = await run(set.symbols, withOrders);
    const label = `${set.label}${withOrders ? ', 2 far orders each' : ''}`.padEnd(40);
    if (r === null) {
      console.log(`  ${label} (not in this checkout)`);
      continue;
    }
    const key = String(withOrders);
    base[key] ??= { step: r.step.ms, jump: r.jump.ms };
    console.log(
      `  ${label} step ${r.step.ms.toFixed(2)} ms (×${(r.step.ms / base[key].step).toFixed(2)}, CPU ${(r.step.cpuUs / 1000).toFixed(2)} ms)` +
        `  jump ${r.jump.ms.toFixed(2)} ms (×${(r.jump.ms / base[key].jump).toFixed(2)}, CPU ${(r.jump.cpuUs / 1000).toFixed(2)} ms)`,
    );
  }
}
await s.shutdown();
s.db.close();
rmSync(dir, { recursive: true, force: true });
