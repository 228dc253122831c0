// Where bars come from: imported chunks in the store override the deterministic synthetic history,
// day by day. Days are held in a bounded in-memory LRU; generated days are not written to the store
// (regenerating one is a few milliseconds and they would bloat the database by ~2 MB a day).
//
// Imports run in another process (the admin CLI), so the cache checks a per-instrument data version
// kept in the store before serving, and drops that instrument's days when it changed.
//
// Rollups (src/data/rollup.ts) of a day are served from a byte-bounded LRU, then from the rollup
// store; a miss builds them from the day's bars and keeps them in the store, tagged with the data
// version they were built from (the store refuses them if an import has changed it since).
//
// The version check is one SQLite read (a read transaction: WAL-index locks, system calls). A
// replay step asks for a rollup once per bar it looks for, so a walk runs inside `pinned`: each
// instrument's version is read once for the whole walk, which also gives the walk one view of the
// data (an import committing mid-walk is seen by the next call, never by half of this one).
//
// With a RollupBuilder, synthetic days' rollups are built off the main thread: `prepareRollups`
// before a replay advance (the days it will read), and the start-up warm-up. Without one (the admin
// CLI, tools) and for anything a prepare did not cover, the walk builds what it lacks itself, as
// before: the builder changes when rollups are built, never what they hold.

import { coreLimits } from '../core-limits.ts';
import type { Instrument } from '../domain/instrument.ts';
import { openIntervalsForUtcDay } from '../domain/trading-hours.ts';
import { DAY_S } from '../lib/time-units.ts';
import { type BarColumns, EMPTY_BARS } from './bar-columns.ts';
import { GENERATOR_VERSION, generateDay } from './generator.ts';
import { buildRollup, type RollupSource, type RollupStore, rollupWidthsFor } from './rollup.ts';
import type { BuiltRollup, RollupBuilder } from './rollup-builder.ts';

export interface ChunkReader {
  get(symbol: string, day: number): BarColumns | null;
  daysStored(symbol: string, fromDay: number, toDay: number): Set<number>;
  summary(symbol: string): { firstS: number; lastS: number; barCount: number; days: number } | null;
  /** Changes whenever an import changes the instrument's stored days. */
  dataVersion(symbol: string): number;
}

export interface SyntheticSpan {
  firstDay: number;
  /** The last UTC day of synthetic history, evaluated at call time (it grows as days complete). */
  lastDay(): number;
}

export interface DayRange {
  firstDay: number;
  lastDay: number;
}
const ROLLUP_ENTRY_BYTES = 24;

export class BarSource {
  private readonly cache = new Map<string, BarColumns>();
  private readonly versions = new Map<string, number>();
  private readonly summaries = new Map<string, { firstS: number; lastS: number } | null>();
  /** Rollups by `symbol:day:widthS`; null = that day has no exact rollup at that width (read finer). */
  private readonly rollupCache = new Map<string, BarColumns | null>();
  private rollupCacheBytes = 0;
  /** Inside `pinned`: the data versions read so far, by symbol (null outside). */
  private pinnedVersions: Map<string, number> | null = null;

  constructor(
    private readonly reader: ChunkReader,
    private readonly span: SyntheticSpan,
    private readonly cacheDaysMax = 96,
    private readonly rollups: RollupStore | null = null,
    private readonly builder: RollupBuilder | null = null,
  ) {}

  /**
   * Runs `fn` with each instrument's data version read at most once (the first time it is needed),
   * so a walk of many days and rollup lookups costs one version query, not one per lookup. Nested
   * calls share the outer scope. `fn` must not await: the pin lasts for the synchronous call only.
   */
  pinned<T>(fn: () => T): T {
    if (this.pinnedVersions !== null) return fn();
    this.pinnedVersions = new Map();
    try {
      return fn();
    } finally {
      this.pinnedVersions = null;
    }
  }

  /**
   * The day's bars aggregated to `widthS` (one of ROLLUP_WIDTHS_S, a multiple of the instrument's
   * stored resolution), bit-identical to aggregating `day(inst, day)`; null when the day has no exact
   * rollup at that width (a saturated volume) and must be read finer.
   */
  rollup(inst: Instrument, day: number, widthS: number): BarColumns | null {
    const version = this.checkVersion(inst.symbol);
    const key = `${inst.symbol}:${day}:${widthS}`;
    const hit = this.rollupCache.get(key);
    if (hit !== undefined) {
      this.rollupCache.delete(key);
      this.rollupCache.set(key, hit);
      return hit;
    }
    const bars = this.loadRollup(inst, day, widthS, version);
    this.cacheRollup(key, bars);
    return bars;
  }

  /**
   * Has the builder make, off the main thread, the rollups of the synthetic days in [fromDay, toDay]
   * that are neither in memory nor in the store (imported days are left to the walk: their bars are
   * read from the store, not generated), and keeps them in both. Resolves when they are kept (a
   * build that fails is left to the walk); null when there is nothing to build or no builder.
   */
  prepareRollups(inst: Instrument, fromDay: number, toDay: number): Promise<void> | null {
    const builder = this.builder;
    const store = this.rollups;
    const first = Math.max(fromDay, this.span.firstDay);
    const last = Math.min(toDay, this.span.lastDay());
    if (builder === null || store === null || first > last) return null;
    // Days in memory need nothing (an import since is caught by the walk's own version check).
    const notInMemory: number[] = [];
    for (let d = first; d <= last; d++) if (!this.rollupsInMemory(inst, d)) notInMemory.push(d);
    if (notInMemory.length === 0) return null;
    const version = this.checkVersion(inst.symbol);
    const widths = rollupWidthsFor(inst);
    const lo = notInMemory[0];
    const hi = notInMemory[notInMemory.length - 1];
    const kept = store.daysKept(inst.symbol, lo, hi, widths.length, GENERATOR_VERSION);
    const imported = this.reader.daysStored(inst.symbol, lo, hi);
    const missing = notInMemory.filter((d) => !kept.has(d) && !imported.has(d));
    if (missing.length === 0) return null;
    const builds = missing.map((d) =>
      builder.build(inst, d).then(
        (rollups) => this.keepBuilt(inst, d, version, rollups, true),
        () => {},
      ),
    );
    return Promise.all(builds).then(() => {});
  }

  /**
   * Whether the day's rollups at every width are in memory: no query, no version check (what the
   * memory holds is checked against the data version when it is read).
   */
  rollupsInMemory(inst: Instrument, day: number): boolean {
    for (const w of rollupWidthsFor(inst)) if (!this.rollupCache.has(`${inst.symbol}:${day}:${w}`)) return false;
    return true;
  }

  /** The stored-resolution bars of one UTC day (empty when the market was closed or no data exists). */
  day(inst: Instrument, day: number): BarColumns {
    this.checkVersion(inst.symbol);
    const key = `${inst.symbol}:${day}`;
    const hit = this.cache.get(key);
    if (hit) {
      // Refresh recency: Map keeps insertion order, so re-inserting moves the key to the end.
      this.cache.delete(key);
      this.cache.set(key, hit);
      return hit;
    }
    const bars = this.load(inst, day);
    this.cache.set(key, bars);
    if (this.cache.size > this.cacheDaysMax) this.cache.delete(this.cache.keys().next().value as string);
    return bars;
  }

  /** Whether the day is already in memory (used to prefetch ahead of a replay cursor). */
  isCached(inst: Instrument, day: number): boolean {
    return this.cache.has(`${inst.symbol}:${day}`);
  }

  /** The UTC days for which the instrument has data: the synthetic span joined with imported days. */
  range(inst: Instrument): DayRange {
    const first = this.span.firstDay;
    const last = this.span.lastDay();
    const stored = this.storedSummary(inst.symbol);
    if (!stored) return { firstDay: first, lastDay: last };
    return {
      firstDay: Math.min(first, Math.floor(stored.firstS / DAY_S)),
      lastDay: Math.max(last, Math.floor(stored.lastS / DAY_S)),
    };
  }

  /** The UTC days of synthetic history alone (imports may extend `range` beyond them). */
  syntheticRange(): DayRange {
    return { firstDay: this.span.firstDay, lastDay: this.span.lastDay() };
  }

  /** The instrument's stored-data version: changes whenever an import changes its days. */
  dataVersion(inst: Instrument): number {
    return this.reader.dataVersion(inst.symbol);
  }

  /** Days in [fromDay, toDay] that hold imported bars (one query). */
  storedDays(inst: Instrument, fromDay: number, toDay: number): Set<number> {
    this.checkVersion(inst.symbol);
    return this.reader.daysStored(inst.symbol, fromDay, toDay);
  }

  /** Whether a day without imported bars is served by the generator. */
  inSyntheticSpan(day: number): boolean {
    return day >= this.span.firstDay && day <= this.span.lastDay();
  }

  /** Number of stored-resolution slots the synthetic market has open on a day (no generation). */
  syntheticSlots(inst: Instrument, day: number): number {
    let n = 0;
    for (const [a, b] of openIntervalsForUtcDay(inst.session, day)) n += Math.floor((b - a) / inst.storedResolutionS);
    return n;
  }

  /**
   * Builds and keeps the day's rollups that the store lacks (the start-up warm-up), without putting
   * the day's stored bars in the day cache, so replay sessions keep their days in memory.
   */
  warmRollups(inst: Instrument, day: number): Promise<void> | null {
    const store = this.rollups;
    if (!store) return null;
    const version = this.checkVersion(inst.symbol);
    const synthetic = this.inSyntheticSpan(day);
    const widths = rollupWidthsFor(inst);
    if (store.daysKept(inst.symbol, day, day, widths.length, synthetic ? GENERATOR_VERSION : null).has(day)) return null;
    // A synthetic day goes to the builder, off the main thread; not into the memory cache either.
    if (this.builder && synthetic && !this.isCached(inst, day) && !this.reader.daysStored(inst.symbol, day, day).has(day)) {
      return this.builder.build(inst, day).then((rollups) => this.keepBuilt(inst, day, version, rollups, false));
    }
    const generatorVersion = synthetic ? GENERATOR_VERSION : null;
    const missing = widths.filter((w) => store.get(inst.symbol, day, w, generatorVersion) === null);
    if (missing.length === 0) return null;
    const bars = this.isCached(inst, day) ? this.day(inst, day) : this.load(inst, day);
    for (const widthS of missing) this.keepRollup(inst, day, widthS, version, bars);
    return null;
  }

  /**
   * Keeps a synthetic day's rollups built by the builder from the data at `version`: in the store
   * (refused there if an import changed the data since) and, when `inMemory`, in the rollup cache,
   * unless this source has seen a newer version meanwhile (then the walk reads afresh).
   */
  private keepBuilt(inst: Instrument, day: number, version: number, rollups: BuiltRollup[], inMemory: boolean): void {
    if (this.versions.get(inst.symbol) !== version) return;
    const source: RollupSource = { kind: 'synthetic', generatorVersion: GENERATOR_VERSION };
    for (const r of rollups) {
      if (r.bars) this.rollups?.putIfVersion(inst.symbol, day, r.widthS, source, r.bars, version);
      if (inMemory) this.cacheRollup(`${inst.symbol}:${day}:${r.widthS}`, r.bars);
    }
  }

  /** Puts a rollup in the byte-bounded LRU, dropping the least recently used beyond its bound. */
  private cacheRollup(key: string, bars: BarColumns | null): void {
    const old = this.rollupCache.get(key);
    if (old !== undefined) {
      this.rollupCache.delete(key);
      this.rollupCacheBytes -= rollupBytes(old);
    }
    this.rollupCache.set(key, bars);
    this.rollupCacheBytes += rollupBytes(bars);
    for (const [k, v] of this.rollupCache) {
      if (this.rollupCacheBytes <= coreLimits.rollupCacheBytesMax) break;
      this.rollupCache.delete(k);
      this.rollupCacheBytes -= rollupBytes(v);
    }
  }

  private loadRollup(inst: Instrument, day: number, widthS: number, version: number): BarColumns | null {
    // Outside the synthetic span only imported rows count: the span may have moved since a row was kept.
    const generatorVersion = this.inSyntheticSpan(day) ? GENERATOR_VERSION : null;
    const kept = this.rollups?.get(inst.symbol, day, widthS, generatorVersion) ?? null;
    if (kept) return kept;
    return this.keepRollup(inst, day, widthS, version, this.day(inst, day));
  }

  /** Builds the rollup from the day's bars (read at `version`) and keeps it when the store allows. */
  private keepRollup(inst: Instrument, day: number, widthS: number, version: number, bars: BarColumns): BarColumns | null {
    const synthetic = this.inSyntheticSpan(day);
    // Days without data outside the span are not kept: the span grows as days complete.
    if (bars.length === 0 && !synthetic) return EMPTY_BARS;
    const built = buildRollup(bars, widthS);
    if (built && this.rollups) {
      const imported = !synthetic || this.reader.daysStored(inst.symbol, day, day).has(day);
      const source = imported ? { kind: 'import' as const } : { kind: 'synthetic' as const, generatorVersion: GENERATOR_VERSION };
      this.rollups.putIfVersion(inst.symbol, day, widthS, source, built, version);
    }
    return built;
  }

  private load(inst: Instrument, day: number): BarColumns {
    const stored = this.reader.get(inst.symbol, day);
    if (stored) return stored;
    if (day < this.span.firstDay || day > this.span.lastDay()) return EMPTY_BARS;
    return generateDay(inst, day);
  }

  /** The imported days' span, queried once per data version (it is an aggregate over all chunks). */
  private storedSummary(symbol: string): { firstS: number; lastS: number } | null {
    this.checkVersion(symbol);
    let hit = this.summaries.get(symbol);
    if (hit === undefined) {
      hit = this.reader.summary(symbol);
      this.summaries.set(symbol, hit);
    }
    return hit;
  }

  /** Drops the instrument's cached days, rollups and summary when its data version changed; returns it. */
  private checkVersion(symbol: string): number {
    const pinned = this.pinnedVersions?.get(symbol);
    if (pinned !== undefined) return pinned;
    const v = this.reader.dataVersion(symbol);
    this.pinnedVersions?.set(symbol, v);
    if (this.versions.get(symbol) === v) return v;
    this.summaries.delete(symbol);
    if (this.versions.has(symbol)) {
      const prefix = `${symbol}:`;
      for (const key of [...this.cache.keys()]) if (key.startsWith(prefix)) this.cache.delete(key);
      for (const [key, bars] of [...this.rollupCache]) {
        if (!key.startsWith(prefix)) continue;
        this.rollupCache.delete(key);
        this.rollupCacheBytes -= rollupBytes(bars);
      }
    }
    this.versions.set(symbol, v);
    return v;
  }
}

function rollupBytes(bars: BarColumns | null): number {
  return 64 + (bars ? bars.length * ROLLUP_ENTRY_BYTES : 0);
}
