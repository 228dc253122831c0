// Playground runs: a row is written when a run is accepted (status running) and completed once when
// it ends, with its totals and its result (statistics, the first trades, equity curve, logs) as JSON.
// Every trade of the run goes beside it, packed in columns (`encodeTrades`) in chunks of a fixed
// count, one BLOB a chunk, so a page of trades reads one or two chunks, never the whole run.
//
// The rows are also the playground's job queue (migration 11): a `running` row without node_id is
// queued with its job (job_json). Admission, claims, heartbeats, stop and pace, and what becomes of
// a stopping or silent node's rows are the queue's SQL, in run-queue.ts.

import type { TradeRecord } from '../engine/results.ts';
import { assert } from '../lib/assert.ts';
import type { Sql } from './sql.ts';
import { inSeqOrder, nextSeq } from './seq.ts';
import type { RunStatus } from './strategies.ts';

export interface NewRun {
  id: string;
  userId: number;
  strategyId: string | null;
  templateId: string | null;
  instrument: string;
  timeframe: string;
  startDate: string;
  endDate: string;
  params: Record<string, unknown>;
  contextTimeframes: string[];
  speed: number | null;
  barsTotal: number;
  startedMs: number;
  /** A combination of an optimisation (store/playground-optimizations.ts): its id, walk-forward window and index. */
  optimizationId?: string | null;
  optWindow?: number | null;
  /** Null for a walk-forward window's out-of-sample run. */
  optCombo?: number | null;
}

/** A run's end: its totals and result, and optionally every trade to store with the chunk size. */
export type RunEndFields = RunEndTotals & ({ trades?: undefined } | RunEndTrades);

interface RunEndTotals {
  status: Exclude<RunStatus, 'running'>;
  error: string | null;
  totalPnlCents: number;
  totalTrades: number;
  winRate: number;
  barsDone: number;
  /** The pace at the end (a run may change it while running). */
  speed: number | null;
  result: unknown;
  completedMs: number;
  /** A compact summary of the statistics (an optimisation sorts its combinations by it); absent: none. */
  summary?: unknown;
}

interface RunEndTrades {
  /** Every trade of the run to store packed (at most `limits.playgroundTradesStoredMax`, the caller's cut); absent: none stored. */
  trades: readonly StoredTrade[];
  /** Trades a stored chunk holds (`limits.playgroundTradesPerChunk`). */
  tradesPerChunk: number;
}

/** A stored chunk: trades [firstIndex, firstIndex + count) of a run, packed. */
export interface TradeChunk {
  firstIndex: number;
  count: number;
  packed: Uint8Array;
}

/** `trades` cut into chunks of `perChunk` (the last may hold fewer), each packed. */
export function chunkTrades(trades: readonly StoredTrade[], perChunk: number): TradeChunk[] {
  assert(Number.isInteger(perChunk) && perChunk >= 1, 'trades per chunk: a whole number of at least 1');
  const out: TradeChunk[] = [];
  for (let first = 0; first < trades.length; first += perChunk) {
    const part = trades.slice(first, first + perChunk);
    out.push({ firstIndex: first, count: part.length, packed: encodeTrades(part) });
  }
  return out;
}

/** A round-trip trade as stored: the engine's TradeRecord (ticks, cents, epoch seconds). */
export type StoredTrade = TradeRecord;

/** Bytes per packed trade: four float64 columns, two uint32 and one int32. */
export const PACKED_TRADE_BYTES = 44;

/**
 * Packs trades in columns, little-endian: entryValueTicks, exitValueTicks, pnlCents, feesCents
 * (float64: sums of ticks and cents stay exact below 2^53), then entryTimeS, exitTimeS (uint32) and
 * the signed size (int32: direction × entryQty). 44 bytes a trade against about 200 as JSON.
 */
export function encodeTrades(trades: readonly StoredTrade[]): Uint8Array {
  const n = trades.length;
  const out = new Uint8Array(n * PACKED_TRADE_BYTES);
  const v = new DataView(out.buffer);
  for (let i = 0; i < n; i++) {
    const t = trades[i];
    assert(Number.isInteger(t.entryTimeS) && t.entryTimeS >= 0 && t.entryTimeS <= 0xffffffff, 'trade entry time out of range');
    assert(Number.isInteger(t.exitTimeS) && t.exitTimeS >= 0 && t.exitTimeS <= 0xffffffff, 'trade exit time out of range');
    assert(Number.isInteger(t.entryQty) && t.entryQty >= 1 && t.entryQty <= 0x7fffffff, 'trade size out of range');
    v.setFloat64(i * 8, t.entryValueTicks, true);
    v.setFloat64(8 * n + i * 8, t.exitValueTicks, true);
    v.setFloat64(16 * n + i * 8, t.pnlCents, true);
    v.setFloat64(24 * n + i * 8, t.feesCents, true);
    v.setUint32(32 * n + i * 4, t.entryTimeS, true);
    v.setUint32(36 * n + i * 4, t.exitTimeS, true);
    v.setInt32(40 * n + i * 4, t.direction * t.entryQty, true);
  }
  return out;
}

/** Trades [from, to) of `n` packed by encodeTrades. */
export function decodeTrades(bytes: Uint8Array, n: number, from: number, to: number): StoredTrade[] {
  assert(bytes.byteLength === n * PACKED_TRADE_BYTES, 'packed trades: length does not match the count');
  assert(from >= 0 && from <= to && to <= n, 'packed trades: range out of bounds');
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out: StoredTrade[] = [];
  for (let i = from; i < to; i++) {
    const q = v.getInt32(40 * n + i * 4, true);
    out.push({
      direction: q > 0 ? 1 : -1,
      entryTimeS: v.getUint32(32 * n + i * 4, true),
      exitTimeS: v.getUint32(36 * n + i * 4, true),
      entryQty: Math.abs(q),
      entryValueTicks: v.getFloat64(i * 8, true),
      exitValueTicks: v.getFloat64(8 * n + i * 8, true),
      pnlCents: v.getFloat64(16 * n + i * 8, true),
      feesCents: v.getFloat64(24 * n + i * 8, true),
    });
  }
  return out;
}

export interface RunRow extends NewRun {
  status: RunStatus;
  error: string | null;
  totalPnlCents: number | null;
  totalTrades: number | null;
  winRate: number | null;
  barsDone: number;
  result: unknown;
  completedMs: number | null;
  /** The node running it; null while queued. */
  nodeId: string | null;
  heartbeatMs: number | null;
  stopRequested: boolean;
  /** Holds a place in the paced runner share (else a full-speed one). */
  paced: boolean;
  /** What the running node last wrote of its progress (balance, equity, statistics); null otherwise. */
  progress: unknown;
  optimizationId: string | null;
  optWindow: number | null;
  optCombo: number | null;
}

/** What a node needs to run a queued run besides its row: the script and the span (epoch seconds). */
export interface RunJob {
  code: string;
  startS: number;
  endS: number;
}

/** Whether `e` is a unique-key violation (SQLite or PostgreSQL). */
export function isUniqueViolation(e: unknown): boolean {
  const x = e as { code?: unknown; errno?: unknown; message?: unknown } | null;
  if (x?.code === '23505' || x?.errno === '23505') return true;
  return /UNIQUE constraint failed|duplicate key value/i.test(String(x?.message ?? ''));
}

export interface RunRaw {
  id: string;
  user_id: number;
  strategy_id: string | null;
  template_id: string | null;
  instrument: string;
  timeframe: string;
  start_date: string;
  end_date: string;
  params_json: string;
  context_timeframes_json: string;
  speed: number | null;
  status: RunStatus;
  error: string | null;
  total_pnl_cents: number | null;
  total_trades: number | null;
  win_rate: number | null;
  bars_done: number;
  bars_total: number;
  result_json: string | null;
  started_ms: number;
  completed_ms: number | null;
  node_id?: string | null;
  heartbeat_ms?: number | null;
  stop_requested?: number;
  paced?: number;
  progress_json?: string | null;
  optimization_id?: string | null;
  opt_window?: number | null;
  opt_combo?: number | null;
}

export function runRowOf(r: RunRaw): RunRow {
  return {
    id: r.id,
    userId: r.user_id,
    strategyId: r.strategy_id,
    templateId: r.template_id,
    instrument: r.instrument,
    timeframe: r.timeframe,
    startDate: r.start_date,
    endDate: r.end_date,
    params: JSON.parse(r.params_json),
    contextTimeframes: JSON.parse(r.context_timeframes_json),
    speed: r.speed,
    status: r.status,
    error: r.error,
    totalPnlCents: r.total_pnl_cents,
    totalTrades: r.total_trades,
    winRate: r.win_rate,
    barsDone: r.bars_done,
    barsTotal: r.bars_total,
    result: r.result_json === null ? null : JSON.parse(r.result_json),
    startedMs: r.started_ms,
    completedMs: r.completed_ms,
    nodeId: r.node_id ?? null,
    heartbeatMs: r.heartbeat_ms ?? null,
    stopRequested: r.stop_requested === 1,
    paced: r.paced === 1,
    progress: r.progress_json ? JSON.parse(r.progress_json) : null,
    optimizationId: r.optimization_id ?? null,
    optWindow: r.opt_window ?? null,
    optCombo: r.opt_combo ?? null,
  };
}

export const ROW_COLUMNS = `id, user_id, strategy_id, template_id, instrument, timeframe, start_date, end_date, params_json, context_timeframes_json, speed,
  status, error, total_pnl_cents, total_trades, win_rate, bars_done, bars_total, result_json, started_ms, completed_ms, node_id,
  heartbeat_ms, stop_requested, paced, progress_json, optimization_id, opt_window, opt_combo`;

/** Single runs only: an optimisation's combinations have admission, stop and listing of their own. */
export const SINGLE = 'optimization_id IS NULL';

export class PlaygroundRunStore {
  constructor(private readonly db: Sql) {}

  /**
   * Writes a running row. With a job it is queued for any node to claim; without one (tests,
   * imports of another process's run) it is a run no node will pick up.
   */
  async insert(r: NewRun, job: RunJob | null = null, paced = false): Promise<void> {
    await inSeqOrder(this.db, 'playground_runs', () => this.db.run(`INSERT INTO playground_runs (id, user_id, strategy_id, template_id, instrument, timeframe, start_date, end_date,
           params_json, context_timeframes_json, speed, status, bars_total, started_ms, paced, job_json, optimization_id, opt_window, opt_combo, seq)
         VALUES ($id, $user, $strategy, $template, $instrument, $timeframe, $start, $end, $params, $ctx, $speed, 'running', $total, $started,
           $paced, $job, $opt, $optWindow, $optCombo, ${nextSeq('playground_runs')})`, {
        id: r.id, user: r.userId, strategy: r.strategyId, template: r.templateId, instrument: r.instrument, timeframe: r.timeframe,
        start: r.startDate, end: r.endDate, params: JSON.stringify(r.params), ctx: JSON.stringify(r.contextTimeframes), speed: r.speed,
        total: r.barsTotal, started: r.startedMs, paced: paced ? 1 : 0, job: job === null ? null : JSON.stringify(job),
        opt: r.optimizationId ?? null, optWindow: r.optWindow ?? null, optCombo: r.optCombo ?? null,
      }));
  }


  /** Completes a running row, with its packed trades; a row already ended is left as it is. */
  async end(id: string, f: RunEndFields): Promise<void> {
    const trades = f.trades;
    const chunks = f.trades === undefined ? [] : chunkTrades(f.trades, f.tradesPerChunk);
    await this.db.transaction(async () => {
      const changed = (await this.db.run(`UPDATE playground_runs SET status = $status, error = $error, total_pnl_cents = $pnl, total_trades = $trades, win_rate = $win,
             bars_done = $done, speed = $speed, result_json = $result, completed_ms = $completed, job_json = NULL, progress_json = NULL,
             summary_json = $summary
           WHERE id = $id AND status = 'running'`, {
          id, status: f.status, error: f.error, pnl: f.totalPnlCents, trades: f.totalTrades, win: f.winRate, done: f.barsDone, speed: f.speed,
          result: JSON.stringify(f.result), completed: f.completedMs, summary: f.summary === undefined ? null : JSON.stringify(f.summary),
        }));
      if (changed === 0 || trades === undefined) return;
      await this.db.run('DELETE FROM playground_run_trades WHERE run_id = $id', { id });
      for (const c of chunks) {
        await this.db.run('INSERT INTO playground_run_trades (run_id, first_index, trade_count, trades) VALUES ($id, $first, $n, $packed)', {
          id, first: c.firstIndex, n: c.count, packed: c.packed,
        });
      }
    });
  }

  /**
   * Trades [offset, offset + limit) of a run of the user's, clipped to what is stored, with the count
   * stored; null when the run has no packed trades (not the user's, running, or recorded before
   * trades were packed).
   */
  async tradesPage(userId: number, id: string, offset: number, limit: number): Promise<{ stored: number; trades: StoredTrade[] } | null> {
    // The count stored is where the last chunk ends (read from the key and the last row's count).
    const last = await this.db.get<{ n: number }>(`SELECT t.first_index + t.trade_count AS n FROM playground_run_trades t
         JOIN playground_runs r ON r.id = t.run_id WHERE t.run_id = $id AND r.user_id = $user ORDER BY t.first_index DESC LIMIT 1`, { id, user: userId });
    if (last === null) return null;
    const stored = Number(last.n);
    const from = Math.min(offset, stored);
    const to = Math.min(stored, from + limit);
    if (from === to) return { stored, trades: [] };
    // The chunk holding `from`, and those after it that start before `to`.
    const rows = await this.db.all<{ first: number; n: number; packed: Uint8Array }>(`SELECT first_index AS first, trade_count AS n, trades AS packed
         FROM playground_run_trades WHERE run_id = $id AND first_index < $to
           AND first_index >= (SELECT MAX(first_index) FROM playground_run_trades WHERE run_id = $id AND first_index <= $from)
         ORDER BY first_index`, { id, from, to });
    const trades: StoredTrade[] = [];
    for (const r of rows) {
      const first = Number(r.first);
      const n = Number(r.n);
      trades.push(...decodeTrades(r.packed, n, Math.max(from, first) - first, Math.min(to, first + n) - first));
    }
    assert(trades.length === to - from, 'packed trades: chunks do not cover the page');
    return { stored, trades };
  }

  /** A strategy's runs, newest first, without their result payloads (`result` is null). */
  async listOfStrategy(strategyId: string, userId: number, max: number): Promise<RunRow[]> {
    const rows = (await this.db.all(`SELECT id, user_id, strategy_id, template_id, instrument, timeframe, start_date, end_date, params_json,
                context_timeframes_json, speed, status, error, total_pnl_cents, total_trades, win_rate, bars_done,
                bars_total, NULL AS result_json, started_ms, completed_ms, node_id, heartbeat_ms, stop_requested, paced, NULL AS progress_json
         FROM playground_runs WHERE strategy_id = $s AND user_id = $u AND ${SINGLE} ORDER BY started_ms DESC, seq DESC LIMIT $max`, { s: strategyId, u: userId, max })) as RunRaw[];
    return rows.map(runRowOf);
  }

  /** The user's run, or null (another user's run reads as absent). */
  async get(userId: number, id: string): Promise<RunRow | null> {
    const r = (await this.db.get(`SELECT ${ROW_COLUMNS} FROM playground_runs WHERE id = $id AND user_id = $user`, { id, user: userId })) as RunRaw | null;
    return r ? runRowOf(r) : null;
  }

  /** Records an ended single run of the user's that has no strategy under `strategyId` (Save as strategy); whether it did. */
  async adoptRun(userId: number, id: string, strategyId: string): Promise<boolean> {
    const n = await this.db.run(`UPDATE playground_runs SET strategy_id = $s WHERE id = $id AND user_id = $u AND strategy_id IS NULL
         AND status <> 'running' AND optimization_id IS NULL`, { id, u: userId, s: strategyId });
    return n > 0;
  }

  /**
   * Keeps the user's newest `keep` runs: deletes the oldest ended ones beyond that count (running
   * runs count and always stay); returns how many.
   */
  async pruneUser(userId: number, keep: number): Promise<number> {
    return this.db.transaction(async () => {
      const running = await this.db.get<{ n: number }>(`SELECT COUNT(*) AS n FROM playground_runs WHERE user_id = $u AND status = 'running' AND ${SINGLE}`, { u: userId });
      return this.db.run(
        `DELETE FROM playground_runs WHERE user_id = $u AND status != 'running' AND ${SINGLE} AND id NOT IN (
           SELECT id FROM playground_runs WHERE user_id = $u AND status != 'running' AND ${SINGLE} ORDER BY started_ms DESC, seq DESC LIMIT $kept)`,
        { u: userId, kept: Math.max(0, keep - (running?.n ?? 0)) },
      );
    });
  }


  /** Marks one run failed if it is still running. */
  async failRunning(id: string, reason: string, nowMs: number): Promise<void> {
    await this.db.run(`UPDATE playground_runs SET status = 'failed', error = $reason, completed_ms = $now, job_json = NULL WHERE id = $id AND status = 'running'`, { id, reason, now: nowMs });
  }

}
