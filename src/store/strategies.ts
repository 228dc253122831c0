// Saved playground strategies, and the read of a strategy's runs (the rows are written by the run
// service through playground-runs.ts). Every query is scoped to the owning user: a strategy id of
// another user reads as absent.

import type { Db } from './db.ts';

export type ParamValue = number | string | boolean;
export type ParamMap = Record<string, ParamValue>;

export interface StrategyRow {
  id: string;
  userId: number;
  name: string;
  code: string;
  instrument: string;
  timeframe: string;
  params: ParamMap;
  createdMs: number;
  updatedMs: number;
}

export type StrategySummaryRow = Omit<StrategyRow, 'code' | 'params'>;

export interface StrategyFields {
  name: string;
  code: string;
  instrument: string;
  timeframe: string;
  params: ParamMap;
}

export type RunStatus = 'running' | 'completed' | 'failed' | 'stopped' | 'timeout';

interface RawStrategy {
  id: string;
  user_id: number;
  name: string;
  code: string;
  instrument: string;
  timeframe: string;
  params_json: string;
  created_ms: number;
  updated_ms: number;
}

function toStrategy(r: RawStrategy): StrategyRow {
  return {
    id: r.id,
    userId: r.user_id,
    name: r.name,
    code: r.code,
    instrument: r.instrument,
    timeframe: r.timeframe,
    params: JSON.parse(r.params_json),
    createdMs: r.created_ms,
    updatedMs: r.updated_ms,
  };
}

export class StrategyStore {
  constructor(private readonly db: Db) {}

  insert(id: string, userId: number, f: StrategyFields, nowMs: number): void {
    this.db
      .query(
        `INSERT INTO strategies (id, user_id, name, code, instrument, timeframe, params_json, created_ms, updated_ms)
         VALUES ($id, $u, $name, $code, $instrument, $timeframe, $params, $now, $now)`,
      )
      .run({ id, u: userId, ...this.fieldParams(f), now: nowMs });
  }

  /** Rewrites a strategy of the user; false when the user has no strategy with this id. */
  update(id: string, userId: number, f: StrategyFields, nowMs: number): boolean {
    return (
      this.db
        .query(
          `UPDATE strategies SET name = $name, code = $code, instrument = $instrument, timeframe = $timeframe,
             params_json = $params, updated_ms = $now
           WHERE id = $id AND user_id = $u`,
        )
        .run({ id, u: userId, ...this.fieldParams(f), now: nowMs }).changes === 1
    );
  }

  get(id: string, userId: number): StrategyRow | null {
    const r = this.db.query('SELECT * FROM strategies WHERE id = $id AND user_id = $u').get({ id, u: userId }) as RawStrategy | null;
    return r ? toStrategy(r) : null;
  }

  exists(id: string, userId: number): boolean {
    return this.db.query('SELECT 1 FROM strategies WHERE id = $id AND user_id = $u').get({ id, u: userId }) !== null;
  }

  /** The user's strategies without code and params, most recently updated first. */
  list(userId: number): StrategySummaryRow[] {
    const rows = this.db
      .query(
        `SELECT id, user_id, name, instrument, timeframe, created_ms, updated_ms FROM strategies
         WHERE user_id = $u ORDER BY updated_ms DESC, rowid DESC`,
      )
      .all({ u: userId }) as Omit<RawStrategy, 'code' | 'params_json'>[];
    return rows.map((r) => ({
      id: r.id,
      userId: r.user_id,
      name: r.name,
      instrument: r.instrument,
      timeframe: r.timeframe,
      createdMs: r.created_ms,
      updatedMs: r.updated_ms,
    }));
  }

  /** Deletes a strategy of the user (its runs stay); false when there was none. */
  delete(id: string, userId: number): boolean {
    return this.db.query('DELETE FROM strategies WHERE id = $id AND user_id = $u').run({ id, u: userId }).changes === 1;
  }

  /**
   * How many strategies the user keeps and their stored bytes (code, name and params, UTF-8), with
   * one strategy left out (the one an update rewrites).
   */
  usage(userId: number, exceptId: string | null): { count: number; bytes: number } {
    const r = this.db
      .query(
        `SELECT COUNT(*) AS n, COALESCE(SUM(LENGTH(CAST(code AS BLOB)) + LENGTH(CAST(name AS BLOB)) + LENGTH(CAST(params_json AS BLOB))), 0) AS bytes
         FROM strategies WHERE user_id = $u AND id IS NOT $except`,
      )
      .get({ u: userId, except: exceptId }) as { n: number; bytes: number };
    return { count: r.n, bytes: r.bytes };
  }

  private fieldParams(f: StrategyFields) {
    return { name: f.name, code: f.code, instrument: f.instrument, timeframe: f.timeframe, params: JSON.stringify(f.params) };
  }
}
