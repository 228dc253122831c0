// History/retrieveBars: bars of any valid timeframe aggregated from the stored resolution, with
// the spec's scan windows, per-request cap, rate limit, daily budgets and 5-minute cache.
//
// Order of checks (each failure changes nothing and bills nothing):
//   contract → unit/unitNumber/timeframe → times → limit → import in progress (503) → cache hit
//   (served, not billed, not rate-limited) → rate limit → processing budget → scan → bar budget.
// The scans themselves (the range a request covers, counting back, the resolution ladder) are in
// history-scan.ts.
// Slices: the server calls `retrieveSliced`, which runs the scan a UTC day at a time and yields to
// the event loop whenever the slice reaches `limits.historySliceMs` (4 ms), so a long scan (30 days of seconds, a year
// of days whose rollups must first be built) never holds other users' requests for longer than a
// slice. Checks, billing and the cache are the same as `retrieve`'s (which never yields); an
// identical request arriving mid-scan waits for it and is served from the cache.
// What differs between families comes in a `HistoryPolicy` (how a contract ID names an instrument,
// the bars-per-request cap; for the live profile the week and month units and the gateway's rate) and
// in the request (barsBack or `fromEnd`, the default endTime, whole bars only); the checks, budgets,
// cache and aggregation are the same.

import { limits } from '../config.ts';
import type { Instrument } from '../domain/instrument.ts';
import { bucketStart, historyScanWindowS, type Timeframe, timeframeFromUnit } from '../domain/timeframe.ts';
import type { BarColumns } from '../data/bar-columns.ts';
import type { BarSource } from '../data/bar-source.ts';
import type { Clock } from '../lib/clock.ts';
import { type Invalid, isInvalid } from '../lib/invalid.ts';
import { parseIsoMs, secondsToUtcMidnight } from '../lib/iso-time.ts';
import { err, ok, type Result } from '../lib/result.ts';
import type { UsageStore } from '../store/usage.ts';
import { drain, drainSliced, type Scanned, scanBack, scanForward, type ScanSteps } from './history-scan.ts';
import { memoryRateLimits, type RateLimiter, type RateLimits } from './rate-limit.ts';
import { SessionBarsReader } from './session-bars.ts';

export type HistoryError =
  | { kind: 'contract_not_found' }
  | { kind: 'unit_invalid' }
  | { kind: 'unit_number_invalid' }
  | { kind: 'custom_disabled' }
  | { kind: 'incompatible_resolution' }
  | { kind: 'invalid_time_range' }
  | { kind: 'limit_invalid' }
  | { kind: 'importing'; retryAfterS: number }
  | { kind: 'rate_limited'; retryAfterS: number }
  | { kind: 'daily_bars_exhausted'; retryAfterS: number }
  | { kind: 'daily_processing_exhausted'; retryAfterS: number };

/**
 * History/retrieveBars as a family's route parsed it: each field as its schema types it, `INVALID`
 * where the schema failed (refused at the field's place in the order of checks above).
 */
export interface HistoryRequest {
  /** In the family's vocabulary (HistoryPolicy.instrumentFor). */
  contractId: string | Invalid;
  unit: number | Invalid;
  unitNumber: number | Invalid;
  /** ISO 8601; absent or null: the start of the data. */
  startTime: string | null | undefined | Invalid;
  /** ISO 8601; absent or null: `defaultEndS`, else the end of the data. */
  endTime: string | null | undefined | Invalid;
  /** Bars wanted; absent or null: the family's cap. */
  limit: number | null | undefined | Invalid;
  /** Count back from endTime: a whole number ≥ 1, already checked by the adapter; null = read forward. */
  barsBack?: number | null;
  /** endTime when none is sent (epoch seconds); null or absent = the end of the data. */
  defaultEndS?: number | null;
  /** Keep the `limit` bars nearest endTime (counting back, as barsBack) instead of the first from startTime. */
  fromEnd?: boolean;
  /** No trailing partial bar: the end moves back to the start of the bucket holding it. */
  wholeBarsOnly?: boolean;
}

/** A family's history rules. */
export interface HistoryPolicy {
  /** The instrument (whose bars are read) a contract ID names in the family's vocabulary. */
  instrumentFor(contractId: string): Instrument | undefined;
  /** Most bars one request returns (also the default `limit`). */
  barsPerRequestMax(inst: Instrument, tf: Timeframe): number;
  /** The live gateway's week (5) and month (6) units are accepted (timeframe.ts). */
  readonly calendarUnits?: boolean;
  /** Which request rate applies: the spec's (default) or the live gateway's (`limits.historyLive…`). */
  readonly rate?: 'spec' | 'gateway';
}

export interface HistoryResult {
  instrument: Instrument;
  timeframe: Timeframe;
  bars: BarColumns;
}

export interface HistoryDeps {
  source: BarSource;
  usage: UsageStore;
  clock: Clock;
  customTimeframes: boolean;
  /** Whether an import holds the instrument (checked per request; imports run in another process). */
  isImporting(symbol: string): Promise<boolean>;
  /** Where the request rate is counted; in this process when absent (tests, benches). */
  rateLimits?: RateLimits;
}

/** Longest a History scan holds the event loop before it lets other requests run. */
export const HISTORY_SLICE_MS = limits.historySliceMs;

interface CacheEntry {
  expiresMs: number;
  result: HistoryResult;
}

export class HistoryService {
  private readonly limiter: RateLimiter;
  private readonly gatewayLimiter: RateLimiter;
  /** The console's read of a live session's bars: built as History's, on a budget of its own. */
  readonly sessionBars: SessionBarsReader;
  private readonly cache = new Map<string, CacheEntry>();
  /** Sliced scans under way by cache key; settled (never rejected) when the scan ends. */
  private readonly inFlight = new Map<string, Promise<void>>();

  constructor(private readonly d: HistoryDeps) {
    const rateLimits = d.rateLimits ?? memoryRateLimits();
    this.limiter = rateLimits.limiter('history', limits.historyRequestsPerWindowMax, limits.historyWindowMs);
    this.gatewayLimiter = rateLimits.limiter('history_gateway', limits.historyLiveRequestsPerWindowMax, limits.historyLiveWindowMs);
    this.sessionBars = new SessionBarsReader(d.source, rateLimits, () => d.clock.nowMs());
  }

  /** The request answered in one go (tests, benches, tools): the scan never yields. */
  async retrieve(userId: number, req: HistoryRequest, policy: HistoryPolicy): Promise<Result<HistoryResult, HistoryError>> {
    const planned = this.prepare(userId, req, policy);
    if (!isPlan(planned)) return planned;
    const admitted = await this.admit(userId, planned);
    if (!admitted.ok) return admitted;
    return this.finish(userId, planned, drain(this.scanOf(planned)));
  }

  /**
   * The request as the server answers it: the same checks, budgets and cache as `retrieve`, with a
   * long scan run in slices of about `sliceMs`, other requests served between them. A request
   * identical to one still scanning waits for it and is then served from the cache, as it would be
   * if the two had run one after the other.
   */
  async retrieveSliced(
    userId: number,
    req: HistoryRequest,
    policy: HistoryPolicy,
    sliceMs: number = HISTORY_SLICE_MS,
  ): Promise<Result<HistoryResult, HistoryError>> {
    let planned = this.prepare(userId, req, policy);
    for (let waits = 0; isPlan(planned) && waits < limits.historyInFlightWaitsMax; waits++) {
      const running = this.inFlight.get(planned.key);
      if (running === undefined) break;
      await running;
      planned = this.prepare(userId, req, policy);
    }
    if (!isPlan(planned)) return planned;
    // Registered before anything is awaited: an identical request arriving meanwhile waits for this
    // one (billed once, then served from the cache), whatever the store's latency.
    const key = planned.key;
    let settle!: () => void;
    const done = new Promise<void>((resolve) => (settle = resolve));
    this.inFlight.set(key, done);
    try {
      const admitted = await this.admit(userId, planned);
      if (!admitted.ok) return admitted;
      return await this.finish(userId, planned, await drainSliced(this.scanOf(planned), sliceMs));
    } finally {
      if (this.inFlight.get(key) === done) this.inFlight.delete(key);
      settle();
    }
  }

  /** Checks up to the cache (nothing billed): a refusal, a cached answer, or the scan to run. */
  private prepare(userId: number, req: HistoryRequest, policy: HistoryPolicy): Plan | Result<HistoryResult, HistoryError> {
    const inst = isInvalid(req.contractId) ? undefined : policy.instrumentFor(req.contractId);
    if (!inst) return err({ kind: 'contract_not_found' });
    const tf = timeframeFromUnit(req.unit, req.unitNumber, {
      customEnabled: this.d.customTimeframes,
      storedResolutionS: inst.storedResolutionS,
      scanLimits: limits,
      calendarUnits: policy.calendarUnits ?? false,
    });
    if (!tf.ok) return tf;
    const range = this.timeRange(inst, req.startTime, req.endTime, req.defaultEndS ?? null);
    if (!range) return err({ kind: 'invalid_time_range' });
    // Whole bars only: bars built from stored bars before the start of the bucket holding the end.
    if (req.wholeBarsOnly) range.toS = bucketStart(tf.value, range.toS);
    const capBars = policy.barsPerRequestMax(inst, tf.value);
    const limit = req.barsBack ?? req.limit ?? capBars;
    if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1) return err({ kind: 'limit_invalid' });
    const back = req.barsBack ?? (req.fromEnd ? limit : null);

    const nowMs = this.d.clock.nowMs();
    // The data version is part of the key: after an import the same request must see the new bars.
    const key = `${userId}|${inst.symbol}|${this.d.source.dataVersion(inst)}|${tf.value.text}|${range.fromS}|${range.toS}|${limit}|${back === null ? 'fwd' : 'back'}|${capBars}`;
    const cached = this.cache.get(key);
    if (cached && cached.expiresMs > nowMs) return ok(cached.result);
    const windowS = historyScanWindowS(req.unit, limits);
    const gatewayRate = policy.rate === 'gateway';
    return { planned: true, key, nowMs, inst, tf: tf.value, fromS: range.fromS, toS: range.toS, windowS, back, barsMax: Math.min(limit, capBars), gatewayRate };
  }

  /** The rate limit and the daily budgets, checked before the scan (the rate limit takes a request). */
  private async admit(userId: number, plan: Plan): Promise<Result<true, HistoryError>> {
    // Before the limiter: a request refused while an import holds the instrument costs no slot.
    if (await this.d.isImporting(plan.inst.symbol)) return err({ kind: 'importing', retryAfterS: limits.importRetryAfterS });
    const gate = await (plan.gatewayRate ? this.gatewayLimiter : this.limiter).take(String(userId), plan.nowMs);
    if (!gate.allowed) return err({ kind: 'rate_limited', retryAfterS: gate.retryAfterS });
    const used = await this.d.usage.get(userId, dayOfMs(plan.nowMs));
    const untilMidnightS = secondsToUtcMidnight(plan.nowMs);
    if (used.sourceBars >= limits.historySourceBarsPerDayMax) {
      return err({ kind: 'daily_processing_exhausted', retryAfterS: untilMidnightS });
    }
    if (used.bars >= limits.historyBarsPerDayMax) return err({ kind: 'daily_bars_exhausted', retryAfterS: untilMidnightS });
    return ok(true);
  }

  private scanOf(plan: Plan): ScanSteps {
    const { inst, tf, fromS, toS, windowS, barsMax } = plan;
    const source = this.d.source;
    return plan.back === null
      ? scanForward(source, inst, tf, fromS, Math.min(toS, fromS + windowS), barsMax)
      : scanBack(source, inst, tf, Math.max(fromS, toS - windowS), toS, barsMax);
  }

  /**
   * Bills the scan and caches its bars. Usage is read again here: another request of the same user
   * may have been billed while a sliced scan yielded (with no yield it is the value `admit` read).
   */
  private async finish(userId: number, plan: Plan, scanned: Scanned): Promise<Result<HistoryResult, HistoryError>> {
    const today = dayOfMs(plan.nowMs);
    const used = await this.d.usage.get(userId, today);
    if (used.bars + scanned.bars.length > limits.historyBarsPerDayMax) {
      // Refused, but the scan was work done: it counts against the processing budget.
      await this.d.usage.add(userId, today, 0, scanned.sourceBars);
      return err({ kind: 'daily_bars_exhausted', retryAfterS: secondsToUtcMidnight(plan.nowMs) });
    }
    await this.d.usage.add(userId, today, scanned.bars.length, scanned.sourceBars);
    const result = { instrument: plan.inst, timeframe: plan.tf, bars: scanned.bars };
    this.remember(plan.key, result, plan.nowMs);
    return ok(result);
  }

  /** [fromS, toS) in epoch seconds; defaults are the instrument's available data. */
  private timeRange(inst: Instrument, startTime: HistoryRequest['startTime'], endTime: HistoryRequest['endTime'], defaultEndS: number | null): { fromS: number; toS: number } | null {
    const avail = this.d.source.range(inst);
    const fromMs = startTime == null ? avail.firstDay * 86_400_000 : isInvalid(startTime) ? undefined : parseIsoMs(startTime);
    const dataEndMs = (avail.lastDay + 1) * 86_400_000;
    const toMs = endTime == null ? (defaultEndS === null ? dataEndMs : Math.min(defaultEndS * 1000, dataEndMs)) : isInvalid(endTime) ? undefined : parseIsoMs(endTime);
    if (fromMs === undefined || toMs === undefined || toMs < fromMs) return null;
    return { fromS: Math.ceil(fromMs / 1000), toS: Math.ceil(toMs / 1000) };
  }

  private remember(key: string, result: HistoryResult, nowMs: number): void {
    if (this.cache.size >= limits.historyCacheEntriesMax) {
      for (const [k, e] of this.cache) if (e.expiresMs <= nowMs) this.cache.delete(k);
      if (this.cache.size >= limits.historyCacheEntriesMax) this.cache.delete(this.cache.keys().next().value as string);
    }
    this.cache.set(key, { expiresMs: nowMs + limits.historyCacheTtlMs, result });
  }
}

/** A request that passed every check before the cache and missed it: what to scan, and its key. */
interface Plan {
  planned: true;
  key: string;
  nowMs: number;
  inst: Instrument;
  tf: Timeframe;
  fromS: number;
  toS: number;
  windowS: number;
  back: number | null;
  barsMax: number;
  /** Counted by the live gateway's rate limit rather than the spec's. */
  gatewayRate: boolean;
}

function isPlan(p: Plan | Result<HistoryResult, HistoryError>): p is Plan {
  return 'planned' in p;
}

function dayOfMs(ms: number): number {
  return Math.floor(ms / 86_400_000);
}
