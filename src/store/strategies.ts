// Saved playground strategies, and the read of a strategy's runs (the rows are written by the run
// service through playground-runs.ts). Every query is scoped to the owning user: a strategy id of
// another user reads as absent.

import type { Columns } from './columns.ts';
import type { Sql } from './sql.ts';
import { inSeqOrder, nextSeq } from './seq.ts';

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

type RawStrategy = Columns<Omit<StrategyRow, 'params'>, { params_json: string }>;

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
  constructor(private readonly db: Sql) {}

  async insert(id: string, userId: number, f: StrategyFields, nowMs: number): Promise<void> {
    await inSeqOrder(this.db, 'strategies', () => this.db.run(`INSERT INTO strategies (id, user_id, name, code, instrument, timeframe, params_json, created_ms, updated_ms, seq)
         VALUES ($id, $u, $name, $code, $instrument, $timeframe, $params, $now, $now, ${nextSeq('strategies')})`, { id, u: userId, ...this.fieldParams(f), now: nowMs }));
  }

  /** Rewrites a strategy of the user; false when the user has no strategy with this id. */
  async update(id: string, userId: number, f: StrategyFields, nowMs: number): Promise<boolean> {
    return (
      (await this.db.run(`UPDATE strategies SET name = $name, code = $code, instrument = $instrument, timeframe = $timeframe,
             params_json = $params, updated_ms = $now
           WHERE id = $id AND user_id = $u`, { id, u: userId, ...this.fieldParams(f), now: nowMs })) === 1
    );
  }

  async get(id: string, userId: number): Promise<StrategyRow | null> {
    const r = (await this.db.get('SELECT * FROM strategies WHERE id = $id AND user_id = $u', { id, u: userId })) as RawStrategy | null;
    return r ? toStrategy(r) : null;
  }

  async exists(id: string, userId: number): Promise<boolean> {
    return (await this.db.get('SELECT 1 FROM strategies WHERE id = $id AND user_id = $u', { id, u: userId })) !== null;
  }

  /** The user's strategies without code and params, most recently updated first. */
  async list(userId: number): Promise<StrategySummaryRow[]> {
    const rows = (await this.db.all(`SELECT id, user_id, name, instrument, timeframe, created_ms, updated_ms FROM strategies
         WHERE user_id = $u ORDER BY updated_ms DESC, seq DESC`, { u: userId })) as Omit<RawStrategy, 'code' | 'params_json'>[];
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
  async delete(id: string, userId: number): Promise<boolean> {
    return (await this.db.run('DELETE FROM strategies WHERE id = $id AND user_id = $u', { id, u: userId })) === 1;
  }

  /**
   * How many strategies the user keeps and their stored bytes (code, name and params, UTF-8), with
   * one strategy left out (the one an update rewrites).
   */
  async usage(userId: number, exceptId: string | null): Promise<{ count: number; bytes: number }> {
    const r = (await this.db.get(`SELECT COUNT(*) AS n, COALESCE(SUM(octet_length(code) + octet_length(name) + octet_length(params_json)), 0) AS bytes
         FROM strategies WHERE user_id = $u AND id IS DISTINCT FROM $except`, { u: userId, except: exceptId })) as { n: number; bytes: number };
    return { count: r.n, bytes: r.bytes };
  }

  private fieldParams(f: StrategyFields) {
    return { name: f.name, code: f.code, instrument: f.instrument, timeframe: f.timeframe, params: JSON.stringify(f.params) };
  }
}
