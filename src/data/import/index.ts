// The pure half of `admin data import`: one file's text in, validated bars at the instrument's stored
// resolution out. The caller (store side) reads the file, writes the chunks and replaces the days the
// bars cover; nothing here touches the disk, the clock or the database.
//
// The pipeline: format parser (text → validated records at the file's own width, UTC open times) →
// refusal of coarser widths (in the parser, as early as the width is known) → in-place aggregation of
// finer bars or ticks to inst.storedResolutionS. All-or-nothing: the first bad line fails the file.
// The result is a pure function of (text, instrument, options), so importing a file twice yields the
// same bars, which the store then writes over themselves.

import type { Instrument } from '../../domain/instrument.ts';
import { err, ok } from '../../lib/result.ts';
import { isoFromEpochS } from '../../lib/iso-time.ts';
import { aggregateInPlace } from './bar-sink.ts';
import { parseDatabento } from './databento.ts';
import { parseGenericCsv } from './generic-csv.ts';
import { parseHistData } from './histdata.ts';
import { parseNinjaTrader } from './ninjatrader.ts';
import {
  type FormatParser, IMPORT_FORMATS, importError,
  type ImportedBars, type ImportFormat, type ImportOptions, type ImportResult, type ProgressFn,
} from './types.ts';


export const FORMAT_PARSERS: Readonly<Record<ImportFormat, FormatParser>> = Object.freeze({
  csv: parseGenericCsv,
  databento: parseDatabento,
  ninjatrader: parseNinjaTrader,
  histdata: parseHistData,
});

export function parseBarFile(
  text: string, inst: Instrument, opts: ImportOptions, onProgress?: ProgressFn,
): ImportResult<ImportedBars> {
  const parser = Object.hasOwn(FORMAT_PARSERS, opts.format) ? FORMAT_PARSERS[opts.format] : undefined;
  if (parser === undefined) {
    return err(importError(0, 'bad_option',
      `Unknown format "${opts.format}"; use one of ${IMPORT_FORMATS.join(', ')}`));
  }
  const parsed = parser(text, inst, opts, onProgress);
  if (!parsed.ok) return parsed;
  const { bars, sourceResolutionS } = parsed.value;
  if (sourceResolutionS < inst.storedResolutionS) {
    const overflowAtS = aggregateInPlace(bars, inst.storedResolutionS);
    if (overflowAtS >= 0) {
      return err(importError(0, 'volume_too_large', `the ${inst.storedResolutionS}-second bar at `
        + `${isoFromEpochS(overflowAtS)} sums to more volume than 4294967295`));
    }
  }
  const n = bars.length;
  return ok({ bars, sourceResolutionS, barCount: n, firstS: bars.time[0], lastS: bars.time[n - 1] });
}

export { IMPORT_FORMATS } from './types.ts';
export type {
  FormatParser, ImportedBars, ImportError, ImportErrorKind, ImportFormat, ImportOptions, ParsedBars, ProgressFn,
} from './types.ts';
