// HistData.com "Generic ASCII" forex files (DAT_ASCII_EURUSD_M1_202401.csv, DAT_ASCII_EURUSD_T_202401.csv).
//
// Layouts (histdata.com/?p=21, "data files' formats"), no header:
//   M1 bars  `yyyyMMdd HHmmss;open;high;low;close;volume`   `20240102 170000;1.104250;1.104300;1.104200;1.104250;0`
//   ticks    `yyyyMMdd HHmmssNNN,bid,ask,volume`             `20240102 170000123,1.104250,1.104270,0`
// What we found and assume:
// - Times are Eastern Standard Time WITHOUT daylight saving, all year: UTC = stamp + 5 h, in July as in
//   January. --tz is refused because the zone is part of the format.
// - M1 prices are BID quotes; volume is always 0. The bar width is 1 minute by definition (seconds are
//   always 00), not inferred. A bar's stamp is its OPEN minute, as in the MetaTrader history HistData
//   serves the same bars in.
// - Ticks carry bid and ask; the bid becomes a zero-width bar so that tick-built bars match HistData's
//   own bid bars. The ask is checked to be a number and otherwise ignored. NNN is milliseconds.
// - EURUSD is stored at 1 s, so M1 files are refused for it (coarser); tick files are the way in.
// - The MetaTrader layout (DAT_MT_…, `2024.01.02,17:00,…`) and Excel/NinjaTrader variants are not read.

import type { Instrument } from '../../domain/instrument.ts';
import { err } from '../../lib/result.ts';
import { BarSink, finishBars, resolutionError } from './bar-sink.ts';
import { FieldSplitter, LineReader, parseDecimal } from './text-scan.ts';
import { StampParts, parseCompactStamp } from './timestamp.ts';
import { EST_NO_DST_ZONE, refuseZoneOption } from './time-zone.ts';
import {
  importError, PROGRESS_EVERY_LINES,
  type FormatParser, type ImportError,
} from './types.ts';

export const HISTDATA_M1_WIDTH_S = 60;
const BAR_COLS = Int32Array.of(1, 2, 3, 4, 5);
const TICK_COLS = Int32Array.of(1, 1, 1, 1, 3);
const BAR_NAMES = ['open', 'high', 'low', 'close', 'volume'] as const;
const TICK_NAMES = ['bid', 'bid', 'bid', 'bid', 'volume'] as const;

type Layout = 'm1' | 'ticks';

export const parseHistData: FormatParser = (text, inst, opts, onProgress) => {
  const tzRefusal = refuseZoneOption(opts.tz, 'HistData times are EST (UTC-5) all year');
  if (tzRefusal !== null) return err(tzRefusal);
  const reader = new LineReader(text);
  const total = reader.lineCount;
  const f = new FieldSplitter();
  const parts = new StampParts();
  let sink: BarSink | null = null;
  let layout: Layout = 'm1';
  while (reader.next()) {
    const line = reader.lineNo;
    if (onProgress !== undefined && (line & (PROGRESS_EVERY_LINES - 1)) === 0) onProgress(line, total);
    if (reader.isBlank()) continue;
    if (sink === null) {
      const detected = detectLayout(reader, f, inst);
      if (typeof detected !== 'string') return err(detected);
      layout = detected;
      sink = new BarSink(inst, total, layout === 'ticks');
    }
    const n = f.split(text, reader.start, reader.end, layout === 'm1' ? ';' : ',');
    const expected = layout === 'm1' ? 6 : 4;
    if (n !== expected) return err(importError(line, 'field_count', `expected ${expected} fields, found ${n}`));
    const local = parseCompactStamp(text, f.starts[0], f.ends[0], parts);
    if (Number.isNaN(local) || parts.dateOnly) {
      return err(importError(line, 'bad_time', `unparseable time "${f.text(text, 0)}"`));
    }
    const t = EST_NO_DST_ZONE.toUtc(local, 0);
    if (layout === 'ticks' && Number.isNaN(parseDecimal(text, f.starts[2], f.ends[2]))) {
      return err(importError(line, 'bad_number', `ask "${f.text(text, 2)}" is not a number`));
    }
    const bad = layout === 'm1'
      ? sink.pushFields(line, t, parts.fracNs, text, f, BAR_COLS, BAR_NAMES, 0)
      : sink.pushFields(line, t, parts.fracNs, text, f, TICK_COLS, TICK_NAMES, 0);
    if (bad !== null) return err(bad);
  }
  onProgress?.(total, total);
  if (sink === null) return err(importError(0, 'empty_file', 'The file is empty'));
  return finishBars(sink, layout === 'm1' ? HISTDATA_M1_WIDTH_S : 0, 'open');
};

/** Tells M1 bars from ticks by the first line; refuses M1 at once when the instrument cannot take it. */
function detectLayout(reader: LineReader, f: FieldSplitter, inst: Instrument): Layout | ImportError {
  const { text, start, end, lineNo } = reader;
  if (f.split(text, start, end, ';') === 6) {
    return resolutionError(inst, HISTDATA_M1_WIDTH_S) ?? 'm1';
  }
  if (f.split(text, start, end, ',') === 4 && f.ends[0] - f.starts[0] === 18) return 'ticks';
  if (text.charCodeAt(start + 4) === 46 && f.count >= 7) {
    return importError(lineNo, 'unsupported_layout',
      'this is HistData\'s MetaTrader layout (DAT_MT_...); download the Generic ASCII files (DAT_ASCII_...)');
  }
  return importError(lineNo, 'unsupported_layout', 'expected HistData Generic ASCII lines '
    + '"yyyyMMdd HHmmss;open;high;low;close;volume" (M1) or "yyyyMMdd HHmmssNNN,bid,ask,volume" (ticks)');
}
