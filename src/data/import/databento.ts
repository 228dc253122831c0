// Databento OHLCV CSV, as written by batch downloads, the `dbn` CLI and DBNStore.to_csv.
//
// Layout (Databento docs, schemas/ohlcv and to_csv): header
//   ts_event,rtype,publisher_id,instrument_id,open,high,low,close,volume[,symbol]
// e.g. `2024-01-02T14:30:00.000000000Z,32,1,42005347,16834.250000000,16836.000000000,16833.750000000,`
//      `16835.500000000,42,NQ.c.0` (one line in the file)
// - ts_event is the bar's OPEN ("the inclusive start time of the bar aggregation period"), UTC:
//   an ISO string with nanoseconds when pretty_ts is on, else integer nanoseconds since the epoch.
// - Prices are display decimals when pretty_px is on (9 decimals printed), else fixed-point integers
//   where 1 unit is 1e-9. Told apart per line by the decimal point in `open`.
// - rtype names the bar width: 32 ohlcv-1s, 33 ohlcv-1m, 34 ohlcv-1h, 35 ohlcv-1d. The width is
//   taken from it rather than inferred, and a width coarser than the stored resolution is refused
//   after the first line instead of after reading the whole file.
// - Columns are found by name, so reordered exports still read; `symbol` appears when map_symbols
//   is on. One file must hold one series: every line the same rtype and the same `symbol` (or, without
//   that column, `instrument_id`). Parent-symbol downloads (NQ.FUT) interleave every contract month
//   and spread, which is not one price series; a continuous symbol (NQ.c.0) keeps one name across rolls.

import { err, ok } from '../../lib/result.ts';
import { BarSink, finishBars, resolutionError } from './bar-sink.ts';
import { digitsAt, FieldSplitter, hasDot, LineReader, sameText } from './text-scan.ts';
import { StampParts, isAllDigits, parseEpochStamp, parseIsoStamp } from './timestamp.ts';
import { refuseZoneOption } from './time-zone.ts';
import {
  importError, PROGRESS_EVERY_LINES,
  type FormatParser, type ImportResult,
} from './types.ts';

/** Bar width in seconds by OHLCV rtype. */
export const DATABENTO_RTYPE_WIDTH_S: Readonly<Record<number, number>> = { 32: 1, 33: 60, 34: 3_600, 35: 86_400 };
const PRICE_NAMES = ['open', 'high', 'low', 'close', 'volume'] as const;
const FIXED_PRICE_SCALE = 9;

interface DatabentoColumns {
  count: number;
  time: number;
  rtype: number;
  /** `symbol` when present, else `instrument_id`, else -1. */
  identity: number;
  identityName: string;
  cols: Int32Array;
}

export const parseDatabento: FormatParser = (text, inst, opts, onProgress) => {
  const tzRefusal = refuseZoneOption(opts.tz, 'Databento times are UTC');
  if (tzRefusal !== null) return err(tzRefusal);
  const reader = new LineReader(text);
  while (reader.next() && reader.isBlank());
  if (reader.lineNo === 0 || reader.isBlank()) return err(importError(0, 'empty_file', 'The file is empty'));
  const header = readHeader(reader);
  if (!header.ok) return header;
  const { count, time: tc, rtype: rc, identity: ic, identityName, cols } = header.value;

  const total = reader.lineCount;
  const f = new FieldSplitter();
  const parts = new StampParts();
  const sink = new BarSink(inst, total, false);
  let rtype = -1;
  let widthS = 0;
  let idStart = 0;
  let idEnd = 0;
  let firstLine = 0;
  while (reader.next()) {
    const line = reader.lineNo;
    if (onProgress !== undefined && (line & (PROGRESS_EVERY_LINES - 1)) === 0) onProgress(line, total);
    if (reader.isBlank()) continue;
    const n = f.split(text, reader.start, reader.end, ',');
    if (n !== count) {
      return err(importError(line, 'field_count', `expected ${count} fields as in the header, found ${n}`));
    }
    const r = f.ends[rc] - f.starts[rc] === 2 ? digitsAt(text, f.starts[rc], 2) : -1;
    if (rtype < 0) {
      widthS = DATABENTO_RTYPE_WIDTH_S[r] ?? 0;
      if (widthS === 0) {
        return err(importError(line, 'unsupported_layout',
          `rtype "${f.text(text, rc)}" is not an OHLCV record (32 ohlcv-1s, 33 ohlcv-1m, 34 ohlcv-1h, 35 ohlcv-1d)`));
      }
      const refusal = resolutionError(inst, widthS);
      if (refusal !== null) return err(refusal);
      rtype = r;
      firstLine = line;
      if (ic >= 0) {
        idStart = f.starts[ic];
        idEnd = f.ends[ic];
      }
    } else if (r !== rtype) {
      return err(importError(line, 'mixed_instruments',
        `rtype "${f.text(text, rc)}" differs from ${rtype} on line ${firstLine}; export one schema per file`));
    }
    if (ic >= 0 && !sameText(text, f.starts[ic], f.ends[ic], idStart, idEnd)) {
      return err(importError(line, 'mixed_instruments', `${identityName} "${f.text(text, ic)}" differs from `
        + `"${text.slice(idStart, idEnd)}" on line ${firstLine}; export one instrument per file `
        + '(a continuous symbol such as NQ.c.0 keeps one name across rolls)'));
    }
    const ts = f.starts[tc];
    const te = f.ends[tc];
    // A naive ISO time is read as UTC: Databento writes nothing else.
    const t = isAllDigits(text, ts, te) ? parseEpochStamp(text, ts, te, parts) : parseIsoStamp(text, ts, te, parts);
    if (Number.isNaN(t)) return err(importError(line, 'bad_time', `unparseable ts_event "${f.text(text, tc)}"`));
    const scale = hasDot(text, f.starts[cols[0]], f.ends[cols[0]]) ? 0 : FIXED_PRICE_SCALE;
    const bad = sink.pushFields(line, t, parts.fracNs, text, f, cols, PRICE_NAMES, scale);
    if (bad !== null) return err(bad);
  }
  onProgress?.(total, total);
  return finishBars(sink, widthS, 'open');
};

function readHeader(reader: LineReader): ImportResult<DatabentoColumns> {
  const names = reader.text.slice(reader.start, reader.end).split(',').map((s) => s.trim().toLowerCase());
  const line = reader.lineNo;
  const has = (n: string) => names.includes(n);
  if (!has('open') && (has('price') || has('bid_px_00'))) {
    return err(importError(line, 'unsupported_layout',
      'this is a Databento trades/quotes schema, not bars; download an ohlcv-1s (or finer-than-stored) schema'));
  }
  const missing = ['ts_event', 'rtype', 'open', 'high', 'low', 'close', 'volume'].filter((n) => !has(n));
  if (missing.length > 0) {
    return err(importError(line, 'bad_header', `not a Databento OHLCV header: missing ${missing.join(', ')}`));
  }
  const identityName = has('symbol') ? 'symbol' : has('instrument_id') ? 'instrument_id' : '';
  return ok({
    count: names.length,
    time: names.indexOf('ts_event'),
    rtype: names.indexOf('rtype'),
    identity: identityName === '' ? -1 : names.indexOf(identityName),
    identityName,
    cols: Int32Array.of(...['open', 'high', 'low', 'close', 'volume'].map((n) => names.indexOf(n))),
  });
}
