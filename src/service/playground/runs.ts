// Playground runs: validation of a run request, the one-per-user and global limits, the executions
// in flight, and their records. Family-agnostic; the playground adapter maps the error kinds.
//
// A run is checked whole before any runner child is used. Accepted, it is queued in the store (a
// `running` row without a node, store/playground-runs.ts) and answered at once; any node with a free
// runner claims it, and a child from that node's pool runs it in the background (execution.ts). Its
// end (completed, failed, stopped, timeout) is written once, with the ledger's results. The running
// node writes progress and a heartbeat to the row and applies the stop and pace any node set there;
// every other node reads and streams the run from the row. One run per user and the shares' caps
// are counted in the store, so they hold across nodes (docs/decisions.md, Playground runs as jobs).
//
// Runners are shared in two parts (docs/decisions.md, Hardening). A full-speed run keeps a core
// busy: `maxConcurrent` of them at once. A paced run (speed 1–50) waits between bars most of its
// time, up to the 10-minute limit: it takes a place in a share of its own (`pacedMaxConcurrent` a
// node), so paced runs can never hold the full-speed slots and lock every other user out. Each user
// holds at most one place (one run per user), and a paced run beyond the share waits its turn,
// `queued` until a paced runner frees, instead of being refused (docs/decisions.md, Hardening round
// two): four users' `speed: 1` runs held a 2-core node's share for ten minutes, every other paced
// run refused meanwhile. A run changing pace changes share: to full speed only when a full-speed
// slot is free (else POST speed answers busy and the run keeps its pace); to a pace when the paced
// share has room, waiting runs counted (else it keeps its slot).

import { limits } from '../../config.ts';
import type { BarSource } from '../../data/bar-source.ts';
import { countBuckets } from '../../data/bucket-count.ts';
import { findInstrument, type Instrument } from '../../domain/instrument.ts';
import { parseTimeframe, type Timeframe } from '../../domain/timeframe.ts';
import { tradeDateEndS, tradeDateStartS } from '../../domain/trading-hours.ts';
import type { Performance } from '../../engine/performance.ts';
import type { RunStats, TradeRecord } from '../../engine/results.ts';
import type { Clock } from '../../lib/clock.ts';
import { civilFromDays, daysFromCivil } from '../../lib/civil-date.ts';
import { type Invalid, isInvalid } from '../../lib/invalid.ts';
import { dayToDateString, parseDateDay } from '../../lib/iso-time.ts';
import { err, ok, type Result } from '../../lib/result.ts';
import { randomSecret } from '../../lib/secrets.ts';
import { DAY_S } from '../../lib/time-units.ts';
import type { ClaimedRun, NewRun, PlaygroundRunStore, RunRow } from '../../store/playground-runs.ts';
import type { RunnerPool } from '../../../runner/host/pool.ts';
import { Execution, type ExecutionEvent, type RunStatus, SHUTDOWN_MESSAGE } from './execution.ts';
import type { EquityPoint } from './ledger.ts';
import type { StrategyService } from './strategies.ts';
import { findTemplate, validateParams } from './templates.ts';

export type RunError =
  | { kind: 'source_required' }
  | { kind: 'template_not_found' }
  | { kind: 'script_too_large' }
  | { kind: 'strategy_not_found' }
  | { kind: 'instrument_not_found' }
  | { kind: 'start_date_required' }
  | { kind: 'date_invalid'; field: 'startDate' | 'endDate' }
  | { kind: 'end_before_start' }
  | { kind: 'span_too_long' }
  | { kind: 'timeframe_required' }
  | { kind: 'custom_disabled' }
  | { kind: 'invalid_timeframe'; field: 'timeframe' | 'contextTimeframes'; text: string }
  | { kind: 'invalid_params'; message: string }
  | { kind: 'invalid_speed' }
  | { kind: 'no_data'; symbol: string; fromDate: string; toDate: string }
  | { kind: 'already_running'; executionId: string }
  | { kind: 'capacity'; retryAfterS: number };

export type StopError = { kind: 'not_running' };
export type SpeedError = { kind: 'not_running' } | { kind: 'invalid_speed' } | { kind: 'capacity'; retryAfterS: number };
export type ExecutionNotFound = { kind: 'execution_not_found' };
export type TradesPageError = ExecutionNotFound | { kind: 'invalid_offset' } | { kind: 'invalid_limit'; max: number };

/** A page of an execution's trades (GET executions/:id/trades). */
export interface TradesPage {
  inst: Instrument;
  offset: number;
  limit: number;
  /** Trades that can be paged: every trade of the run (up to the stored bound). */
  stored: number;
  /** Every trade of the run, stored or not. */
  tradesTotal: number;
  trades: TradeRecord[];
}

/** The run settings the service needs from the configuration. */
export interface RunSettings {
  /** This node's name in the run queue (claimed runs carry it). */
  nodeId: string;
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

/** What a client sees of an execution, live or ended (domain units: cents, ticks, epoch seconds). */
export interface ExecutionView {
  id: string;
  strategyId: string | null;
  templateId: string | null;
  inst: Instrument;
  timeframe: string;
  contextTimeframes: string[];
  startDate: string;
  endDate: string;
  params: Record<string, unknown>;
  status: RunStatus;
  /** Running but waiting for a runner: a paced run beyond the paced share waits its turn (docs/playground.md). */
  queued: boolean;
  error: string | null;
  speed: number | null;
  barsDone: number;
  barsTotal: number;
  startedMs: number;
  completedMs: number | null;
  balanceCents: number;
  equityCents: number;
  stats: RunStats;
  /** Null for a run recorded before these figures existed. */
  performance: Performance | null;
  trades: TradeRecord[];
  tradesTotal: number;
  equity: EquityPoint[];
  logs: string[];
  /** The bar open time (epoch s) of each line of `logs`, or null (before the first bar, notes, runs recorded before times existed). */
  logTimes: (number | null)[];
}

/**
 * POST run as the route parsed it: each field as its schema types it, `INVALID` where the schema
 * failed and the refusal is left to this service's order of checks (a `defer` field rule), and
 * `unknown` where the service reads the field as sent (dates, timeframes and params: their
 * refusals quote the text).
 */
export interface RunInput {
  strategyId?: string | null | Invalid;
  templateId?: string | null | Invalid;
  code?: string | null | Invalid;
  instrument: string | Invalid;
  startDate: unknown;
  endDate?: string | null | Invalid;
  timeframe: unknown;
  contextTimeframes?: unknown;
  params?: unknown;
  speed?: number | null | Invalid;
}

interface Live {
  exec: Execution;
  row: RunRow;
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
  /** The last view read (liveView), with when and in what state: a poll within LIVE_VIEW_MAX_AGE_MS reuses it. */
  view: { atMs: number; key: string; value: ExecutionView } | null;
}

/**
 * A running execution's view (statistics, performance, the curve) is computed at most this often and
 * shared by its readers meanwhile: the rate of its event stream's progress events. A client polling
 * at 50 Hz otherwise cost the server about as much CPU as the run's own bars. A change of state
 * (ended, stopped, failed, a new speed) is seen at once.
 */
const LIVE_VIEW_MAX_AGE_MS = 100;

/** The reason a run reads failed when its server went away mid-run (a restart, or a silent node). */
export const INTERRUPTED_MESSAGE = 'The server restarted while the run was in progress';
const STOPPED_MESSAGE = 'Stopped by the user';

/** What the running node writes of its progress beside bars_done, for other nodes to show. */
interface Progress {
  balanceCents: number;
  equityCents: number;
  stats: RunStats;
}

export class RunService {
  /** Runs executing on this node's runners. */
  private readonly live = new Map<string, Live>();
  private closing = false;
  private worker: ReturnType<typeof setInterval> | null = null;
  private claiming: Promise<void> | null = null;
  private pokeAgain = false;
  /** Called once a run's record is written (the optimisations advance on their combinations' ends). */
  onRunEnded: ((row: RunRow) => void) | null = null;

  constructor(
    private readonly store: PlaygroundRunStore,
    private readonly strategies: StrategyService,
    private readonly source: BarSource,
    private readonly pool: () => RunnerPool,
    private readonly settings: RunSettings,
    private readonly clock: Clock,
  ) {}

  /**
   * At server start: on SQLite (one server) runs a stopped server left running read failed, with the
   * reason; on PostgreSQL only those whose node went silent (other nodes' runs go on).
   */
  async recoverInterrupted(): Promise<void> {
    const now = this.clock.nowMs();
    if (this.store.dialect === 'sqlite') await this.store.failInterrupted(INTERRUPTED_MESSAGE, now);
    else await this.store.failStale(this.settings.nodeId, INTERRUPTED_MESSAGE, now - limits.playgroundRunStaleMs, now, limits.playgroundCombinationRequeuesMax);
  }

  /** At server start: recovers interrupted runs, then claims queued ones (startWorker). */
  async startQueue(): Promise<void> {
    await this.recoverInterrupted();
    this.startWorker();
    await this.poke();
  }

  /**
   * Starts this node's claimer on a shared store: queued runs are taken while a runner is free,
   * silent nodes' runs failed. SQLite has one server, which claims as it queues and as runs end.
   */
  startWorker(): void {
    if (this.worker !== null || this.closing || this.store.dialect === 'sqlite') return;
    this.worker = setInterval(() => void this.tick(), limits.playgroundClaimIntervalMs);
    this.worker.unref?.();
  }

  private async tick(): Promise<void> {
    try {
      const now = this.clock.nowMs();
      await this.store.failStale(this.settings.nodeId, INTERRUPTED_MESSAGE, now - limits.playgroundRunStaleMs, now, limits.playgroundCombinationRequeuesMax);
      await this.poke();
    } catch (e) {
      // A store closed under a service never shut down (a test's app): nothing more to do here.
      if (/closed/i.test(String((e as Error)?.message)) && this.worker) clearInterval(this.worker);
      else if (!this.closing) console.error('playground run queue', e);
    }
  }

  /** `queued`: accepted but waiting for a runner (a paced run beyond the paced share, or one another node has yet to claim). */
  async start(userId: number, body: RunInput): Promise<Result<{ executionId: string; queued: boolean }, RunError>> {
    const planned = await this.plan(userId, body);
    if (!planned.ok) return planned;
    const p = planned.value;
    const id = `exe_${randomSecret(12)}`;
    const run: NewRun = {
      id, userId, strategyId: p.strategyId, templateId: p.templateId, instrument: p.inst.symbol, timeframe: p.tf.text,
      startDate: p.startDate, endDate: p.endDate, params: p.params, contextTimeframes: p.ctx.map((c) => c.text), speed: p.speed,
      barsTotal: p.totalBars, startedMs: this.clock.nowMs(),
    };
    // Queued in the store: one per user and the shares' caps hold across every node.
    const admitted = await this.store.enqueue(run, { code: p.code, startS: p.startS, endS: p.endS }, p.speed !== null, this.caps());
    if (admitted.kind === 'already_running') return err({ kind: 'already_running', executionId: admitted.executionId });
    if (admitted.kind === 'capacity') return err({ kind: 'capacity', retryAfterS: limits.playgroundBusyRetryAfterS });
    // Each run's record holds up to about a megabyte of results and logs: keep the newest only.
    await this.store.pruneUser(userId, limits.playgroundRunsKeptPerUserMax);
    await this.poke();
    return ok({ executionId: id, queued: !this.live.has(id) });
  }

  private caps() {
    return { full: this.settings.maxConcurrent, paced: this.settings.pacedMaxConcurrent, pacedWaiting: limits.playgroundPacedWaitingMax };
  }

  /** Claims queued runs while this node has a free runner; one claimer at a time, run again if poked meanwhile. */
  private poke(): Promise<void> {
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
    const c = await this.store.claim(this.settings.nodeId, room, this.clock.nowMs());
    if (c === null) return false;
    if (!this.closing) this.launch(c);
    else if (this.store.dialect === 'postgres') await this.store.handBack([c.row.id], this.settings.nodeId, STOPPED_MESSAGE, this.clock.nowMs());
    else await this.store.failRunning(c.row.id, SHUTDOWN_MESSAGE, this.clock.nowMs());
    return true;
  }

  private localOptimizing(): number {
    let n = 0;
    for (const l of this.live.values()) if (l.row.optimizationId !== null) n++;
    return n;
  }

  /** Claims queued runs now (an optimisation queued combinations). */
  kick(): Promise<void> {
    return this.poke();
  }

  /** Stops the runs of `ids` executing on this node at once (their rows were flagged for the others). */
  stopLocal(ids: readonly string[]): void {
    for (const id of ids) this.live.get(id)?.exec.stop();
  }

  private localCount(paced: boolean): number {
    let n = 0;
    for (const l of this.live.values()) if (l.paced === paced) n++;
    return n;
  }

  /** Runs a claimed run on this node's pool, heart-beating its row until it ends. */
  private launch({ row, job }: ClaimedRun): void {
    const inst = findInstrument(row.instrument) as Instrument;
    const parse = (text: string) => {
      const r = parseTimeframe(text, { customEnabled: true, storedResolutionS: inst.storedResolutionS });
      if (!r.ok) throw new Error(`stored run ${row.id}: timeframe ${text} does not parse`);
      return r.value;
    };
    const exec = new Execution(
      {
        id: row.id, userId: row.userId, span: { inst, tf: parse(row.timeframe), ctx: row.contextTimeframes.map(parse), startS: job.startS, endS: job.endS },
        code: job.code, params: row.params as Record<string, number | string | boolean>, totalBars: row.barsTotal, speed: row.speed,
        timeoutMs: this.settings.timeoutMs, slippageTicks: this.settings.slippageTicks, startingBalanceCents: limits.startingBalanceCents,
        nowMs: () => this.clock.nowMs(),
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
    this.pool()
      .acquire()
      .then(
        (child) => exec.run(child),
        (e) => {
          console.error('runner unavailable', e);
          exec.failWithoutChild('The strategy sandbox could not be started; try again later');
        },
      );
  }

  /** Writes the run's progress and heartbeat; applies the stop and pace any node set on its row. */
  private async beat(l: Live): Promise<void> {
    if (l.beating || l.exec.status !== 'running') return;
    l.beating = true;
    const edits = l.speedEdits;
    try {
      const led = l.exec.ledger;
      const progress: Progress = { balanceCents: led.engine.balanceCents, equityCents: led.equityCents(), stats: led.stats() };
      const ctl = await this.store.heartbeat(l.exec.id, this.settings.nodeId, this.clock.nowMs(), l.exec.barsDone, progress);
      // Failed or put back in the queue by another node (this one was silent too long): the sandbox
      // here is killed, and reads from now on come from the row, not from this copy.
      if (ctl === null) return this.letGo(l);
      if (ctl.stopRequested) l.exec.stop();
      if (edits === l.speedEdits && ctl.speed !== l.exec.speed) l.exec.setSpeed(ctl.speed);
      if (edits === l.speedEdits) l.paced = ctl.paced;
    } catch (e) {
      if (!this.closing) console.error('playground run heartbeat failed', l.exec.id, e);
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

  /** The user's run executing on this node, if any. */
  private localOf(userId: number): Live | undefined {
    for (const l of this.live.values()) if (l.exec.userId === userId && l.exec.status === 'running') return l;
    return undefined;
  }

  /** Stops the user's run wherever it is: here at once, on another node at its next heartbeat, queued at once. */
  async stop(userId: number): Promise<Result<{ executionId: string }, StopError>> {
    const l = this.localOf(userId);
    if (l) {
      l.exec.stop();
      return ok({ executionId: l.exec.id });
    }
    const r = await this.store.requestStop(userId, STOPPED_MESSAGE, this.clock.nowMs());
    return r === null ? err({ kind: 'not_running' }) : ok({ executionId: r.id });
  }

  /** 1–50 paces the user's running execution like Replay/play; null runs it at full speed (the wire's "max"). */
  async setSpeed(userId: number, speed: unknown): Promise<Result<{ executionId: string }, SpeedError>> {
    const s = parseSpeed(speed, true);
    if (s === undefined) return err({ kind: 'invalid_speed' });
    const r = await this.store.changeSpeed(userId, s, this.caps());
    if (r.kind === 'not_running') return err({ kind: 'not_running' });
    if (r.kind === 'capacity') return err({ kind: 'capacity', retryAfterS: limits.playgroundBusyRetryAfterS });
    const l = this.live.get(r.executionId);
    const leftPacedShare = l !== undefined && l.paced && !r.paced;
    if (l) {
      l.speedEdits++;
      l.paced = r.paced;
      l.exec.setSpeed(s);
      l.row.speed = s;
    }
    // A run that left the paced share frees a paced runner here: a paced run waiting for one starts.
    if (leftPacedShare) await this.poke();
    return ok({ executionId: r.executionId });
  }

  async get(userId: number, id: unknown): Promise<Result<ExecutionView, ExecutionNotFound>> {
    if (typeof id !== 'string') return err({ kind: 'execution_not_found' });
    const l = this.live.get(id);
    if (l && l.exec.userId === userId) return ok(liveView(l));
    const row = await this.store.get(userId, id);
    if (row === null) return err({ kind: 'execution_not_found' });
    const view = storedView(row);
    const r = row.result as StoredResult | null;
    // A record keeps its trades packed only; one written before kept the first ones in `trades`.
    if (r !== null && r.trades === undefined && r.tradesTotal > 0) {
      view.trades = (await this.store.tradesPage(userId, id, 0, limits.playgroundTradesKeptMax))?.trades ?? [];
    }
    return ok(view);
  }

  /**
   * Trades [offset, offset + limit) of an execution, oldest first: a running one's from its ledger,
   * an ended one's from the packed store (a run recorded before trades were packed pages over the
   * first 5,000 its record kept). offset defaults to 0, limit to the page bound.
   */
  async tradesPage(userId: number, id: unknown, offset: number | undefined, limit: number | undefined): Promise<Result<TradesPage, TradesPageError>> {
    if (typeof id !== 'string') return err({ kind: 'execution_not_found' });
    const o = offset ?? 0;
    const n = limit ?? limits.playgroundTradesPageMax;
    if (!Number.isSafeInteger(o) || o < 0) return err({ kind: 'invalid_offset' });
    if (!Number.isSafeInteger(n) || n < 1 || n > limits.playgroundTradesPageMax) return err({ kind: 'invalid_limit', max: limits.playgroundTradesPageMax });
    const r = await this.readTrades(userId, id, o, n);
    return r === null ? err({ kind: 'execution_not_found' }) : ok({ ...r, limit: n });
  }

  /** Every stored trade of an execution (the CSV export), oldest first. */
  async allTrades(userId: number, id: unknown): Promise<Result<Omit<TradesPage, 'limit'>, ExecutionNotFound>> {
    if (typeof id !== 'string') return err({ kind: 'execution_not_found' });
    const r = await this.readTrades(userId, id, 0, limits.playgroundTradesStoredMax);
    return r === null ? err({ kind: 'execution_not_found' }) : ok(r);
  }

  private async readTrades(userId: number, id: string, offset: number, limit: number): Promise<Omit<TradesPage, 'limit'> | null> {
    const l = this.live.get(id);
    if (l && l.exec.userId === userId) {
      const all = l.exec.ledger.closedTrades;
      const stored = Math.min(all.length, limits.playgroundTradesStoredMax);
      const from = Math.min(offset, stored);
      return { inst: findInstrument(l.row.instrument) as Instrument, offset, stored, tradesTotal: all.length, trades: all.slice(from, Math.min(stored, from + limit)) };
    }
    const row = await this.store.get(userId, id);
    if (row === null) return null;
    const inst = findInstrument(row.instrument) as Instrument;
    const result = row.result as StoredResult | null;
    const tradesTotal = result?.tradesTotal ?? 0;
    const packed = await this.store.tradesPage(userId, id, offset, limit);
    if (packed !== null) return { inst, offset, stored: packed.stored, tradesTotal, trades: packed.trades };
    const kept = result?.trades ?? [];
    const from = Math.min(offset, kept.length);
    return { inst, offset, stored: kept.length, tradesTotal, trades: kept.slice(from, Math.min(kept.length, from + limit)) };
  }

  /**
   * Calls `fn` on the execution's progress and end. A run executing here is followed as it goes; any
   * other (queued, on another node, ended, absent) by polling its row: `progress` when its bars
   * done move, `done` once it is no longer running (at the first poll for an ended or absent one).
   */
  subscribe(userId: number, id: string, fn: (e: ExecutionEvent) => void): () => void {
    const l = this.live.get(id);
    if (l && l.exec.userId === userId) return this.followLocal(l, userId, fn);
    return this.followRow(userId, id, fn);
  }

  /**
   * A run executing here. Its `done` comes once its end is committed, so a client told it ended finds
   * it ended everywhere (a new run of the user's is admitted at once). Handed back to the queue at
   * shutdown, it is followed from its row instead (its end here is not its end).
   */
  private followLocal(l: Live, userId: number, fn: (e: ExecutionEvent) => void): () => void {
    let row: (() => void) | null = null;
    let live = true;
    const off = l.exec.subscribe((e) => {
      if (e.type !== 'done') return fn(e);
      if (l.handedBack) row = this.followRow(userId, l.exec.id, fn);
      else void l.recorded.then(() => live && fn(e));
    });
    return () => {
      live = false;
      off();
      row?.();
    };
  }

  private followRow(userId: number, id: string, fn: (e: ExecutionEvent) => void): () => void {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | null = null;
    let barsDone = 0;
    const poll = async () => {
      const row = await this.store.get(userId, id).catch(() => undefined);
      if (stopped) return;
      if (row === null || (row !== undefined && row.status !== 'running')) {
        stopped = true;
        return fn({ type: 'done' });
      }
      if (row !== undefined && row.barsDone !== barsDone) {
        barsDone = row.barsDone;
        fn({ type: 'progress' });
      }
      timer = setTimeout(() => void poll(), limits.playgroundRemotePollMs);
    };
    void poll();
    return () => {
      stopped = true;
      if (timer) clearTimeout(timer);
    };
  }

  /**
   * Ends this process's part in its executions in flight, waiting (5 s at most) until their sandboxes
   * stop. On a shared store (PostgreSQL) a run still going is handed back to the queue, where another
   * node (or this one's next start) runs it from the start; on SQLite (one server) it is failed with
   * the reason, as a restart fails it anyway (docs/decisions.md, k-cluster-tests).
   */
  async shutdown(): Promise<void> {
    this.closing = true;
    if (this.worker) clearInterval(this.worker);
    await this.claiming;
    const live = [...this.live.values()];
    if (live.length === 0) return;
    if (this.store.dialect === 'postgres') for (const l of live) l.handedBack = l.exec.status === 'running';
    await this.abortAll(live);
    const now = this.clock.nowMs();
    await this.store.handBack(live.filter((l) => l.handedBack).map((l) => l.exec.id), this.settings.nodeId, STOPPED_MESSAGE, now);
    // Only this process's runs: the admin CLI shares the database with a live server.
    for (const l of live) if (!l.handedBack) await this.store.failRunning(l.exec.id, SHUTDOWN_MESSAGE, now);
  }

  /** Aborts the executions and waits for their ends, 5 s at most. */
  private async abortAll(live: readonly Live[]): Promise<void> {
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

  private async ended(l: Live): Promise<void> {
    const exec = l.exec;
    clearInterval(l.heartbeat);
    if (l.handedBack) {
      this.forget(l);
      return l.markRecorded();
    }
    const stats = exec.ledger.stats();
    const trades = exec.ledger.closedTrades;
    try {
      await this.store.end(exec.id, {
        status: exec.status === 'running' ? 'failed' : exec.status,
        error: exec.error,
        totalPnlCents: stats.totalPnlCents,
        totalTrades: stats.totalTrades,
        winRate: stats.winRate,
        barsDone: exec.barsDone,
        speed: exec.speed,
        completedMs: exec.completedMs ?? this.clock.nowMs(),
        trades: trades.length <= limits.playgroundTradesStoredMax ? trades : trades.slice(0, limits.playgroundTradesStoredMax),
        tradesPerChunk: limits.playgroundTradesPerChunk,
        summary: runSummary(stats, exec.ledger.performance()),
        result: {
          balanceCents: exec.ledger.engine.balanceCents,
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
      });
    } catch (e) {
      if (!this.closing) console.error('playground run record failed', exec.id, e);
    }
    // Read from memory until the record is written (a PostgreSQL write takes a round trip): a read
    // in between sees the ended run, never the row still running.
    this.forget(l);
    l.markRecorded();
    if (l.row.optimizationId !== null && !this.closing) this.onRunEnded?.(l.row);
    // A runner is free: take the next queued run.
    if (!this.closing) void this.poke().catch((e) => console.error('playground run queue', e));
  }

  /** Checks a run request whole (no runner used): the source, instrument, span, timeframes, params and pace. */
  async plan(userId: number, body: RunInput) {
    const code = body.code;
    const templateId = body.templateId;
    const strategyId = body.strategyId;
    const hasCode = code !== undefined && code !== null;
    const hasTemplate = templateId !== undefined && templateId !== null;
    const hasStrategy = strategyId !== undefined && strategyId !== null;
    let strategy = null;
    if (hasStrategy) {
      const s = await this.strategies.get(userId, strategyId);
      if (!s.ok) return err({ kind: 'strategy_not_found' } as RunError);
      strategy = s.value;
    }
    // Exactly one source; a saved strategy alone runs its own code.
    if (hasCode === hasTemplate && !(strategy && !hasCode && !hasTemplate)) return err({ kind: 'source_required' } as RunError);
    let source: string;
    let template = null;
    if (hasTemplate) {
      template = typeof templateId === 'string' ? findTemplate(templateId) ?? null : null;
      if (!template) return err({ kind: 'template_not_found' } as RunError);
      source = template.code;
    } else if (hasCode) {
      if (typeof code !== 'string' || code.trim() === '') return err({ kind: 'source_required' } as RunError);
      source = code;
    } else source = (strategy as { code: string }).code;
    if (Buffer.byteLength(source, 'utf8') > limits.playgroundScriptBytesMax) return err({ kind: 'script_too_large' } as RunError);

    const inst = isInvalid(body.instrument) ? undefined : findInstrument(body.instrument);
    if (!inst) return err({ kind: 'instrument_not_found' } as RunError);
    const dates = this.dates(inst, body.startDate, body.endDate);
    if (!dates.ok) return dates;
    if (body.timeframe === undefined || body.timeframe === null || body.timeframe === '') return err({ kind: 'timeframe_required' } as RunError);
    const tf = this.timeframe(inst, body.timeframe, 'timeframe');
    if (!tf.ok) return tf;
    const ctx = this.contextTimeframes(inst, tf.value, body.contextTimeframes);
    if (!ctx.ok) return ctx;
    const rawParams = body.params === undefined || body.params === null ? (strategy && !hasTemplate ? strategy.params : null) : body.params;
    const params = validateParams(rawParams, template);
    if (!params.ok) return err({ kind: 'invalid_params', message: params.message } as RunError);
    const speed = parseSpeed(body.speed, false);
    if (speed === undefined) return err({ kind: 'invalid_speed' } as RunError);

    const { startS, endS } = dates.value;
    const totalBars = countBuckets(this.source, inst, tf.value, startS, endS);
    if (totalBars === 0) {
      return err({ kind: 'no_data', symbol: inst.symbol, fromDate: dates.value.startDate, toDate: dates.value.endDate } as RunError);
    }
    return ok({
      inst, tf: tf.value, ctx: ctx.value, code: source, params: params.value, speed, startS, endS, totalBars,
      startDate: dates.value.startDate, endDate: dates.value.endDate,
      strategyId: strategy ? strategy.id : null, templateId: template ? template.id : null,
    });
  }

  /**
   * Trade dates [startDate, endDate], both included: from the start date's session open to the end
   * date's session close (CME: 17:00 CT the day before to 16:00 CT; forex 17:00 New York). The
   * default end date is the start date: one session. Clipped to the data held.
   */
  dates(inst: Instrument, start: unknown, end: unknown) {
    if (start === undefined || start === null || start === '') return err({ kind: 'start_date_required' } as RunError);
    const startDay = parseDateDay(start);
    if (startDay === undefined) return err({ kind: 'date_invalid', field: 'startDate' } as RunError);
    let endDay = startDay;
    if (end !== undefined && end !== null && end !== '') {
      const d = parseDateDay(end);
      if (d === undefined) return err({ kind: 'date_invalid', field: 'endDate' } as RunError);
      if (d < startDay) return err({ kind: 'end_before_start' } as RunError);
      const [y, m, dd] = civilFromDays(startDay);
      if (d > daysFromCivil(y + limits.replaySpanYearsMax, m, m === 2 && dd === 29 ? 28 : dd)) return err({ kind: 'span_too_long' } as RunError);
      endDay = d;
    }
    const range = this.source.range(inst);
    const startS = Math.max(tradeDateStartS(inst.session, startDay), range.firstDay * DAY_S);
    const endS = Math.min(tradeDateEndS(inst.session, endDay), (range.lastDay + 1) * DAY_S);
    return ok({ startS, endS: Math.max(startS, endS), startDate: dayToDateString(startDay), endDate: dayToDateString(endDay) });
  }

  /** A fixed width that divides a day, valid for the instrument (docs/decisions.md). */
  private timeframe(inst: Instrument, text: unknown, field: 'timeframe' | 'contextTimeframes') {
    const r = parseTimeframe(text, { customEnabled: this.settings.customTimeframes, storedResolutionS: inst.storedResolutionS });
    if (!r.ok) {
      if (r.error.kind === 'custom_disabled') return err({ kind: 'custom_disabled' } as RunError);
      return err({ kind: 'invalid_timeframe', field, text: String(text) } as RunError);
    }
    const tf = r.value;
    if (tf.kind !== 'fixed' || DAY_S % tf.widthS !== 0) return err({ kind: 'invalid_timeframe', field, text: String(text) } as RunError);
    return ok(tf);
  }

  private contextTimeframes(inst: Instrument, run: Timeframe, v: unknown): Result<Timeframe[], RunError> {
    if (v === undefined || v === null) return ok([]);
    if (!Array.isArray(v) || v.length > limits.playgroundContextTimeframesMax) return err({ kind: 'invalid_timeframe', field: 'contextTimeframes', text: JSON.stringify(v).slice(0, 80) });
    const out: Timeframe[] = [];
    for (const x of v) {
      const tf = this.timeframe(inst, x, 'contextTimeframes');
      if (!tf.ok) return tf;
      // Higher than the run's timeframe and a whole multiple of it, each once.
      const w = tf.value.widthS as number;
      if (w <= (run.widthS as number) || w % (run.widthS as number) !== 0 || out.some((o) => o.text === tf.value.text)) {
        return err({ kind: 'invalid_timeframe', field: 'contextTimeframes', text: String(x) });
      }
      out.push(tf.value);
    }
    return ok(out);
  }
}

/** undefined = invalid. In a run body: absent/null = full speed, 1–50. In `speed`: null = full speed, 1–50. */
function parseSpeed(v: unknown, required: boolean): number | null | undefined {
  if (v === undefined) return required ? undefined : null;
  if (v === null) return null;
  if (typeof v !== 'number' || !Number.isFinite(v)) return undefined;
  return v >= limits.replaySpeedMin && v <= limits.replaySpeedMax ? v : undefined;
}

function liveView(l: Live): ExecutionView {
  const x = l.exec;
  const now = performance.now();
  const key = `${x.status}|${x.speed}|${x.error}`;
  if (l.view && l.view.key === key && now - l.view.atMs < LIVE_VIEW_MAX_AGE_MS) return l.view.value;
  const value = computeLiveView(l);
  l.view = { atMs: now, key, value };
  return value;
}

function computeLiveView(l: Live): ExecutionView {
  const x = l.exec;
  const led = x.ledger;
  const trades = led.closedTrades;
  return {
    ...rowBasics(l.row),
    status: x.status,
    queued: false,
    error: x.error,
    speed: x.speed,
    barsDone: x.barsDone,
    completedMs: x.completedMs,
    balanceCents: led.engine.balanceCents,
    equityCents: led.equityCents(),
    stats: led.stats(),
    performance: led.performance(),
    // Running: the newest trades; ended (its record being written): the first ones, as the record keeps.
    trades: x.status === 'running' ? trades.slice(-limits.playgroundTradesLiveMax) : trades.slice(0, limits.playgroundTradesKeptMax),
    tradesTotal: trades.length,
    equity: led.equityCurve.slice(),
    logs: x.logs.view(),
    logTimes: x.logs.timesView(),
  };
}

/** The statistics an optimisation sorts its combinations by (performance without the months). */
function runSummary(stats: RunStats, performance: Performance) {
  const { monthlyReturns: _, ...rest } = performance;
  return { stats, performance: rest };
}

interface StoredResult {
  balanceCents: number;
  stats: RunStats;
  performance?: Performance;
  /** The first trades, in records written before every trade was stored packed only. */
  trades?: TradeRecord[];
  tradesTotal: number;
  equity: EquityPoint[];
  logs: string[];
  logTimes?: (number | null)[];
}

/** An ended run's record, or a run queued or executing on another node as its row reads (progress written by its node). */
function storedView(row: RunRow): ExecutionView {
  const r = row.result as StoredResult | null;
  const pr = row.status === 'running' ? (row.progress as Progress | null) : null;
  const empty: RunStats = {
    totalPnlCents: 0, totalTrades: 0, winningTrades: 0, losingTrades: 0, winRate: 0, averageWinCents: 0, averageLossCents: 0,
    largestWinCents: 0, largestLossCents: 0, profitFactor: null, maxDrawdownCents: 0, finalBalanceCents: limits.startingBalanceCents,
  };
  return {
    ...rowBasics(row),
    status: row.status,
    queued: row.status === 'running' && row.nodeId === null,
    error: row.error,
    speed: row.speed,
    barsDone: row.barsDone,
    completedMs: row.completedMs,
    balanceCents: r?.balanceCents ?? pr?.balanceCents ?? limits.startingBalanceCents,
    equityCents: r?.balanceCents ?? pr?.equityCents ?? limits.startingBalanceCents,
    stats: r?.stats ?? pr?.stats ?? empty,
    performance: r?.performance ?? null,
    trades: r?.trades ?? [],
    tradesTotal: r?.tradesTotal ?? 0,
    equity: r?.equity ?? [],
    logs: r?.logs ?? [],
    logTimes: r?.logTimes ?? (r?.logs ?? []).map(() => null),
  };
}

function rowBasics(row: RunRow) {
  return {
    id: row.id,
    strategyId: row.strategyId,
    templateId: row.templateId,
    inst: findInstrument(row.instrument) as Instrument,
    timeframe: row.timeframe,
    contextTimeframes: row.contextTimeframes,
    startDate: row.startDate,
    endDate: row.endDate,
    params: row.params,
    barsTotal: row.barsTotal,
    startedMs: row.startedMs,
  };
}
