// A journal session's trades as CSV (RFC 4180): a header row, CRLF after every record, a field in
// double quotes when it holds a comma, a double quote, CR or LF (its quotes doubled). Times ISO 8601
// UTC; prices with the decimals of the instrument's tick (an average of several fills that falls
// between ticks keeps its exact decimals); money in USD with two decimals; a missing value (no initial
// stop, no R) is an empty field; tags joined with `;` (which a tag may not hold). `symbol` names each
// trade's instrument (a session over several instruments trades more than one).

import type { Instrument } from '../../domain/instrument.ts';
import { JOURNAL_CSV_COLUMNS } from './schemas.ts';

type CsvTrade = Record<Exclude<(typeof JOURNAL_CSV_COLUMNS)[number], 'symbol'>, unknown>;

/** One field, quoted when RFC 4180 requires it. */
export function csvField(v: string): string {
  return /[",\r\n]/.test(v) ? `"${v.replaceAll('"', '""')}"` : v;
}

/** A price with the tick's decimals, or its exact decimals when it lies between ticks. */
export function csvPrice(inst: Instrument, price: number): string {
  const fixed = price.toFixed(inst.priceDecimals);
  return Number(fixed) === price ? fixed : String(price);
}

function cell(inst: Instrument, column: (typeof JOURNAL_CSV_COLUMNS)[number], v: unknown): string {
  if (v === null || v === undefined) return '';
  switch (column) {
    case 'entryPrice':
    case 'exitPrice':
    case 'initialStop':
      return csvPrice(inst, v as number);
    case 'pnl':
    case 'fees':
    case 'mae':
    case 'mfe':
      return (v as number).toFixed(2);
    case 'tags':
      return csvField((v as string[]).join(';'));
    default:
      return csvField(String(v));
  }
}

/** Each trade with its own instrument (a session over several instruments trades more than one). */
export function journalCsv(trades: readonly { inst: Instrument; row: CsvTrade }[]): string {
  let out = `${JOURNAL_CSV_COLUMNS.join(',')}\r\n`;
  for (const { inst, row } of trades) out += `${JOURNAL_CSV_COLUMNS.map((c) => cell(inst, c, c === 'symbol' ? inst.symbol : row[c])).join(',')}\r\n`;
  return out;
}
