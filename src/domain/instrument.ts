// The instrument catalog: every number the engine, the data layer and the adapters need about a
// tradable symbol, written once in src/domain/instruments.json (one row an instrument, checked at load
// by instrument-table.ts). Money is kept in integer cents (`*Cents`), prices in integer ticks.
// Sources for the figures: the exchanges' contract specifications and the gateway's published fees
// and retail day margins (figures in docs/decisions.md, "Accounts and contracts", "Orders, positions,
// fills"); choices the spec leaves open are recorded there too.

import type { ApiProfile } from './api-profile.ts';
import { INSTRUMENT_ROWS, type InstrumentRow } from './instrument-table.ts';
import { stripGatewayPrefix } from './symbol-id.ts';

export type { GeneratorRow, RollRule, SessionKind } from './instrument-table.ts';

export interface Instrument extends InstrumentRow {
  /** Number of decimals in tickSize: used to print prices exactly. */
  readonly priceDecimals: number;
  /** Ticks per 1.0 of price (4 for 0.25): every tick size is 1/k, so price = ticks / k exactly. */
  readonly ticksPerPoint: number;
  /** Generator parameters: a realistic starting level (in ticks) and daily volatility (fraction). */
  readonly genStartPriceTicks: number;
  readonly genDailyVol: number;
}

// The row's fields (instruments.json, checked by instrument-table.ts), in brief: plain symbol (Replay/start's
// `instrumentSymbol`, the plain `symbolId`); exchange symbol (`CON.F.US.{exchangeSymbol}.{MYY}`); tick size
// (1/k, never used in float math: prices are ticks); tick value, fee per contract per side and day-trade
// margin per contract, in cents; the finest stored bar width (fills are decided on it); Pro plan only;
// micro (counts 1/10 of a mini against prop-firm position limits); roll rule (contract-id.ts); session
// (trading-hours.ts); the profiles that list it; the generator's parameters.
function inst(row: InstrumentRow): Instrument {
  const text = String(row.tickSize);
  const dot = text.indexOf('.');
  const priceDecimals = text.includes('e-') ? Number(text.split('e-')[1]) : dot < 0 ? 0 : text.length - dot - 1;
  // Division by an integer is correctly rounded, so ticks / ticksPerPoint prints as the exact decimal.
  const ticksPerPoint = Math.round(1 / row.tickSize);
  return Object.freeze({
    ...row, priceDecimals, ticksPerPoint, genStartPriceTicks: row.generator.startPriceTicks, genDailyVol: row.generator.dailyVol,
  });
}

/** Every instrument of the catalogue, in the table's order. */
export const CATALOGUE: readonly Instrument[] = Object.freeze(INSTRUMENT_ROWS.map(inst));

/** The instruments a profile lists (Contract/available, Replay/start, History), in the table's order. */
export function instrumentsOf(profile: ApiProfile): readonly Instrument[] {
  return profile === 'live' ? LIVE : INSTRUMENTS;
}

/** The spec profile's catalogue (the product spec's seven), which the console and the playground list. */
export const INSTRUMENTS: readonly Instrument[] = Object.freeze(CATALOGUE.filter((i) => i.profiles.includes('spec')));
const LIVE: readonly Instrument[] = Object.freeze(CATALOGUE.filter((i) => i.profiles.includes('live')));

function indexOf(list: readonly Instrument[]): Map<string, Instrument> {
  const m = new Map<string, Instrument>();
  for (const i of list) m.set(i.symbol, i);
  for (const i of list) if (!m.has(i.exchangeSymbol)) m.set(i.exchangeSymbol, i);
  return m;
}

const byName = { spec: indexOf(INSTRUMENTS), live: indexOf(LIVE), all: indexOf(CATALOGUE) };

/**
 * Case-insensitive lookup by plain symbol (`NQ`), exchange symbol (`ENQ`) or gateway symbol ID
 * (`F.US.ENQ`, also `F.US.NQ`) among the instruments `profile` lists (the spec's by default): every
 * symbol input accepts both symbolId styles. `'all'` is the whole catalogue, for names already
 * accepted once (a stored session's symbol, an import).
 */
export function findInstrument(symbol: string, profile: ApiProfile | 'all' = 'spec'): Instrument | undefined {
  const s = stripGatewayPrefix(symbol).trim().toUpperCase();
  return byName[profile].get(s);
}

// ---- Price conversions. The only place floats meet ticks. ----

/** Converts a client price to ticks; undefined when the price is not on the tick grid. */
export function priceToTicks(inst: Instrument, price: number): number | undefined {
  if (!Number.isFinite(price)) return undefined;
  const ticks = Math.round(price * inst.ticksPerPoint);
  // Accept float noise from clients (4500.2500000001) but not a price between two ticks. The noise of
  // a double is relative to the price, so the tolerance is too: a millionth of a tick, and never more
  // than a billionth of the price, so 1e-9 is off the grid rather than rounded to 0.
  const tolerance = Math.min(inst.tickSize * 1e-6, Math.abs(price) * 1e-9);
  if (Math.abs(ticks * inst.tickSize - price) > tolerance) return undefined;
  return ticks;
}

/** Nearest tick, for clients' prices that may be off-grid where rounding is the documented rule. */
export function priceToNearestTicks(inst: Instrument, price: number): number {
  return Math.round(price * inst.ticksPerPoint);
}

/** Exact decimal price for the wire: 2070.1, never 2070.1000000000004 (see ticksPerPoint). */
export function ticksToPrice(inst: Instrument, ticks: number): number {
  return ticks / inst.ticksPerPoint;
}

/**
 * Money of a price move of `ticks` at `tickValueCents` a tick, in whole cents: exact for every tick
 * value in whole cents; ZN's $15.625 tick makes an odd tick count half a cent, rounded half away
 * from zero (as a loss and a gain of the same size must cost and pay the same).
 */
export function ticksToCents(ticks: number, tickValueCents: number): number {
  const x = ticks * tickValueCents;
  return x < 0 ? -Math.round(-x) : Math.round(x);
}

export function centsToUsd(cents: number): number {
  return Math.round(cents) / 100;
}
