// Generic OHLCV CSV: the layout most tools can write (pandas `to_csv`, spreadsheets, vendor exports).
//
// Layout and reading rules:
// - A header row is required (the first non-blank line, line 1 in messages). Names are matched
//   case-insensitively after trimming spaces and quotes. The delimiter is the first of `,` `;` tab
//   found in the header. Extra columns (symbol, vwap…) are allowed and ignored.
// - Exactly one time column, named one of: time, timestamp, date, datetime, ts, ts_event. A file with
//   separate date and time columns is refused: the importer does not guess date orders.
// - open, high, low, close are required; volume is optional (0 when absent).
// - Time values, per line: ISO 8601 with `Z` or an offset (UTC instant); naive ISO
//   (`2024-01-02 09:30:00` or with `T`) read as wall-clock time in --tz (default UTC); or an epoch
//   integer whose unit is told by magnitude (< 1e11 s, < 1e14 ms, < 1e17 µs, else ns; timestamp.ts).
// - Times are bar OPEN times, the convention of Databento, pandas `resample` (label='left') and most
//   vendors. The bar width is inferred from the data (bar-sink.ts).

import { err, ok } from '../../lib/result.ts';
import { BarSink, finishBars } from './bar-sink.ts';
import { FieldSplitter, LineReader } from './text-scan.ts';
import { StampParts, isAllDigits, parseEpochStamp, parseIsoStamp } from './timestamp.ts';
import { nonexistentLocalTime, UTC_ZONE, zoneOption } from './time-zone.ts';
import {
  importError, PROGRESS_EVERY_LINES,
  type FormatParser, type ImportResult,
} from './types.ts';

export const TIME_COLUMN_NAMES: readonly string[] = ['time', 'timestamp', 'date', 'datetime', 'ts', 'ts_event'];
const PRICE_NAMES = ['open', 'high', 'low', 'close', 'volume'] as const;

interface CsvColumns {
  delim: string;
  count: number;
  time: number;
  /** open, high, low, close, volume (-1 when absent). */
  cols: Int32Array;
}

export const parseGenericCsv: FormatParser = (text, inst, opts, onProgress) => {
  const zone = zoneOption(opts.tz, UTC_ZONE);
  if (!zone.ok) return zone;
  const reader = new LineReader(text);
  while (reader.next() && reader.isBlank());
  if (reader.lineNo === 0 || reader.isBlank()) return err(importError(0, 'empty_file', 'The file is empty'));
  const header = readHeader(reader);
  if (!header.ok) return header;
  const { delim, count, time: tc, cols } = header.value;

  const total = reader.lineCount;
  const f = new FieldSplitter();
  const parts = new StampParts();
  const sink = new BarSink(inst, total, false);
  while (reader.next()) {
    const line = reader.lineNo;
    if (onProgress !== undefined && (line & (PROGRESS_EVERY_LINES - 1)) === 0) onProgress(line, total);
    if (reader.isBlank()) continue;
    const n = f.split(text, reader.start, reader.end, delim);
    if (n !== count) {
      return err(importError(line, 'field_count', `expected ${count} fields as in the header, found ${n}`));
    }
    const ts = f.starts[tc];
    const te = f.ends[tc];
    let t = isAllDigits(text, ts, te) ? parseEpochStamp(text, ts, te, parts) : parseIsoStamp(text, ts, te, parts);
    if (Number.isNaN(t)) return err(importError(line, 'bad_time', `unparseable time "${f.text(text, tc)}"`));
    if (!parts.zoned) {
      t = zone.value.toUtc(t, sink.prevS + 1);
      if (Number.isNaN(t)) return err(nonexistentLocalTime(line, f.text(text, tc), zone.value.name));
    }
    const bad = sink.pushFields(line, t, parts.fracNs, text, f, cols, PRICE_NAMES, 0);
    if (bad !== null) return err(bad);
  }
  onProgress?.(total, total);
  return finishBars(sink, 0, 'open');
};

function readHeader(reader: LineReader): ImportResult<CsvColumns> {
  const lineText = reader.text.slice(reader.start, reader.end);
  const delim = [',', ';', '\t'].find((d) => lineText.includes(d)) ?? ',';
  const names = lineText.split(delim).map((s) => s.trim().replace(/^"|"$/g, '').trim().toLowerCase());
  const line = reader.lineNo;
  const timeCols = names.filter((n) => TIME_COLUMN_NAMES.includes(n));
  if (timeCols.length === 0) {
    return err(importError(line, 'bad_header',
      `no time column in the header; name it one of ${TIME_COLUMN_NAMES.join(', ')}`));
  }
  if (timeCols.length > 1) {
    return err(importError(line, 'bad_header',
      `several time columns (${timeCols.join(', ')}); give one column holding the whole timestamp`));
  }
  const missing = ['open', 'high', 'low', 'close'].filter((n) => !names.includes(n));
  if (missing.length > 0) return err(importError(line, 'bad_header', `missing column(s): ${missing.join(', ')}`));
  const cols = Int32Array.of(...['open', 'high', 'low', 'close', 'volume'].map((n) => names.indexOf(n)));
  return ok({ delim, count: names.length, time: names.indexOf(timeCols[0]), cols });
}
