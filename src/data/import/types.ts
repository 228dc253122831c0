// Shapes shared by the bar-file parsers (generic CSV, Databento, NinjaTrader, HistData) and by
// parseBarFile in index.ts, which the admin `data import` command calls. Everything here is pure:
// the caller reads the file into a string and writes the result to the store.

import { coreLimits } from '../../core-limits.ts';
import type { Instrument } from '../../domain/instrument.ts';
import type { BarColumns } from '../bar-columns.ts';
import type { Result } from '../../lib/result.ts';

export type ImportFormat = 'csv' | 'databento' | 'ninjatrader' | 'histdata';

export const IMPORT_FORMATS: readonly ImportFormat[] = Object.freeze(['csv', 'databento', 'ninjatrader', 'histdata']);

export interface ImportOptions {
  format: ImportFormat;
  /**
   * IANA zone (`America/New_York`) of times written without an offset. Applies to `csv` (naive ISO
   * times; default UTC) and `ninjatrader` (default UTC, because NinjaTrader 8 always exports in UTC).
   * `databento` (UTC) and `histdata` (EST, UTC−5 all year) have fixed zones; a tz for them is refused.
   */
  tz?: string;
}

/** Bars as read from one file, validated, at the file's own resolution; times are UTC open times. */
export interface ParsedBars {
  bars: BarColumns;
  /** Bar width of the file in seconds; 0 when the file holds ticks (each a zero-width bar o=h=l=c). */
  sourceResolutionS: number;
  /** Records read (bars or ticks): header, blank lines and comments excluded. */
  lines: number;
}

/** What parseBarFile returns: bars at the instrument's stored resolution, ready for the store. */
export interface ImportedBars {
  bars: BarColumns;
  sourceResolutionS: number;
  barCount: number;
  /** Open time of the first and last bar (epoch seconds, UTC); 0 when barCount is 0 (never: empty files fail). */
  firstS: number;
  lastS: number;
}

export type ImportErrorKind =
  | 'bad_option' // --tz unknown, or given for a format whose zone is fixed
  | 'empty_file'
  | 'bad_header' // generic/Databento header missing a column, or ambiguous
  | 'unsupported_layout' // a line shape the format parser does not know (tick schema, MetaTrader layout…)
  | 'field_count'
  | 'bad_number'
  | 'bad_time'
  | 'nonexistent_local_time' // a wall-clock time skipped by a DST change in the given tz
  | 'ohlc_inconsistent'
  | 'negative_volume'
  | 'volume_too_large'
  | 'off_tick_grid'
  | 'duplicate_time'
  | 'time_out_of_order'
  | 'misaligned_time'
  | 'mixed_instruments' // Databento file holding several symbols or schemas
  | 'single_bar' // one bar cannot tell its own width
  | 'coarser_than_stored'
  | 'width_not_divisor'; // e.g. 3 s bars for a 10 s instrument: buckets would straddle

export interface ImportError {
  /** 1-based line number (a header is line 1); 0 when the problem is the whole file or the options. */
  line: number;
  kind: ImportErrorKind;
  message: string;
}

export type ImportResult<T> = Result<T, ImportError>;

/** Called every PROGRESS_EVERY_LINES lines and once at the end; line counts include header and blanks. */
export type ProgressFn = (linesDone: number, linesTotal: number) => void;

export const PROGRESS_EVERY_LINES = coreLimits.importProgressEveryLines;

/** A format's parser: the file's text to validated bars at the file's own width (index.ts picks it by format). */
export type FormatParser = (
  text: string, inst: Instrument, opts: ImportOptions, onProgress?: ProgressFn,
) => ImportResult<ParsedBars>;

export function importError(line: number, kind: ImportErrorKind, message: string): ImportError {
  return { line, kind, message };
}
