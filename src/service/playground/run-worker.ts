// This node's side of the job queue (service/jobs/queue.ts): it claims queued runs while a runner
// share has room, runs each on a child from the pool (execution.ts), heart-beats its row (progress
// for the other nodes; the stop and pace any node set, read back) and completes it once with the
// ledger's results. One claimer at a time, run again if poked meanwhile.
//
// Runners are shared in two parts (docs/decisions.md, "Playground"). A full-speed run keeps a core
// busy: `maxConcurrent` of them at once. A paced run (speed 1–50) waits between bars most of its
// time: it takes a place in a share of its own (`pacedMaxConcurrent` a node), so paced runs never
// hold the full-speed slots. Optimisations' combinations hold at most `optimizeMaxConcurrent` of
// the full-speed runners together, and yield to single runs (the queue hands single runs out first).

import { limits } from '../../config.ts';
import type { BarSource } from '../../data/bar-source.ts';
import { findInstrument, type Instrument } from '../../domain/instrument.ts';
import { parseTimeframe } from '../../domain/timeframe.ts';
import type { Clock } from '../../lib/clock.ts';
import type { RunnerPool } from '../../../runner/host/pool.ts';
import type { ClaimedRun, JobQueue, RunProgress, ShareCaps } from '../jobs/queue.ts';
import type { RunnerChild } from '../../../runner/host/child.ts';
import { Execution, type ExecutionInit, SHUTDOWN_MESSAGE } from './execution.ts';
import type { RunSpan } from './feed.ts';
import { OptimizationShares } from './optimize-shared.ts';
import { runSummary, type ViewedRun } from './run-views.ts';

/** The run settings the playground needs from the configuration. */
export interface RunSettings {
  customTimeframes: boolean;
  slippageTicks: number;
  timeoutMs: number;
  /** Full-speed runs at once (cores). */
  maxConcurrent: number;
  /** Paced runs at once: their own share. */
  pacedMaxConcurrent: number;
  /** Of this node's full-speed runners, how many optimisations' combinations may hold together (fair share). */
  optimizeMaxConcurrent?: number;
}

type LogError = (message: string, fields: Record<string, unknown>) => void;

/** A run executing on this node. */
export interface Live extends ViewedRun {
  /** Holds a place in the paced share (else a full-speed one). */
  paced: boolean;
  /** Pace changes made here: a heartbeat begun before one must not undo it with the older pace it read. */
  speedEdits: number;
  heartbeat: ReturnType<typeof setInterval>;
  beating: boolean;
  /**
   * Not this node's to end any more: given back to the queue at shutdown (another node runs it from
   * the start), or failed by another node while this one was silent. Its end here is not recorded,
   * and its readers follow the row.
   */
  handedBack: boolean;
  /** Settles once the run's end is recorded (or let go): its readers hear `done` only then. */
  recorded: Promise<void>;
  markRecorded: () => void;
}

export class RunWorker {
  /** Runs executing on this node's runners. */
  private readonly live = new Map<string, Live>();
  private closing = false;
  private claiming: Promise<void> | null = null;
  private pokeAgain = false;
  /** What an optimisation's combinations share here: children and the span's bars. */
  private readonly shares: OptimizationShares;

  constructor(
    private readonly queue: JobQueue,
    private readonly source: BarSource,
    private readonly pool: () => RunnerPool,
    private readonly settings: RunSettings,
    private readonly clock: Clock,
    private readonly logError: LogError,
  ) {
    this.shares = new OptimizationShares(source);
    queue.serve({ claim: () => this.poke(), stop: (ids) => this.stopLocal(ids) });
  }

  /** The runner shares' caps, cluster-wide (per node: the queue counts them over every node). */
  caps(): ShareCaps {
    return { full: this.settings.maxConcurrent, paced: this.settings.pacedMaxConcurrent, pacedWaiting: limits.playgroundPacedWaitingMax };
  }

  /** The run executing here under `id`, if any. */
  get(id: string): Live | undefined {
    return this.live.get(id);
  }

  /** The user's run executing on this node, if any. */
  runningOf(userId: number): Live | undefined {
    for (const l of this.live.values()) if (l.exec.userId === userId && l.exec.status === 'running') return l;
    return undefined;
  }

  /** Claims queued runs while this node has a free runner; one claimer at a time, run again if poked meanwhile. */
  poke(): Promise<void> {
    if (this.claiming) {
      this.pokeAgain = true;
      return this.claiming;
    }
    this.claiming = (async () => {
      do {
        this.pokeAgain = false;
        while (!this.closing && await this.claimOne());
      } while (this.pokeAgain && !this.closing);
    })().finally(() => (this.claiming = null));
    return this.claiming;
  }

  private async claimOne(): Promise<boolean> {
    const room = {
      full: this.localCount(false) < this.settings.maxConcurrent,
      paced: this.localCount(true) < this.settings.pacedMaxConcurrent,
      optimizations: this.localOptimizing() < (this.settings.optimizeMaxConcurrent ?? this.settings.maxConcurrent),
    };
    const c = await this.queue.claim(room);
    if (c === null) return false;
    if (!this.closing) this.launch(c);
    else if (this.queue.requeuesAtShutdown) await this.queue.requeue([c.row.id]);
    else await this.queue.fail(c.row.id, SHUTDOWN_MESSAGE);
    return true;
  }

  private localOptimizing(): number {
    let n = 0;
    for (const l of this.live.values()) if (l.row.optimizationId !== null) n++;
    return n;
  }

  private localCount(paced: boolean): number {
    let n = 0;
    for (const l of this.live.values()) if (l.paced === paced) n++;
    return n;
  }

  /** Stops the runs of `ids` executing on this node at once (their rows were flagged for the others). */
  stopLocal(ids: readonly string[]): void {
    for (const id of ids) this.live.get(id)?.exec.stop();
  }

  /** Applies a pace set here (the store has it): the run's share, its speed and its row. */
  paceLocal(id: string, speed: number | null, paced: boolean): { leftPacedShare: boolean } {
    const l = this.live.get(id);
    if (!l) return { leftPacedShare: false };
    const leftPacedShare = l.paced && !paced;
    l.speedEdits++;
    l.paced = paced;
    l.exec.setSpeed(speed);
    l.row.speed = speed;
    return { leftPacedShare };
  }

  /** Runs a claimed run on this node's pool, heart-beating its row until it ends. */
  private launch({ row, job }: ClaimedRun): void {
    const inst = findInstrument(row.instrument) as Instrument;
    const parse = (text: string) => {
      const r = parseTimeframe(text, { customEnabled: true, storedResolutionS: inst.storedResolutionS });
      if (!r.ok) throw new Error(`stored run ${row.id}: timeframe ${text} does not parse`);
      return r.value;
    };
    const span = { inst, tf: parse(row.timeframe), ctx: row.contextTimeframes.map(parse), startS: job.startS, endS: job.endS };
    const exec = new Execution(
      {
        id: row.id, userId: row.userId, span,
        instruments: job.symbols?.map((symbol) => findInstrument(symbol) as Instrument) ?? null,
        code: job.code, params: row.params as Record<string, number | string | boolean>, totalBars: row.barsTotal, speed: row.speed,
        timeoutMs: this.settings.timeoutMs, slippageTicks: this.settings.slippageTicks, startingBalanceCents: limits.startingBalanceCents,
        nowMs: () => this.clock.nowMs(), logError: this.logError, ...this.sharing(row.optimizationId, span),
      },
      this.source,
    );
    let markRecorded = () => {};
    const recorded = new Promise<void>((resolve) => (markRecorded = resolve));
    const l: Live = {
      exec, row, paced: row.paced, speedEdits: 0, beating: false, handedBack: false, heartbeat: setInterval(() => void this.beat(l), limits.playgroundHeartbeatMs),
      recorded, markRecorded, view: null,
    };
    // Put back in the queue while this node was silent, and claimed here again: the old copy goes.
    const old = this.live.get(row.id);
    if (old) this.letGo(old);
    this.live.set(row.id, l);
    exec.subscribe((e) => {
      if (e.type === 'done') void this.ended(l);
    });
    this.child(row.optimizationId).then(
      (child) => exec.run(child),
      (e) => {
        this.logError('runner unavailable', { executionId: row.id, error: String(e) });
        exec.failWithoutChild('The strategy sandbox could not be started; try again later');
      },
    );
  }

  /**
   * An optimisation's combination shares children and the span's bars with the optimisation's other
   * combinations on this node (optimize-shared.ts); a single run has a child of its own.
   */
  private sharing(optimizationId: string | null, span: RunSpan): Pick<ExecutionInit, 'release' | 'dayBatch'> {
    if (optimizationId === null) return {};
    this.shares.begin(optimizationId);
    return {
      release: (child) => this.shares.park(optimizationId, child),
      dayBatch: (day) => this.shares.dayBatch(optimizationId, span, day),
    };
  }

  /** A ready child: the optimisation's own when one is free, else the pool's. */
  private async child(optimizationId: string | null): Promise<RunnerChild> {
    if (optimizationId === null) return this.pool().acquire();
    const kept = await this.shares.take(optimizationId);
    if (kept) return kept;
    const child = await this.pool().acquire({ lasting: true });
    this.shares.adopt(child);
    return child;
  }

  /** Writes the run's progress and heartbeat; applies the stop and pace any node set on its row. */
  private async beat(l: Live): Promise<void> {
    if (l.beating || l.exec.status !== 'running') return;
    l.beating = true;
    const edits = l.speedEdits;
    try {
      const led = l.exec.ledger;
      const progress: RunProgress = { balanceCents: led.balanceCents, equityCents: led.equityCents(), stats: led.stats(), ...symbolsOf(l.exec) };
      const ctl = await this.queue.heartbeat(l.exec.id, l.exec.barsDone, progress);
      // Failed or put back in the queue by another node (this one was silent too long): the sandbox
      // here is killed, and reads from now on come from the row, not from this copy.
      if (ctl === null) return this.letGo(l);
      if (ctl.stopRequested) l.exec.stop();
      if (edits === l.speedEdits && ctl.speed !== l.exec.speed) l.exec.setSpeed(ctl.speed);
      if (edits === l.speedEdits) l.paced = ctl.paced;
    } catch (e) {
      if (!this.closing) this.logError('playground run heartbeat failed', { executionId: l.exec.id, error: String(e) });
    } finally {
      l.beating = false;
    }
  }

  /** A run no longer this node's (another node failed it, or put it back in the queue): its sandbox is killed, its end not recorded here. */
  private letGo(l: Live): void {
    l.handedBack = true;
    this.forget(l);
    l.exec.abort();
  }

  /** Drops `l` from the runs executing here, unless a newer copy of its row took its place. */
  private forget(l: Live): void {
    if (this.live.get(l.exec.id) === l) this.live.delete(l.exec.id);
  }

  private async ended(l: Live): Promise<void> {
    clearInterval(l.heartbeat);
    if (l.row.optimizationId !== null) this.shares.end(l.row.optimizationId);
    if (l.handedBack) {
      this.forget(l);
      return l.markRecorded();
    }
    try {
      await this.queue.complete({ id: l.exec.id, optimizationId: l.row.optimizationId }, endOf(l.exec, this.clock.nowMs()));
    } catch (e) {
      if (!this.closing) this.logError('playground run record failed', { executionId: l.exec.id, error: String(e) });
    }
    // Read from memory until the record is written (a PostgreSQL write takes a round trip): a read
    // in between sees the ended run, never the row still running.
    this.forget(l);
    l.markRecorded();
    // A runner is free: take the next queued run.
    if (!this.closing) void this.poke().catch((e) => this.logError('playground run queue', { error: String(e) }));
  }

  /**
   * Ends this node's part in its executions in flight, waiting (5 s at most) until their sandboxes
   * stop. On a shared queue a run still going is handed back, where another node (or this one's next
   * start) runs it from the start; on a local one it is failed with the reason, as a restart fails
   * it anyway (docs/decisions.md, "Playground").
   */
  async shutdown(): Promise<void> {
    this.closing = true;
    this.queue.close();
    await this.claiming;
    this.shares.close();
    const live = [...this.live.values()];
    if (live.length === 0) return;
    if (this.queue.requeuesAtShutdown) for (const l of live) l.handedBack = l.exec.status === 'running';
    await abortAll(live);
    await this.queue.requeue(live.filter((l) => l.handedBack).map((l) => l.exec.id));
    // Only this process's runs: the admin CLI shares the database with a live server.
    for (const l of live) if (!l.handedBack) await this.queue.fail(l.exec.id, SHUTDOWN_MESSAGE);
  }
}

/** Aborts the executions and waits for their ends, 5 s at most. */
async function abortAll(live: readonly Live[]): Promise<void> {
  const done = live.map(
    (l) => new Promise<void>((resolve) => {
      l.exec.subscribe((e) => e.type === 'done' && resolve());
      l.exec.abort();
    }),
  );
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([Promise.all(done), new Promise<void>((resolve) => (timer = setTimeout(resolve, 5000)))]);
  clearTimeout(timer);
}

/** `instrumentSymbols` of a run over several instruments (its progress and record carry them), else nothing. */
function symbolsOf(exec: Execution): { instrumentSymbols?: string[] } {
  return exec.instruments === null ? {} : { instrumentSymbols: exec.instruments.map((i) => i.symbol) };
}

/** What an ended execution's record holds: its totals, every trade up to the bound, its result. */
function endOf(exec: Execution, nowMs: number) {
  const stats = exec.ledger.stats();
  const trades = exec.ledger.closedTrades;
  return {
    status: exec.status === 'running' ? 'failed' as const : exec.status,
    error: exec.error,
    totalPnlCents: stats.totalPnlCents,
    totalTrades: stats.totalTrades,
    winRate: stats.winRate,
    barsDone: exec.barsDone,
    speed: exec.speed,
    completedMs: exec.completedMs ?? nowMs,
    trades: trades.length <= limits.playgroundTradesStoredMax ? trades : trades.slice(0, limits.playgroundTradesStoredMax),
    tradesPerChunk: limits.playgroundTradesPerChunk,
    summary: runSummary(stats, exec.ledger.performance()),
    result: {
      ...symbolsOf(exec),
      balanceCents: exec.ledger.balanceCents,
      stats,
      performance: exec.ledger.performance(),
      // The first trades the execution shows are read back from the packed ones (get).
      tradesTotal: trades.length,
      equity: exec.ledger.equityCurve,
      logs: exec.logs.view(),
      logTimes: exec.logs.timesView(),
      // Where the time went (per batch): for operators and benchmarks, not shown to clients.
      timings: { ...exec.timings, firstBarMs: exec.firstBarMs, child: exec.childTimings },
    },
  };
}
