// NinjaTrader 8 text exports (Tools → Historical Data → Export), and the same layouts written by
// data vendors for NinjaTrader import. No header; fields separated by `;`.
//
// Layouts (NinjaTrader 8 help, "Importing"; the export writes the import formats):
//   minute bars  `yyyyMMdd HHmmss;open;high;low;close;volume`     `20240102 143100;16834.25;16836;16833.75;16835.5;4`
//   daily bars   `yyyyMMdd;open;high;low;close;volume`            (refused: coarser than any stored width)
//   ticks        `yyyyMMdd HHmmss fffffff;last;bid;ask;volume`    `20240102 143000 0040000;2073.4;2073.3;2073.4;1`
//   older ticks  `yyyyMMdd HHmmss;price;volume`                   (NinjaTrader 6/7 import format)
// What we found and assume:
// - A bar's stamp is its CLOSE (end of bar): NinjaTrader stamps bars at their end, and its importer's
//   default format is "timestamps represent end of bar time". We move it back one bar width, so
//   `20240102 143100` is the bar that opened at 14:30:00.
// - NinjaTrader 8 exports are always written in UTC ("NinjaTrader exports are always done in the UTC
//   time zone", NT8 help, Importing), so --tz defaults to UTC. Vendor files for NinjaTrader are often
//   in exchange or local time: pass --tz (e.g. America/New_York); DST rules are in time-zone.ts.
// - The exporter writes Tick, Minute and Day series only, so minute bars are the finest bars a
//   NinjaTrader file holds. Instruments stored at 1 s or 10 s refuse them; tick exports are the way to
//   bring NinjaTrader data in: each tick's `last` becomes a zero-width bar and is aggregated up. Bid and
//   ask are checked to be numbers and otherwise ignored. Ticks may share a time stamp.
// - The 7-digit fraction is in 100 ns units (.NET ticks); it orders ticks within a second and is dropped.

import { err } from '../../lib/result.ts';
import { DAY_S } from '../../lib/time-units.ts';
import { BarSink, finishBars, resolutionError } from './bar-sink.ts';
import { FieldSplitter, LineReader, parseDecimal } from './text-scan.ts';
import { StampParts, parseCompactStamp } from './timestamp.ts';
import { nonexistentLocalTime, UTC_ZONE, zoneOption } from './time-zone.ts';
import {
  importError, PROGRESS_EVERY_LINES,
  type FormatParser,
} from './types.ts';

const BAR_FIELDS = 6;
const TICK_FIELDS = 5;
const OLD_TICK_FIELDS = 3;
const BAR_NAMES = ['open', 'high', 'low', 'close', 'volume'] as const;
const TICK_NAMES = ['last', 'last', 'last', 'last', 'volume'] as const;
const OLD_TICK_NAMES = ['price', 'price', 'price', 'price', 'volume'] as const;

const LAYOUT_HINT = 'expected NinjaTrader lines "yyyyMMdd HHmmss;open;high;low;close;volume" '
  + 'or ticks "yyyyMMdd HHmmss fffffff;last;bid;ask;volume"';

export const parseNinjaTrader: FormatParser = (text, inst, opts, onProgress) => {
  const zoneResult = zoneOption(opts.tz, UTC_ZONE);
  if (!zoneResult.ok) return zoneResult;
  const zone = zoneResult.value;
  const reader = new LineReader(text);
  const total = reader.lineCount;
  const f = new FieldSplitter();
  const parts = new StampParts();
  let sink: BarSink | null = null;
  let fields = 0;
  let cols = Int32Array.of(1, 2, 3, 4, 5);
  let names: readonly string[] = BAR_NAMES;
  while (reader.next()) {
    const line = reader.lineNo;
    if (onProgress !== undefined && (line & (PROGRESS_EVERY_LINES - 1)) === 0) onProgress(line, total);
    if (reader.isBlank()) continue;
    const n = f.split(text, reader.start, reader.end, ';');
    if (sink === null) {
      // The first line decides the layout; every later line must have the same field count.
      if (n === TICK_FIELDS) [cols, names] = [Int32Array.of(1, 1, 1, 1, 4), TICK_NAMES];
      else if (n === OLD_TICK_FIELDS) [cols, names] = [Int32Array.of(1, 1, 1, 1, 2), OLD_TICK_NAMES];
      else if (n !== BAR_FIELDS) {
        return err(importError(line, 'unsupported_layout', `${LAYOUT_HINT}; found ${n} fields`));
      }
      if (n === BAR_FIELDS && f.ends[0] - f.starts[0] === 8) {
        const daily = resolutionError(inst, DAY_S);
        return err(daily ?? importError(line, 'unsupported_layout', 'daily bars are not supported'));
      }
      fields = n;
      sink = new BarSink(inst, total, n !== BAR_FIELDS);
    }
    if (n !== fields) {
      return err(importError(line, 'field_count', `expected ${fields} fields as on the first line, found ${n}`));
    }
    const local = parseCompactStamp(text, f.starts[0], f.ends[0], parts);
    if (Number.isNaN(local) || parts.dateOnly) {
      return err(importError(line, 'bad_time', `unparseable time "${f.text(text, 0)}"; expected yyyyMMdd HHmmss`));
    }
    // Ticks may repeat the previous instant; bars must move forward (see time-zone.ts on DST).
    const t = zone.toUtc(local, sink.isTicks ? sink.prevS : sink.prevS + 1);
    if (Number.isNaN(t)) return err(nonexistentLocalTime(line, f.text(text, 0), zone.name));
    if (fields === TICK_FIELDS) {
      const k = Number.isNaN(parseDecimal(text, f.starts[2], f.ends[2])) ? 2
        : Number.isNaN(parseDecimal(text, f.starts[3], f.ends[3])) ? 3 : 0;
      if (k > 0) {
        return err(importError(line, 'bad_number', `${k === 2 ? 'bid' : 'ask'} "${f.text(text, k)}" is not a number`));
      }
    }
    const bad = sink.pushFields(line, t, parts.fracNs, text, f, cols, names, 0);
    if (bad !== null) return err(bad);
  }
  onProgress?.(total, total);
  if (sink === null) return err(importError(0, 'empty_file', 'The file is empty'));
  return finishBars(sink, 0, sink.isTicks ? 'open' : 'close');
};
