// Loading real bars into the store (`admin data import`) and describing what each instrument holds
// (`admin data list`).
//
// An import is all-or-nothing per file: the file is parsed and validated whole (src/data/import),
// then every UTC day it touches is written in one transaction. A day the file covers replaces the
// synthetic day entirely; a day that already holds imported bars is merged, the new file winning on
// equal times. Each day's rollups (1 m, 1 h) are rebuilt from the day's final bars in the same
// transaction, so a reader never sees a chunk beside a rollup of other bars. A file whose SHA-256
// was imported before for the instrument changes nothing.
// While a file is imported, its instrument's lock makes the server answer History/retrieveBars with 503.
// With PostgreSQL the import writes into the shared store and every node copies the instrument
// (src/service/market-replica.ts).

import { createHash } from 'node:crypto';
import { basename } from 'node:path';
import { allocBars, type BarColumns, copyBar, sliceBars } from '../data/bar-columns.ts';
import type { BarSource } from '../data/bar-source.ts';
import { buildRollup, rollupWidthsFor } from '../data/rollup.ts';
import { parseBarFile } from '../data/import/index.ts';
import type { ImportError, ImportFormat, ProgressFn } from '../data/import/types.ts';
import { CATALOGUE, findInstrument, type Instrument } from '../domain/instrument.ts';
import type { Clock } from '../lib/clock.ts';
import { dayToDateString, isoFromEpochS } from '../lib/iso-time.ts';
import { err, ok, type Result } from '../lib/result.ts';
import { DAY_S } from '../lib/time-units.ts';
import type { BarChunkStore } from '../store/bar-chunks.ts';
import type { ImportLocks, SharedBarStore } from '../store/shared-bars.ts';
import type { MarketReplica } from './market-replica.ts';

export type ImportFileError =
  | { kind: 'instrument_not_found' }
  | { kind: 'import_running' }
  | { kind: 'file_unreadable'; message: string }
  | { kind: 'invalid_file'; error: ImportError };

export interface ImportFileResult {
  file: string;
  status: 'imported' | 'unchanged';
  bars: number;
  days: number;
  sourceResolutionS: number;
  first: string | null;
  last: string | null;
}

export interface MarketDataDeps {
  /** Where imports write: the instance's store (SQLite: the file the server reads; PostgreSQL: the shared copy). */
  shared: SharedBarStore;
  locks: ImportLocks;
  /** The local file the server reads (for `list`). */
  chunks: BarChunkStore;
  source: BarSource;
  clock: Clock;
  /** With PostgreSQL: the node's copy of the shared market data, told of each import. */
  replica: MarketReplica | null;
}

export class MarketDataService {
  constructor(private readonly d: MarketDataDeps) {}

  async importFile(
    symbol: string,
    format: ImportFormat,
    tz: string | undefined,
    path: string,
    onProgress?: ProgressFn,
  ): Promise<Result<ImportFileResult, ImportFileError>> {
    const inst = findInstrument(symbol, 'all');
    if (!inst) return err({ kind: 'instrument_not_found' });
    let text: string;
    try {
      text = await Bun.file(path).text();
    } catch (e) {
      return err({ kind: 'file_unreadable', message: (e as Error).message });
    }
    const sha256 = createHash('sha256').update(text).digest('hex');
    const file = basename(path);
    if (await this.d.shared.wasImported(inst.symbol, sha256)) {
      return ok({ file, status: 'unchanged', bars: 0, days: 0, sourceResolutionS: 0, first: null, last: null });
    }
    const held = await this.d.locks.hold(inst.symbol, async (): Promise<Result<ImportFileResult, ImportFileError>> => {
      const parsed = parseBarFile(text, inst, { format, tz }, onProgress);
      if (!parsed.ok) return err({ kind: 'invalid_file', error: parsed.error });
      const { bars, firstS, lastS, sourceResolutionS } = parsed.value;
      const days = await this.d.shared.sql.transaction(async () => {
        const n = await this.writeDays(inst, bars);
        await this.d.shared.recordImport({ symbol: inst.symbol, sha256, fileName: file, format, barCount: bars.length, firstS, lastS, nowMs: this.d.clock.nowMs() });
        await this.d.shared.bumpDataVersion(inst.symbol);
        return n;
      });
      return ok({ file, status: 'imported', bars: bars.length, days, sourceResolutionS, first: isoFromEpochS(firstS), last: isoFromEpochS(lastS) });
    });
    if (held === null) return err({ kind: 'import_running' });
    if (held.ok) await this.d.replica?.announce(inst.symbol);
    return held;
  }

  /** Writes the bars day by day (they are sorted); returns the number of days written. */
  private async writeDays(inst: Instrument, bars: BarColumns): Promise<number> {
    let days = 0;
    let from = 0;
    while (from < bars.length) {
      const day = Math.floor(bars.time[from] / DAY_S);
      let to = from;
      while (to < bars.length && Math.floor(bars.time[to] / DAY_S) === day) to++;
      const fresh = sliceBars(bars, from, to);
      // Only imported days are ever stored (generated days live in memory), so a stored day is merged.
      const existing = await this.d.shared.chunk(inst.symbol, day);
      const merged = existing ? mergeBars(existing, fresh) : fresh;
      await this.d.shared.putChunk(inst.symbol, day, merged);
      await this.writeRollups(inst, day, merged);
      days++;
      from = to;
    }
    return days;
  }

  /** Replaces the day's rollups (or drops one that cannot be exact), inside the import's transaction. */
  private async writeRollups(inst: Instrument, day: number, bars: BarColumns): Promise<void> {
    for (const widthS of rollupWidthsFor(inst)) {
      const rollup = buildRollup(bars, widthS);
      if (rollup) await this.d.shared.putRollup(inst.symbol, day, widthS, rollup);
      else await this.d.shared.dropRollup(inst.symbol, day, widthS);
    }
  }

  /** Per instrument of the whole catalogue (every profile's): stored resolution, synthetic span and imported days (with PostgreSQL, as the shared store holds them now). */
  async list() {
    await this.d.replica?.sync();
    const importing = await Promise.all(CATALOGUE.map((inst) => this.d.locks.isImporting(inst.symbol)));
    return CATALOGUE.map((inst, i) => {
      const range = this.d.source.range(inst);
      const imported = this.d.chunks.summary(inst.symbol);
      return {
        symbol: inst.symbol,
        storedResolutionS: inst.storedResolutionS,
        importing: importing[i],
        available: { firstDate: dayToDateString(range.firstDay), lastDate: dayToDateString(range.lastDay) },
        imported: imported
          ? { source: 'import', days: imported.days, bars: imported.barCount, first: isoFromEpochS(imported.firstS), last: isoFromEpochS(imported.lastS) }
          : null,
        synthetic: { source: 'synthetic (deterministic generator)', ...this.syntheticSummary(inst) },
      };
    });
  }

  /**
   * Synthetic days and bars still served, and synthetic trading days replaced by imported ones.
   * Only the synthetic span counts: imported days outside it extend `available` but replace nothing.
   */
  private syntheticSummary(inst: Instrument) {
    const range = this.d.source.syntheticRange();
    const stored = this.d.chunks.daysStored(inst.symbol, range.firstDay, range.lastDay);
    let bars = 0;
    let days = 0;
    let replacedByImport = 0;
    for (let d = range.firstDay; d <= range.lastDay; d++) {
      const n = this.d.source.syntheticSlots(inst, d);
      if (n === 0) continue;
      if (stored.has(d)) replacedByImport++;
      else {
        days++;
        bars += n;
      }
    }
    return { days, bars, replacedByImport };
  }
}

/** Union of two sorted bar sets; on equal times the second wins. */
export function mergeBars(a: BarColumns, b: BarColumns): BarColumns {
  const out = allocBars(a.length + b.length);
  let i = 0;
  let j = 0;
  let k = 0;
  while (i < a.length || j < b.length) {
    if (j >= b.length || (i < a.length && a.time[i] < b.time[j])) copyBar(a, i++, out, k++);
    else {
      if (i < a.length && a.time[i] === b.time[j]) i++;
      copyBar(b, j++, out, k++);
    }
  }
  out.length = k;
  return out;
}
