// A standby child's warm-up: a short built-in run through the real harness, bridge and engine before
// the child says `ready`, so what a run's first bars used to pay for (V8 optimising the WebAssembly
// functions of CPython a strategy keeps calling, and the engine's JavaScript) is paid while the child
// waits to be handed out. The interpreter is put back as it was before (fresh.ts) right after, so a
// run cannot see that the warm-up happened; only V8's compiled code stays.
//
// Trusted code over synthetic bars: it prints nothing and sends no frame. Its strategy uses what most
// strategies use (bar fields, an indicator, the position, market orders, orders with brackets, and so
// the engine's bar walk on run bars that can fill); a failure is reported on stderr and ignored (the
// child then starts cold, as before).

import type { BarColumns } from '../../src/data/bar-columns.ts';
import { findInstrument } from '../../src/domain/instrument.ts';
import { EngineBridge, type WasmHeap } from './bridge.ts';
import { loadBatch } from './columns.ts';

/** The entry points of the interpreter the warm-up calls (main.ts's `Python`). */
export interface WarmPython {
  start: (code: unknown, params: unknown, meta: unknown, bridge: EngineBridge) => unknown;
  alloc: (n: number) => string;
  batch: (base: number, off: number, m: number, ctx: unknown, legs?: unknown) => unknown;
  finish: () => unknown;
  logs: () => string[];
  heap: WasmHeap & { HEAPF64: Float64Array; HEAPU32: Uint32Array };
}

const WARM_CODE = `
from indicators import SMA, EMA


def init(ctx):
    ctx.fast = SMA(10)
    ctx.slow = EMA(30)
    ctx.prev = None
    ctx.n = 0


def on_bar(ctx, bar):
    f = ctx.fast.update(bar.close)
    s = ctx.slow.update(bar.close)
    if f is None or s is None:
        return
    d = f - s
    p = ctx.prev
    ctx.prev = d
    if p is None:
        return
    qty = ctx.position.qty
    ctx.n += 1
    if p <= 0 < d and qty <= 0:
        if ctx.n % 4 == 0:
            ctx.flatten()
            ctx.buy(1, stop_loss=40, take_profit=40)
        else:
            ctx.buy(1 - qty)
    elif p >= 0 > d and qty >= 0:
        if ctx.n % 4 == 1:
            ctx.flatten()
            ctx.sell(1, stop_loss=40, take_profit=40)
        else:
            ctx.sell(1 + qty)
`;

const T0 = 1_735_776_000; // 2025-01-02 00:00 UTC
const DAY_BARS = 1380;

/** n bars of a seeded random walk in NQ ticks, as a batch frame carries them (little-endian 32-bit columns). */
function syntheticBars(n: number): Record<'o' | 'h' | 'l' | 'c' | 'v' | 'time' | 'e', Int32Array | Uint32Array> {
  const o = new Int32Array(n);
  const h = new Int32Array(n);
  const l = new Int32Array(n);
  const c = new Int32Array(n);
  const v = new Uint32Array(n);
  const time = new Uint32Array(n);
  const e = new Uint32Array(n);
  let seed = 12345;
  const rand = () => {
    seed = (seed * 1103515245 + 12345) >>> 0;
    return seed / 4294967296;
  };
  let price = 84_000;
  for (let i = 0; i < n; i++) {
    const open = price;
    price += Math.round((rand() - 0.5) * 24);
    o[i] = open;
    c[i] = price;
    h[i] = Math.max(open, price) + Math.floor(rand() * 6);
    l[i] = Math.min(open, price) - Math.floor(rand() * 6);
    v[i] = 100 + Math.floor(rand() * 50);
    time[i] = T0 + i * 60; // 1-minute bars
    e[i] = time[i] + 60;
  }
  return { o, h, l, c, v, time, e };
}

const bytes = (a: Int32Array | Uint32Array) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);

/**
 * Runs the warm-up over `bars` synthetic 1-minute bars; the caller restores the interpreter afterwards.
 * Answers the bars run (0 when the warm-up failed).
 */
export function warmUp(p: WarmPython, bars: number): number {
  const inst = findInstrument('NQ');
  if (!inst || bars <= 0) return 0;
  const cols = syntheticBars(bars);
  // A run bar's stored bars are the run bar itself (the engine's walk over one bar).
  const fine = (k: number): Map<number, BarColumns> => new Map([[k, {
    length: 1, time: cols.time.subarray(k, k + 1) as Uint32Array, open: cols.o.subarray(k, k + 1) as Int32Array, high: cols.h.subarray(k, k + 1) as Int32Array,
    low: cols.l.subarray(k, k + 1) as Int32Array, close: cols.c.subarray(k, k + 1) as Int32Array, volume: cols.v.subarray(k, k + 1) as Uint32Array,
  }]]);
  const bridge = new EngineBridge(inst, 5_000_000, 1, p.heap, (k) => fine(k));
  const meta = {
    symbol: inst.symbol, ticks_per_unit: inst.ticksPerPoint, tick_size: inst.tickSize, tick_value: inst.tickValueCents / 100,
    timeframe: '1m', context_timeframes: [], starting_balance: 50_000, start: T0, end: T0 + bars * 60,
  };
  let error = p.start(WARM_CODE, {}, meta, bridge) as string | undefined;
  for (let base = 0; base < bars && !error; base += DAY_BARS) {
    const end = Math.min(bars, base + DAY_BARS);
    const m: Record<string, unknown> = {};
    for (const [key, col] of Object.entries(cols)) m[key] = bytes(col.slice(base, end));
    const loaded = loadBatch(m, inst.ticksPerPoint, p.alloc, p.heap);
    bridge.batch = { base, end: loaded.end, close: loaded.close };
    bridge.actions = [];
    error = p.batch(base, 0, end - base, []) as string | undefined;
  }
  bridge.actions = [];
  error ??= p.finish() as string | undefined;
  p.logs();
  if (!error) return bars;
  console.error(`warm-up failed (the child starts cold): ${error}`);
  return 0;
}
