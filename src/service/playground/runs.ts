// Playground runs: validation of a run request, the one-per-user and global limits, the executions
// in flight, and their records. Family-agnostic; the playground adapter maps the error kinds.
//
// A run is checked whole before any runner child is used. Accepted, it is stored as `running` and
// answered at once; a child from the pool then runs it in the background (execution.ts), and its
// end (completed, failed, stopped, timeout) is written once, with the ledger's results.
//
// Runners are shared in two parts (docs/decisions.md, Hardening). A full-speed run keeps a core
// busy: `maxConcurrent` of them at once. A paced run (speed 1–50) waits between bars most of its
// time, up to the 10-minute limit: it takes a place in a share of its own (`pacedMaxConcurrent`),
// so paced runs can never hold the full-speed slots and lock every other user out. A run changing
// pace changes share: to full speed only when a full-speed slot is free (else POST speed answers
// busy and the run keeps its pace); to a pace when the paced share has room (else it keeps its slot).

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
import type { PlaygroundRunStore, RunRow } from '../../store/playground-runs.ts';
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
  customTimeframes: boolean;
  slippageTicks: number;
  timeoutMs: number;
  /** Full-speed runs at once (cores). */
  maxConcurrent: number;
  /** Paced runs at once: their own share. */
  pacedMaxConcurrent: number;
}

/** Which share of the runners a live run takes. */
type Share = 'full' | 'paced';

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
  share: Share;
}

export class RunService {
  private readonly live = new Map<string, Live>();
  private readonly runningByUser = new Map<number, string>();
  private closing = false;

  constructor(
    private readonly store: PlaygroundRunStore,
    private readonly strategies: StrategyService,
    private readonly source: BarSource,
    private readonly pool: () => RunnerPool,
    private readonly settings: RunSettings,
    private readonly clock: Clock,
  ) {}

  /** At server start: runs a stopped server left `running` read failed, with the reason. */
  async recoverInterrupted(): Promise<void> {
    await this.store.failInterrupted('The server restarted while the run was in progress', this.clock.nowMs());
  }

  async start(userId: number, body: RunInput): Promise<Result<{ executionId: string }, RunError>> {
    const planned = await this.plan(userId, body);
    if (!planned.ok) return planned;
    const p = planned.value;
    const running = this.runningByUser.get(userId);
    if (running !== undefined) return err({ kind: 'already_running', executionId: running });
    const share: Share = p.speed === null ? 'full' : 'paced';
    if (!this.hasRoom(share)) return err({ kind: 'capacity', retryAfterS: limits.playgroundBusyRetryAfterS });

    const id = `exe_${randomSecret(12)}`;
    const row: RunRow = {
      id, userId, strategyId: p.strategyId, templateId: p.templateId, instrument: p.inst.symbol, timeframe: p.tf.text,
      startDate: p.startDate, endDate: p.endDate, params: p.params, contextTimeframes: p.ctx.map((c) => c.text), speed: p.speed,
      barsTotal: p.totalBars, startedMs: this.clock.nowMs(), status: 'running', error: null, totalPnlCents: null, totalTrades: null,
      winRate: null, barsDone: 0, result: null, completedMs: null,
    };
    const exec = new Execution(
      {
        id, userId, span: { inst: p.inst, tf: p.tf, ctx: p.ctx, startS: p.startS, endS: p.endS }, code: p.code, params: p.params,
        totalBars: p.totalBars, speed: p.speed, timeoutMs: this.settings.timeoutMs, slippageTicks: this.settings.slippageTicks,
        startingBalanceCents: limits.startingBalanceCents, nowMs: () => this.clock.nowMs(),
      },
      this.source,
    );
    // Held before the store is awaited, so a second start meanwhile finds this one running.
    this.live.set(id, { exec, row, share });
    this.runningByUser.set(userId, id);
    try {
      await this.store.insert(row);
      // Each run's record holds up to about a megabyte of results and logs: keep the newest only.
      await this.store.pruneUser(userId, limits.playgroundRunsKeptPerUserMax);
    } catch (e) {
      this.live.delete(id);
      this.runningByUser.delete(userId);
      throw e;
    }
    exec.subscribe((e) => {
      if (e.type === 'done') this.ended(exec, row);
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
    return ok({ executionId: id });
  }

  stop(userId: number): Result<{ executionId: string }, StopError> {
    const id = this.runningByUser.get(userId);
    const l = id === undefined ? undefined : this.live.get(id);
    if (!l) return err({ kind: 'not_running' });
    l.exec.stop();
    return ok({ executionId: l.exec.id });
  }

  /** 1–50 paces the user's running execution like Replay/play; null runs it at full speed (the wire's "max"). */
  setSpeed(userId: number, speed: unknown): Result<{ executionId: string }, SpeedError> {
    const s = parseSpeed(speed, true);
    if (s === undefined) return err({ kind: 'invalid_speed' });
    const id = this.runningByUser.get(userId);
    const l = id === undefined ? undefined : this.live.get(id);
    if (!l) return err({ kind: 'not_running' });
    if (s === null && l.share === 'paced') {
      if (!this.hasRoom('full')) return err({ kind: 'capacity', retryAfterS: limits.playgroundBusyRetryAfterS });
      l.share = 'full';
    } else if (s !== null && l.share === 'full' && this.hasRoom('paced')) {
      l.share = 'paced';
    }
    l.exec.setSpeed(s);
    l.row.speed = s;
    return ok({ executionId: l.exec.id });
  }

  /** Whether one more live run fits in `share`. */
  private hasRoom(share: Share): boolean {
    let n = 0;
    for (const l of this.live.values()) if (l.share === share) n++;
    return n < (share === 'full' ? this.settings.maxConcurrent : this.settings.pacedMaxConcurrent);
  }

  async get(userId: number, id: unknown): Promise<Result<ExecutionView, ExecutionNotFound>> {
    if (typeof id !== 'string') return err({ kind: 'execution_not_found' });
    const l = this.live.get(id);
    if (l && l.exec.userId === userId) return ok(liveView(l));
    const row = await this.store.get(userId, id);
    return row ? ok(storedView(row)) : err({ kind: 'execution_not_found' });
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

  /** Calls `fn` on the execution's progress and end; null when it is not running (read it instead). */
  subscribe(userId: number, id: string, fn: (e: ExecutionEvent) => void): (() => void) | null {
    const l = this.live.get(id);
    if (!l || l.exec.userId !== userId) return null;
    return l.exec.subscribe(fn);
  }

  /** Ends this process's executions in flight as failed and waits (5 s at most) until their records are written. */
  async shutdown(): Promise<void> {
    this.closing = true;
    const live = [...this.live.values()];
    if (live.length > 0) {
      const done = live.map(
        (l) => new Promise<void>((resolve) => {
          l.exec.subscribe((e) => e.type === 'done' && resolve());
          l.exec.abort();
        }),
      );
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([Promise.all(done), new Promise<void>((resolve) => (timer = setTimeout(resolve, 5000)))]);
      clearTimeout(timer);
      // Only this process's runs: the admin CLI shares the database with a live server.
      for (const l of live) await this.store.failRunning(l.exec.id, SHUTDOWN_MESSAGE, this.clock.nowMs());
    }
  }

  private async ended(exec: Execution, row: RunRow): Promise<void> {
    this.live.delete(exec.id);
    if (this.runningByUser.get(exec.userId) === exec.id) this.runningByUser.delete(exec.userId);
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
        result: {
          balanceCents: exec.ledger.engine.balanceCents,
          stats,
          performance: exec.ledger.performance(),
          trades: trades.slice(0, limits.playgroundTradesKeptMax),
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
    void row;
  }

  private async plan(userId: number, body: RunInput) {
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
  private dates(inst: Instrument, start: unknown, end: unknown) {
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
  const led = x.ledger;
  const trades = led.closedTrades;
  return {
    ...rowBasics(l.row),
    status: x.status,
    error: x.error,
    speed: x.speed,
    barsDone: x.barsDone,
    completedMs: x.completedMs,
    balanceCents: led.engine.balanceCents,
    equityCents: led.equityCents(),
    stats: led.stats(),
    performance: led.performance(),
    trades: trades.slice(-limits.playgroundTradesLiveMax),
    tradesTotal: trades.length,
    equity: led.equityCurve.slice(),
    logs: x.logs.view(),
    logTimes: x.logs.timesView(),
  };
}

interface StoredResult {
  balanceCents: number;
  stats: RunStats;
  performance?: Performance;
  trades: TradeRecord[];
  tradesTotal: number;
  equity: EquityPoint[];
  logs: string[];
  logTimes?: (number | null)[];
}

function storedView(row: RunRow): ExecutionView {
  const r = row.result as StoredResult | null;
  const empty: RunStats = {
    totalPnlCents: 0, totalTrades: 0, winningTrades: 0, losingTrades: 0, winRate: 0, averageWinCents: 0, averageLossCents: 0,
    largestWinCents: 0, largestLossCents: 0, profitFactor: null, maxDrawdownCents: 0, finalBalanceCents: limits.startingBalanceCents,
  };
  return {
    ...rowBasics(row),
    status: row.status,
    error: row.error,
    speed: row.speed,
    barsDone: row.barsDone,
    completedMs: row.completedMs,
    balanceCents: r?.balanceCents ?? limits.startingBalanceCents,
    equityCents: r?.balanceCents ?? limits.startingBalanceCents,
    stats: r?.stats ?? empty,
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
