// What an optimisation's combinations share on one node (docs/decisions.md, "Optimiser in seconds"):
//
// - Runner children. A combination that finished cleanly leaves its child here; told `reset`, the
//   child puts its interpreter back as it was before its first run (runner/child/fresh.ts) and says
//   `ready` again, and the next combination of the same optimisation (the same user's same code) on
//   this node takes it instead of a new child from the pool. A child is killed after `playgroundSharedChildRunsMax`
//   runs, when it is not ready again (a failed reset), or when no combination took it for
//   `playgroundSharedChildIdleMs`. A combination that failed, stopped or timed out never leaves its
//   child: the execution kills it.
// - The bars of a span: the run and context bars of each day, aggregated once and reused by every
//   combination of the span (a walk-forward has a span a window), up to
//   `playgroundOptimizeBarsKeptMax` run bars an optimisation. A combination's stored bars are read
//   for it alone (they are read only where an order can fill, and a year of them would not fit).
//
// An optimisation's entry goes when its last child and its last run here are gone for the idle time.

import type { RunnerChild } from '../../../runner/host/child.ts';
import { limits } from '../../config.ts';
import type { BarSource } from '../../data/bar-source.ts';
import { DayBatch, dayBatch, type RunSpan } from './feed.ts';

interface Parked {
  child: RunnerChild;
  /** Settles true once the child said `ready` after its reset; false when it did not. */
  ready: Promise<boolean>;
  timer: ReturnType<typeof setTimeout>;
}

type DayBars = Pick<DayBatch, 'run' | 'runEnd' | 'ctx'> | null;

interface Entry {
  parked: Parked[];
  /** Per span, per UTC day: the day's run and context bars (null: none that day). */
  spans: Map<string, Map<number, DayBars>>;
  barsKept: number;
  /** Runs of this optimisation executing here. */
  running: number;
  timer: ReturnType<typeof setTimeout> | null;
}

export class OptimizationShares {
  private readonly entries = new Map<string, Entry>();
  /** Runs each child has served (a child is another's only through this registry). */
  private readonly runs = new WeakMap<RunnerChild, number>();

  constructor(private readonly source: BarSource) {}

  /** A run of `optimizationId` begins here: its entry stays while it runs. */
  begin(optimizationId: string): void {
    const e = this.entry(optimizationId);
    e.running++;
    if (e.timer) clearTimeout(e.timer);
    e.timer = null;
  }

  /** A run of `optimizationId` ended here. */
  end(optimizationId: string): void {
    const e = this.entries.get(optimizationId);
    if (!e) return;
    e.running--;
    this.expireLater(optimizationId, e);
  }

  /** A child of the optimisation, ready for its next run, or null when none is (the pool gives one). */
  async take(optimizationId: string): Promise<RunnerChild | null> {
    const e = this.entries.get(optimizationId);
    for (let p = e?.parked.pop(); p !== undefined; p = e?.parked.pop()) {
      clearTimeout(p.timer);
      if (await p.ready) {
        this.runs.set(p.child, (this.runs.get(p.child) ?? 0) + 1);
        return p.child;
      }
      p.child.kill();
    }
    return null;
  }

  /** A child given by the pool to a run of the optimisation: its first run. */
  adopt(child: RunnerChild): void {
    this.runs.set(child, 1);
  }

  /** Keeps a child that finished a run cleanly for the optimisation's next run, or kills it at its bound. */
  park(optimizationId: string, child: RunnerChild): void {
    const e = this.entries.get(optimizationId);
    if (!e || (this.runs.get(child) ?? 1) >= limits.playgroundSharedChildRunsMax) return child.kill();
    // Only a kept child puts its interpreter back (a single run's child is killed without it).
    child.send({ t: 'reset' });
    const ready = readyAgain(child);
    const p: Parked = { child, ready, timer: setTimeout(() => this.drop(e, p), limits.playgroundSharedChildIdleMs) };
    e.parked.push(p);
    void ready.then((ok) => ok || this.drop(e, p));
  }

  /** The span's bars of UTC day `day` for a run of the optimisation, aggregated once for all its runs. */
  dayBatch(optimizationId: string, span: RunSpan, day: number): DayBatch | null {
    const e = this.entries.get(optimizationId);
    if (!e) return dayBatch(this.source, span, day);
    const key = `${span.inst.symbol}|${span.tf.text}|${span.ctx.map((t) => t.text).join(',')}|${span.startS}|${span.endS}`;
    let days = e.spans.get(key);
    if (!days) e.spans.set(key, (days = new Map()));
    let bars = days.get(day);
    if (bars === undefined) {
      const b = dayBatch(this.source, span, day);
      bars = b === null ? null : { run: b.run, runEnd: b.runEnd, ctx: b.ctx };
      if (e.barsKept + (b?.run.length ?? 0) > limits.playgroundOptimizeBarsKeptMax) return b;
      e.barsKept += b?.run.length ?? 0;
      days.set(day, bars);
      if (b !== null) return b;
    }
    return bars === null ? null : new DayBatch(this.source, span, day, bars.run, bars.runEnd, bars.ctx);
  }

  /** Kills every kept child (the node is stopping). */
  close(): void {
    for (const e of this.entries.values()) {
      if (e.timer) clearTimeout(e.timer);
      for (const p of e.parked.splice(0)) {
        clearTimeout(p.timer);
        p.child.kill();
      }
    }
    this.entries.clear();
  }

  private entry(id: string): Entry {
    let e = this.entries.get(id);
    if (!e) this.entries.set(id, (e = { parked: [], spans: new Map(), barsKept: 0, running: 0, timer: null }));
    return e;
  }

  private drop(e: Entry, p: Parked): void {
    clearTimeout(p.timer);
    const at = e.parked.indexOf(p);
    if (at >= 0) e.parked.splice(at, 1);
    p.child.kill();
  }

  /** The entry goes once nothing of it ran here for the idle time (its children are gone by then). */
  private expireLater(id: string, e: Entry): void {
    if (e.running > 0) return;
    if (e.timer) clearTimeout(e.timer);
    e.timer = setTimeout(() => {
      if (e.running > 0 || this.entries.get(id) !== e) return;
      for (const p of e.parked.splice(0)) this.drop(e, p);
      this.entries.delete(id);
    }, limits.playgroundSharedChildIdleMs);
  }
}

/** Waits for a reset child's `ready` (a bound on a stuck reset: the idle time); false on anything else. */
async function readyAgain(child: RunnerChild): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), limits.playgroundSharedChildIdleMs)));
  try {
    const m = await Promise.race([child.next(), late]);
    return m !== false && m.kind === 'message' && m.msg.t === 'ready';
  } finally {
    clearTimeout(timer);
  }
}
