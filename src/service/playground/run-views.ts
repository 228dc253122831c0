// What a client sees of a playground execution (`ExecutionView`): a run executing on this node read
// from its execution and ledger (at most every LIVE_VIEW_MAX_AGE_MS, shared by its readers), any
// other from its row (an ended run's record, or the progress a running node writes for the others).

import { limits } from '../../config.ts';
import { findInstrument, type Instrument } from '../../domain/instrument.ts';
import type { Performance } from '../../engine/performance.ts';
import type { RunStats, TradeRecord } from '../../engine/results.ts';
import type { RunRow } from '../../store/playground-runs.ts';
import type { RunProgress } from '../jobs/queue.ts';
import type { Execution, RunStatus } from './execution.ts';
import type { EquityPoint } from './ledger.ts';

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

/** A run executing on this node, as its views read it: the execution, its row, the last view made. */
export interface ViewedRun {
  exec: Execution;
  row: RunRow;
  /** The last view read (liveView), with when and in what state: a poll within LIVE_VIEW_MAX_AGE_MS reuses it. */
  view: { atMs: number; key: string; value: ExecutionView } | null;
}

/**
 * A running execution's view (statistics, performance, the curve) is computed at most this often and
 * shared by its readers meanwhile: the rate of its event stream's progress events. A client polling
 * at 50 Hz otherwise cost the server about as much CPU as the run's own bars. A change of state
 * (ended, stopped, failed, a new speed) is seen at once.
 */
const LIVE_VIEW_MAX_AGE_MS = limits.playgroundLiveViewMaxAgeMs;

export function liveView(l: ViewedRun): ExecutionView {
  const x = l.exec;
  const now = performance.now();
  const key = `${x.status}|${x.speed}|${x.error}`;
  if (l.view && l.view.key === key && now - l.view.atMs < LIVE_VIEW_MAX_AGE_MS) return l.view.value;
  const value = computeLiveView(l);
  l.view = { atMs: now, key, value };
  return value;
}

function computeLiveView(l: ViewedRun): ExecutionView {
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

/** The statistics an optimisation sorts its combinations by (performance without the months and the benchmark). */
export function runSummary(stats: RunStats, performance: Performance) {
  const { monthlyReturns: _, buyAndHold: _benchmark, ...rest } = performance;
  return { stats, performance: rest };
}

export interface StoredResult {
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
export function storedView(row: RunRow): ExecutionView {
  const r = row.result as StoredResult | null;
  const pr = row.status === 'running' ? (row.progress as RunProgress | null) : null;
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
