// History/retrieveBars: bars of any valid timeframe aggregated from the stored resolution, with
// the spec's scan windows, per-request cap, rate limit, daily budgets and 5-minute cache.
//
// Order of checks (each failure changes nothing and bills nothing):
//   contract → unit/unitNumber/timeframe → times → limit → import in progress (503) → cache hit
//   (served, not billed, not rate-limited) → rate limit → processing budget → scan → bar budget.
// Range: bars whose bucket starts at or after `startTime` (a start inside a bucket moves to the next
// bucket, so paging with "just after the last bar" never repeats a bar) and built from stored bars
// strictly before `endTime`; the last bar may be partial. The scan stops at startTime + window.

import { limits } from '../config.ts';
import { instrumentForContractId } from '../domain/contract-id.ts';
import type { Instrument } from '../domain/instrument.ts';
import { bucketStart, historyScanWindowS, nextBucketStart, type Timeframe, timeframeFromUnit } from '../domain/timeframe.ts';
import { Aggregator } from '../data/aggregate.ts';
import { allocBars, type BarColumns, copyBars, lowerBound } from '../data/bar-columns.ts';
import type { BarSource } from '../data/bar-source.ts';
import type { Clock } from '../lib/clock.ts';
import { parseIsoMs, secondsToUtcMidnight } from '../lib/iso-time.ts';
import { err, ok, type Result } from '../lib/result.ts';
import type { UsageStore } from '../store/usage.ts';
import { SlidingWindowLimiter } from './rate-limit.ts';

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

export interface HistoryRequest {
  contractId: unknown;
  unit: unknown;
  unitNumber: unknown;
  startTime: unknown;
  endTime: unknown;
  limit: unknown;
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
  isImporting(symbol: string): boolean;
}

/** Source bars one account may have aggregated per UTC day (ours: the spec names the limit only). */
export const HISTORY_SOURCE_BARS_PER_DAY_MAX = 500_000_000;

const DAY_S = 86_400;

interface CacheEntry {
  expiresMs: number;
  result: HistoryResult;
}

export class HistoryService {
  private readonly limiter = new SlidingWindowLimiter(limits.historyRequestsPerWindowMax, limits.historyWindowMs);
  private readonly cache = new Map<string, CacheEntry>();

  constructor(private readonly d: HistoryDeps) {}

  retrieve(userId: number, req: HistoryRequest): Result<HistoryResult, HistoryError> {
    const inst = instrumentForContractId(req.contractId);
    if (!inst) return err({ kind: 'contract_not_found' });
    const tf = timeframeFromUnit(req.unit, req.unitNumber, {
      customEnabled: this.d.customTimeframes,
      storedResolutionS: inst.storedResolutionS,
      scanLimits: limits,
    });
    if (!tf.ok) return tf;
    const range = this.timeRange(inst, req.startTime, req.endTime);
    if (!range) return err({ kind: 'invalid_time_range' });
    const limit = req.limit ?? limits.historyBarsPerRequestMax;
    if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1) return err({ kind: 'limit_invalid' });
    if (this.d.isImporting(inst.symbol)) return err({ kind: 'importing', retryAfterS: limits.importRetryAfterS });

    const nowMs = this.d.clock.nowMs();
    // The data version is part of the key: after an import the same request must see the new bars.
    const key = `${userId}|${inst.symbol}|${this.d.source.dataVersion(inst)}|${tf.value.text}|${range.fromS}|${range.toS}|${limit}`;
    const cached = this.cache.get(key);
    if (cached && cached.expiresMs > nowMs) return ok(cached.result);

    const gate = this.limiter.take(String(userId), nowMs);
    if (!gate.allowed) return err({ kind: 'rate_limited', retryAfterS: gate.retryAfterS });
    const today = Math.floor(nowMs / 86_400_000);
    const untilMidnightS = secondsToUtcMidnight(nowMs);
    const used = this.d.usage.get(userId, today);
    if (used.sourceBars >= HISTORY_SOURCE_BARS_PER_DAY_MAX) {
      return err({ kind: 'daily_processing_exhausted', retryAfterS: untilMidnightS });
    }
    if (used.bars >= limits.historyBarsPerDayMax) return err({ kind: 'daily_bars_exhausted', retryAfterS: untilMidnightS });

    const windowS = historyScanWindowS(req.unit, limits);
    const barsMax = Math.min(limit, limits.historyBarsPerRequestMax);
    const scanned = this.scan(inst, tf.value, range.fromS, Math.min(range.toS, range.fromS + windowS), barsMax);
    if (used.bars + scanned.bars.length > limits.historyBarsPerDayMax) {
      // Refused, but the scan was work done: it counts against the processing budget.
      this.d.usage.add(userId, today, 0, scanned.sourceBars);
      return err({ kind: 'daily_bars_exhausted', retryAfterS: untilMidnightS });
    }
    this.d.usage.add(userId, today, scanned.bars.length, scanned.sourceBars);
    const result = { instrument: inst, timeframe: tf.value, bars: scanned.bars };
    this.remember(key, result, nowMs);
    return ok(result);
  }

  /** [fromS, toS) in epoch seconds; defaults are the instrument's available data. */
  private timeRange(inst: Instrument, startTime: unknown, endTime: unknown): { fromS: number; toS: number } | null {
    const avail = this.d.source.range(inst);
    const fromMs = startTime == null ? avail.firstDay * 86_400_000 : parseIsoMs(startTime);
    const toMs = endTime == null ? (avail.lastDay + 1) * 86_400_000 : parseIsoMs(endTime);
    if (fromMs === undefined || toMs === undefined || toMs < fromMs) return null;
    return { fromS: Math.ceil(fromMs / 1000), toS: Math.ceil(toMs / 1000) };
  }

  private scan(inst: Instrument, tf: Timeframe, startS: number, endS: number, barsMax: number) {
    const first = bucketStart(tf, startS);
    const fromS = first === startS ? startS : nextBucketStart(tf, first);
    const avail = this.d.source.range(inst);
    const toS = Math.min(endS, (avail.lastDay + 1) * DAY_S);
    const out = allocBars(barsMax);
    const agg = new Aggregator(tf, out, barsMax);
    let sourceBars = 0;
    for (let day = Math.max(Math.floor(fromS / DAY_S), avail.firstDay); day * DAY_S < toS && !agg.full; day++) {
      const bars = this.d.source.day(inst, day);
      if (bars.length === 0) continue;
      const a = lowerBound(bars.time, bars.length, fromS);
      const b = lowerBound(bars.time, bars.length, toS);
      if (a < b) sourceBars += agg.push(bars, a, b) - a;
    }
    agg.flush();
    // The cache keeps results for minutes: hold exactly the bars, not the request's full capacity.
    return { bars: out.length === barsMax ? out : copyBars(out), sourceBars };
  }

  private remember(key: string, result: HistoryResult, nowMs: number): void {
    if (this.cache.size >= limits.historyCacheEntriesMax) {
      for (const [k, e] of this.cache) if (e.expiresMs <= nowMs) this.cache.delete(k);
      if (this.cache.size >= limits.historyCacheEntriesMax) this.cache.delete(this.cache.keys().next().value as string);
    }
    this.cache.set(key, { expiresMs: nowMs + limits.historyCacheTtlMs, result });
  }
}
