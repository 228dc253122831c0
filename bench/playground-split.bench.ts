// Where a playground run's child CPU goes, by difference: the same year of NQ 1 m bars as
// bench/playground-child.bench.ts's `sma`, run by four strategies in a real child (the server's
// Execution, as there), each's child CPU from hand-out to kill:
//   empty     an empty on_bar: the child's fixed costs and the harness's per-bar loop
//   noorders  the sma_cross template with its two order calls taken out: + the template's averages and logic
//   orders    a market order every 25 bars (about the template's count) and nothing else: + the orders alone
//   sma       the template itself (about 14,000 orders)
// So noorders − empty is the strategy's own Python, sma − noorders what its orders cost the child (the
// Python order path, the crossing to the engine's JavaScript, the engine), divided by the orders
// placed (`ordersOf` below counts the round trips the run recorded). Also the child's CPU while it
// loaded (spawn to hand-out), which a run does not wait for.
//
// Run: ./node_modules/.bin/bun bench/playground-split.bench.ts
//   RUNS=n      timed runs of each strategy (default 3), after one untimed run (rollups, caches)
//   ONLY=a,b    some of the strategies
//   ROOT=dir    the server and runner code of another checkout (bench/root.ts); the strategies stay these

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { trackChildren, treeCpuMs } from './playground-cpu.ts';
import { ROOT } from './root.ts';
import { benchServices, benchUser, executionOf } from './playground-setup.ts';
import { median } from './support.ts';

const RUNS = Number(process.env.RUNS ?? 3);
const ONLY = process.env.ONLY?.split(',');
const SPAN = { instrument: 'NQ', startDate: '2025-01-02', endDate: '2025-12-31', timeframe: '1m' };
const PARAMS = { fast: 10, slow: 30, size: 1 };

const sma = readFileSync(join(import.meta.dir, '..', 'src/service/playground/templates/sma_cross.py'), 'utf8');
const STRATEGIES: Record<string, string> = {
  empty: 'def on_bar(ctx, bar):\n    pass\n',
  noorders: sma.replace('ctx.buy(size - qty)', 'pass').replace('ctx.sell(size + qty)', 'pass'),
  orders: 'def init(ctx):\n    ctx.i = 0\n\ndef on_bar(ctx, bar):\n    ctx.i += 1\n    if ctx.i % 25 == 0:\n        q = ctx.position.qty\n        if q <= 0:\n            ctx.buy(1 - q)\n        else:\n            ctx.sell(1 + q)\n',
  sma,
};
if (STRATEGIES.noorders === sma) throw new Error('the template changed: noorders no longer differs from it');

const { s, close } = await benchServices('rd-bench-playground-split-');
const userId = await benchUser(s);
const pool = s.runner();
await pool.warm();
const children = trackChildren(pool);

interface Once {
  trades: number;
  childCpuMs: number;
  loadCpuMs: number;
}

async function once(code: string): Promise<Once> {
  const plan = await s.runs.plan(userId, { ...SPAN, code, params: PARAMS });
  if (!plan.ok) throw new Error(JSON.stringify(plan.error));
  const exec = executionOf(s, userId, plan.value);
  const child = await pool.acquire();
  const loadCpuMs = treeCpuMs(child.pid);
  await exec.run(child);
  if (exec.status !== 'completed') throw new Error(`${exec.status}: ${exec.error}`);
  return { trades: exec.ledger.closedTrades.length, childCpuMs: children.take()[0], loadCpuMs };
}

console.log(`NQ 1 m ${SPAN.startDate} .. ${SPAN.endDate}, ${ROOT}`);
await once(STRATEGIES.empty); // rollups, caches
const cpu: Record<string, number> = {};
const trades: Record<string, number> = {};
for (const [name, code] of Object.entries(STRATEGIES)) {
  if (ONLY && !ONLY.includes(name)) continue;
  const rs: Once[] = [];
  for (let i = 0; i < RUNS; i++) rs.push(await once(code));
  cpu[name] = median(rs.map((r) => r.childCpuMs));
  trades[name] = rs[0].trades;
  console.log(`${name}: ${rs[0].trades} round trips; medians of ${RUNS}: child CPU ${cpu[name]} ms [${rs.map((r) => r.childCpuMs).join(' ')}], its load ${median(rs.map((r) => r.loadCpuMs))} ms`);
}
if (cpu.sma !== undefined && cpu.noorders !== undefined && cpu.empty !== undefined) {
  // The template reverses its position with each order after the first: one order a round trip.
  console.log(`split of sma: loop and fixed ${cpu.empty} ms, the strategy's Python ${cpu.noorders - cpu.empty} ms, its ${trades.sma} orders ${cpu.sma - cpu.noorders} ms (${(((cpu.sma - cpu.noorders) / trades.sma) * 1000).toFixed(1)} µs an order)`);
}
console.log(`load ${(await Bun.file('/proc/loadavg').text()).split(' ').slice(0, 3).join(' ')}`);
await close();
process.exit(0);
