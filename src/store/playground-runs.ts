// Playground runs: a row is written when a run is accepted (status running) and completed once when
// it ends, with its totals and its result (statistics, trades, equity curve, logs) as JSON.
// A row still `running` at start belongs to a server that stopped mid-run: `failInterrupted` marks
// it failed.

import type { Db } from './db.ts';
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
  constructor(private readonly db: Db) {}

  insert(r: NewRun): void {
    this.db
      .query(
        `INSERT INTO playground_runs (id, user_id, strategy_id, template_id, instrument, timeframe, start_date, end_date,
           params_json, context_timeframes_json, speed, status, bars_total, started_ms)
         VALUES ($id, $user, $strategy, $template, $instrument, $timeframe, $start, $end, $params, $ctx, $speed, 'running', $total, $started)`,
      )
      .run({
        id: r.id, user: r.userId, strategy: r.strategyId, template: r.templateId, instrument: r.instrument, timeframe: r.timeframe,
        start: r.startDate, end: r.endDate, params: JSON.stringify(r.params), ctx: JSON.stringify(r.contextTimeframes), speed: r.speed,
        total: r.barsTotal, started: r.startedMs,
      });
  }

  /** Completes a running row; a row already ended is left as it is. */
  end(id: string, f: RunEndFields): void {
    this.db
      .query(
        `UPDATE playground_runs SET status = $status, error = $error, total_pnl_cents = $pnl, total_trades = $trades, win_rate = $win,
           bars_done = $done, speed = $speed, result_json = $result, completed_ms = $completed WHERE id = $id AND status = 'running'`,
      )
      .run({
        id, status: f.status, error: f.error, pnl: f.totalPnlCents, trades: f.totalTrades, win: f.winRate, done: f.barsDone, speed: f.speed,
        result: JSON.stringify(f.result), completed: f.completedMs,
      });
  }

  /** A strategy's runs, newest first, without their result payloads (`result` is null). */
  listOfStrategy(strategyId: string, userId: number, max: number): RunRow[] {
    const rows = this.db
      .query(
        `SELECT id, user_id, strategy_id, template_id, instrument, timeframe, start_date, end_date, params_json,
                context_timeframes_json, speed, status, error, total_pnl_cents, total_trades, win_rate, bars_done,
                bars_total, NULL AS result_json, started_ms, completed_ms
         FROM playground_runs WHERE strategy_id = $s AND user_id = $u ORDER BY started_ms DESC, rowid DESC LIMIT $max`,
      )
      .all({ s: strategyId, u: userId, max }) as Raw[];
    return rows.map(toRow);
  }

  /** The user's run, or null (another user's run reads as absent). */
  get(userId: number, id: string): RunRow | null {
    const r = this.db.query('SELECT * FROM playground_runs WHERE id = $id AND user_id = $user').get({ id, user: userId }) as Raw | null;
    return r ? toRow(r) : null;
  }

  /**
   * Keeps the user's newest `keep` runs: deletes the oldest ended ones beyond that count (running
   * runs count and always stay); returns how many.
   */
  pruneUser(userId: number, keep: number): number {
    return this.db
      .query(
        `DELETE FROM playground_runs WHERE id IN (
           SELECT id FROM playground_runs WHERE user_id = $u AND status != 'running' ORDER BY started_ms DESC, rowid DESC
           LIMIT -1 OFFSET MAX(0, $keep - (SELECT COUNT(*) FROM playground_runs WHERE user_id = $u AND status = 'running')))`,
      )
      .run({ u: userId, keep }).changes;
  }

  /** Marks one run failed if it is still running. */
  failRunning(id: string, reason: string, nowMs: number): void {
    this.db
      .query(`UPDATE playground_runs SET status = 'failed', error = $reason, completed_ms = $now WHERE id = $id AND status = 'running'`)
      .run({ id, reason, now: nowMs });
  }

  /** Marks runs left `running` by a stopped server as failed; returns how many. */
  failInterrupted(reason: string, nowMs: number): number {
    return this.db
      .query(`UPDATE playground_runs SET status = 'failed', error = $reason, completed_ms = $now WHERE status = 'running'`)
      .run({ reason, now: nowMs }).changes;
  }
}
