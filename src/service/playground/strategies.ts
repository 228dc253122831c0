// Saved playground strategies: a user's own Python script with its instrument, timeframe and
// parameter values. Users only ever see their own: another user's id reads as not found.
// Deleting a strategy keeps its runs (they stay readable by execution id).

import { randomBytes } from 'node:crypto';
import { limits } from '../../config.ts';
import { findInstrument } from '../../domain/instrument.ts';
import { parseTimeframe } from '../../domain/timeframe.ts';
import type { Clock } from '../../lib/clock.ts';
import { type Invalid, isInvalid } from '../../lib/invalid.ts';
import type { Json, JsonObject } from '../../lib/json.ts';
import { err, ok, type Result } from '../../lib/result.ts';
import type { RateLimiter, RateLimits } from '../rate-limit.ts';
import type { PlaygroundRunStore, RunRow } from '../../store/playground-runs.ts';
import { findTemplate } from './templates.ts';
import type { ParamMap, StrategyFields, StrategyRow, StrategyStore, StrategySummaryRow } from '../../store/strategies.ts';

export type { ParamMap, RunRow, StrategyRow, StrategySummaryRow };

export type StrategyField = 'name' | 'code' | 'instrument' | 'timeframe' | 'params';

export type InvalidParamsReason =
  | { reason: 'too_many_keys'; max: number }
  | { reason: 'bad_key'; max: number }
  | { reason: 'bad_value'; key: string }
  | { reason: 'string_too_long'; key: string; max: number };

export type SaveStrategyError =
  | { kind: 'field_required'; field: StrategyField }
  | { kind: 'name_too_long'; max: number }
  | { kind: 'script_too_large' }
  | { kind: 'instrument_not_found' }
  | { kind: 'invalid_timeframe' }
  | ({ kind: 'invalid_params' } & InvalidParamsReason)
  | { kind: 'strategy_not_found' }
  | { kind: 'too_many_strategies'; max: number }
  | { kind: 'storage_full'; maxBytes: number }
  | { kind: 'rate_limited'; retryAfterS: number };

export type StrategyNotFound = { kind: 'strategy_not_found' };

/**
 * POST strategies/save as the route parsed it: each field as its schema types it, `INVALID` where the
 * schema failed (refused with the field's row in the order of checks), and `params` as sent (the
 * refusal names the key whose value is wrong).
 */
export interface SaveStrategyInput {
  /** A strategy of the user's to rewrite; absent or null creates one. */
  id?: string | null | Invalid;
  name: string | Invalid;
  code: string | Invalid;
  instrument: string | Invalid;
  timeframe: string | Invalid;
  params: Json | undefined;
  /** On create: an ended run of the user's, of this code and market, to record under the new strategy (Save as strategy after a run). */
  runId?: string | null;
}

/** `stg_` + 16 hex characters (64 random bits). */
export function newStrategyId(): string {
  return `stg_${randomBytes(8).toString('hex')}`;
}

function nonEmptyString(v: string | Invalid): v is string {
  return typeof v === 'string' && v.trim() !== '';
}

function isPlainObject(v: Json | undefined): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Parameter values: a flat object of numbers, strings and booleans, bounded in keys and sizes. */
function checkParams(params: JsonObject): InvalidParamsReason | null {
  const keys = Object.keys(params);
  if (keys.length > limits.strategyParamsMax) return { reason: 'too_many_keys', max: limits.strategyParamsMax };
  for (const key of keys) {
    if (key === '' || key.length > limits.strategyParamKeyMax) return { reason: 'bad_key', max: limits.strategyParamKeyMax };
    const v = params[key];
    if (typeof v === 'string') {
      if (v.length > limits.strategyParamStringMax) return { reason: 'string_too_long', key, max: limits.strategyParamStringMax };
    } else if (!(typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v)))) {
      return { reason: 'bad_value', key };
    }
  }
  return null;
}

/** A flat params object as JSON with its keys in order, for comparing two. */
function sortedJson(p: Record<string, unknown>): string {
  return JSON.stringify(Object.keys(p).sort().map((k) => [k, p[k]]));
}

/** What a strategy occupies in the user's byte budget (the columns `StrategyStore.usage` sums). */
function storedBytes(f: StrategyFields): number {
  return Buffer.byteLength(f.code, 'utf8') + Buffer.byteLength(f.name, 'utf8') + Buffer.byteLength(JSON.stringify(f.params), 'utf8');
}

export class StrategyService {
  private readonly saveLimiter: RateLimiter;

  constructor(
    private readonly store: StrategyStore,
    private readonly runStore: PlaygroundRunStore,
    private readonly clock: Clock,
    private readonly customTimeframes: boolean,
    rateLimits: RateLimits,
  ) {
    this.saveLimiter = rateLimits.limiter('strategy_save', limits.strategySavesPerWindowMax, limits.strategySaveWindowMs);
  }

  async list(userId: number): Promise<StrategySummaryRow[]> {
    return await this.store.list(userId);
  }

  async get(userId: number, id: string): Promise<Result<StrategyRow, StrategyNotFound>> {
    const row = await this.store.get(id, userId);
    return row ? ok(row) : err({ kind: 'strategy_not_found' });
  }

  /**
   * Creates a strategy, or rewrites the user's strategy `id` when given. Fields are checked one after
   * the other (name, code, instrument, timeframe, params: each for presence and type, then content),
   * then the id, then the user's quota (count on create, bytes on both). Every save counts against
   * the user's save rate first, as a replay start does, whatever its outcome.
   */
  async save(userId: number, input: SaveStrategyInput): Promise<Result<{ id: string }, SaveStrategyError>> {
    const gate = await this.saveLimiter.take(String(userId), this.clock.nowMs());
    if (!gate.allowed) return err({ kind: 'rate_limited', retryAfterS: gate.retryAfterS });
    const { name, code, instrument, timeframe, params, id } = input;
    if (!nonEmptyString(name)) return err({ kind: 'field_required', field: 'name' });
    const trimmedName = name.trim();
    if (trimmedName.length > limits.strategyNameMax) return err({ kind: 'name_too_long', max: limits.strategyNameMax });
    if (!nonEmptyString(code)) return err({ kind: 'field_required', field: 'code' });
    if (Buffer.byteLength(code, 'utf8') > limits.playgroundScriptBytesMax) return err({ kind: 'script_too_large' });
    if (!nonEmptyString(instrument)) return err({ kind: 'field_required', field: 'instrument' });
    const inst = findInstrument(instrument);
    if (!inst) return err({ kind: 'instrument_not_found' });
    if (!nonEmptyString(timeframe)) return err({ kind: 'field_required', field: 'timeframe' });
    const tf = parseTimeframe(timeframe.trim(), { customEnabled: this.customTimeframes, storedResolutionS: inst.storedResolutionS });
    if (!tf.ok) return err({ kind: 'invalid_timeframe' });
    if (!isPlainObject(params)) return err({ kind: 'field_required', field: 'params' });
    const bad = checkParams(params);
    if (bad) return err({ kind: 'invalid_params', ...bad });

    const fields: StrategyFields = { name: trimmedName, code, instrument: inst.symbol, timeframe: tf.value.text, params: params as ParamMap };
    const nowMs = this.clock.nowMs();
    const updating = id !== undefined && id !== null;
    if (updating && (isInvalid(id) || !await this.store.exists(id, userId))) return err({ kind: 'strategy_not_found' });
    // The other strategies' usage plus this one as it would be stored (an update replaces its old size).
    const others = await this.store.usage(userId, updating ? (id as string) : null);
    if (!updating && others.count >= limits.strategiesPerUserMax) return err({ kind: 'too_many_strategies', max: limits.strategiesPerUserMax });
    if (others.bytes + storedBytes(fields) > limits.strategyBytesPerUserMax) return err({ kind: 'storage_full', maxBytes: limits.strategyBytesPerUserMax });
    if (updating) {
      if (!await this.store.update(id as string, userId, fields, nowMs)) return err({ kind: 'strategy_not_found' });
      return ok({ id: id as string });
    }
    const newId = newStrategyId();
    await this.store.insert(newId, userId, fields, nowMs);
    if (typeof input.runId === 'string') await this.adoptRun(userId, input.runId, newId, fields);
    return ok({ id: newId });
  }

  /**
   * Records the run the user saved a strategy from under it, when it is the user's, ended, a single
   * run without a strategy, of the strategy's instrument, timeframe and params, and (a template's
   * run) of its code; a run of custom code keeps no code to compare, so the console's word stands
   * (it is the user's own run and list). Otherwise nothing happens: the save stands either way.
   */
  private async adoptRun(userId: number, runId: string, strategyId: string, f: StrategyFields): Promise<void> {
    const row = await this.runStore.get(userId, runId);
    if (row === null || row.instrument !== f.instrument || row.timeframe !== f.timeframe) return;
    if (row.templateId !== null && findTemplate(row.templateId)?.code !== f.code) return;
    if (sortedJson(row.params) !== sortedJson(f.params)) return;
    await this.runStore.adoptRun(userId, runId, strategyId);
  }

  async delete(userId: number, id: string): Promise<Result<void, StrategyNotFound>> {
    return await this.store.delete(id, userId) ? ok(undefined) : err({ kind: 'strategy_not_found' });
  }

  /** The strategy's runs, newest first (bounded); not found unless the strategy is the user's. */
  async runs(userId: number, id: string): Promise<Result<RunRow[], StrategyNotFound>> {
    if (!await this.store.exists(id, userId)) return err({ kind: 'strategy_not_found' });
    return ok(await this.runStore.listOfStrategy(id, userId, limits.strategyRunsListedMax));
  }
}
