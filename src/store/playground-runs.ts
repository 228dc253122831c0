// Playground runs: a row is written when a run is accepted (status running) and completed once when
// it ends, with its totals and its result (statistics, the first trades, equity curve, logs) as JSON.
// Every trade of the run goes beside it, packed in columns in one BLOB (`encodeTrades`), and is read
// a page at a time. A row still `running` at start belongs to a server that stopped mid-run:
// `failInterrupted` marks it failed.

import type { TradeRecord } from '../engine/results.ts';
import { assert } from '../lib/assert.ts';
import type { Sql } from './sql.ts';
import { nextSeq } from './seq.ts';
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
}

export interface RunEndFields {
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
  /** Every trade of the run to store packed (at most `limits.playgroundTradesStoredMax`, the caller's cut); absent: none stored. */
  trades?: readonly StoredTrade[];
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
}

interface Raw {
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
}

function toRow(r: Raw): RunRow {
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
  };
}

export class PlaygroundRunStore {
  constructor(private readonly db: Sql) {}

  async insert(r: NewRun): Promise<void> {
    await this.db.run(`INSERT INTO playground_runs (id, user_id, strategy_id, template_id, instrument, timeframe, start_date, end_date,
           params_json, context_timeframes_json, speed, status, bars_total, started_ms, seq)
         VALUES ($id, $user, $strategy, $template, $instrument, $timeframe, $start, $end, $params, $ctx, $speed, 'running', $total, $started,
           ${nextSeq('playground_runs')})`, {
        id: r.id, user: r.userId, strategy: r.strategyId, template: r.templateId, instrument: r.instrument, timeframe: r.timeframe,
        start: r.startDate, end: r.endDate, params: JSON.stringify(r.params), ctx: JSON.stringify(r.contextTimeframes), speed: r.speed,
        total: r.barsTotal, started: r.startedMs,
      });
  }

  /** Completes a running row, with its packed trades; a row already ended is left as it is. */
  async end(id: string, f: RunEndFields): Promise<void> {
    const trades = f.trades;
    const packed = trades === undefined ? null : encodeTrades(trades);
    await this.db.transaction(async () => {
      const changed = (await this.db.run(`UPDATE playground_runs SET status = $status, error = $error, total_pnl_cents = $pnl, total_trades = $trades, win_rate = $win,
             bars_done = $done, speed = $speed, result_json = $result, completed_ms = $completed WHERE id = $id AND status = 'running'`, {
          id, status: f.status, error: f.error, pnl: f.totalPnlCents, trades: f.totalTrades, win: f.winRate, done: f.barsDone, speed: f.speed,
          result: JSON.stringify(f.result), completed: f.completedMs,
        }));
      if (changed === 0 || trades === undefined) return;
      await this.db.run(`INSERT INTO playground_run_trades (run_id, trade_count, trades) VALUES ($id, $n, $packed)
         ON CONFLICT (run_id) DO UPDATE SET trade_count = excluded.trade_count, trades = excluded.trades`, { id, n: trades.length, packed });
    });
  }

  /**
   * Trades [offset, offset + limit) of a run of the user's, clipped to what is stored, with the count
   * stored; null when the run has no packed trades (not the user's, running, or recorded before
   * trades were packed).
   */
  async tradesPage(userId: number, id: string, offset: number, limit: number): Promise<{ stored: number; trades: StoredTrade[] } | null> {
    const r = (await this.db.get(`SELECT t.trade_count AS n, t.trades AS packed FROM playground_run_trades t JOIN playground_runs r ON r.id = t.run_id
         WHERE t.run_id = $id AND r.user_id = $user`, { id, user: userId })) as { n: number; packed: Uint8Array } | null;
    if (r === null) return null;
    const from = Math.min(offset, r.n);
    return { stored: r.n, trades: decodeTrades(r.packed, r.n, from, Math.min(r.n, from + limit)) };
  }

  /** A strategy's runs, newest first, without their result payloads (`result` is null). */
  async listOfStrategy(strategyId: string, userId: number, max: number): Promise<RunRow[]> {
    const rows = (await this.db.all(`SELECT id, user_id, strategy_id, template_id, instrument, timeframe, start_date, end_date, params_json,
                context_timeframes_json, speed, status, error, total_pnl_cents, total_trades, win_rate, bars_done,
                bars_total, NULL AS result_json, started_ms, completed_ms
         FROM playground_runs WHERE strategy_id = $s AND user_id = $u ORDER BY started_ms DESC, seq DESC LIMIT $max`, { s: strategyId, u: userId, max })) as Raw[];
    return rows.map(toRow);
  }

  /** The user's run, or null (another user's run reads as absent). */
  async get(userId: number, id: string): Promise<RunRow | null> {
    const r = (await this.db.get('SELECT * FROM playground_runs WHERE id = $id AND user_id = $user', { id, user: userId })) as Raw | null;
    return r ? toRow(r) : null;
  }

  /**
   * Keeps the user's newest `keep` runs: deletes the oldest ended ones beyond that count (running
   * runs count and always stay); returns how many.
   */
  async pruneUser(userId: number, keep: number): Promise<number> {
    return this.db.transaction(async () => {
      const running = await this.db.get<{ n: number }>(`SELECT COUNT(*) AS n FROM playground_runs WHERE user_id = $u AND status = 'running'`, { u: userId });
      return this.db.run(
        `DELETE FROM playground_runs WHERE user_id = $u AND status != 'running' AND id NOT IN (
           SELECT id FROM playground_runs WHERE user_id = $u AND status != 'running' ORDER BY started_ms DESC, seq DESC LIMIT $kept)`,
        { u: userId, kept: Math.max(0, keep - (running?.n ?? 0)) },
      );
    });
  }

  /** Marks one run failed if it is still running. */
  async failRunning(id: string, reason: string, nowMs: number): Promise<void> {
    await this.db.run(`UPDATE playground_runs SET status = 'failed', error = $reason, completed_ms = $now WHERE id = $id AND status = 'running'`, { id, reason, now: nowMs });
  }

  /** Marks runs left `running` by a stopped server as failed; returns how many. */
  async failInterrupted(reason: string, nowMs: number): Promise<number> {
    return (await this.db.run(`UPDATE playground_runs SET status = 'failed', error = $reason, completed_ms = $now WHERE status = 'running'`, { reason, now: nowMs }));
  }
}
