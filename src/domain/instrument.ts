// The instrument catalog: every number the engine, the data layer and the adapters need about a
// tradable symbol, written once. Money is kept in integer cents (`*Cents`), prices in integer ticks.
// Sources for the defaults: the exchanges' contract specifications and the gateway's published fees
// and retail day margins (figures in docs/decisions.md, "Accounts and contracts", "Orders, positions,
// fills"); choices the spec leaves open are recorded there too.

import { stripGatewayPrefix } from './symbol-id.ts';

/** How a symbol's front month is chosen (see contract-id.ts, which implements each rule). */
export type RollRule =
  | 'equity_index_quarterly' // H M U Z; roll 8 calendar days before the third-Friday expiry (CME convention)
  | 'gold_active_months' // G J M Q Z; roll 3 business days before first notice day
  | 'crude_monthly' // every month; roll 5 business days before last trade (3 bd before the 25th of prior month)
  | 'spot_calendar_month'; // spot forex: no expiry, the month code is the current UTC calendar month

/** When the market trades; the generator and the trade-date logic read this. */
export type SessionKind =
  | 'cme_globex' // Sun–Fri 17:00–16:00 America/Chicago, daily halt 16:00–17:00
  | 'fx_24x5'; // Sun 17:00 – Fri 17:00 America/New_York

export interface Instrument {
  /** Plain symbol, used in Replay/start `instrumentSymbol` and as `symbolId` (plain style). */
  readonly symbol: string;
  /** Exchange symbol in contract IDs, `CON.F.US.{exchangeSymbol}.{MYY}`, and in the gateway symbol ID. */
  readonly exchangeSymbol: string;
  readonly description: string;
  /** Minimum price increment as a decimal string, parsed once below; never use float math on it. */
  readonly tickSize: number;
  /** Number of decimals in tickSize: used to print prices exactly. */
  readonly priceDecimals: number;
  /** Ticks per 1.0 of price (4 for 0.25): every tick size is 1/k, so price = ticks / k exactly. */
  readonly ticksPerPoint: number;
  readonly tickValueCents: number;
  /** Commission and exchange fees per contract per side. */
  readonly feePerSideCents: number;
  /** Day-trade margin per contract. */
  readonly dayMarginCents: number;
  /** Finest stored bar width in seconds: fills are decided on bars of this width. */
  readonly storedResolutionS: number;
  readonly requiresPro: boolean;
  /** Micro contracts count 1/10 of a mini against prop-firm position limits. */
  readonly isMicro: boolean;
  readonly rollRule: RollRule;
  readonly session: SessionKind;
  /** Generator parameters: a realistic starting level (in ticks) and daily volatility (fraction). */
  readonly genStartPriceTicks: number;
  readonly genDailyVol: number;
}

/** An instrument's row in the table below: the interface's fields in its order, but the two derived from tickSize. */
type Row = [
  symbol: string, exchangeSymbol: string, description: string,
  tickSize: number, tickValueCents: number, feePerSideCents: number, dayMarginCents: number,
  storedResolutionS: number, requiresPro: boolean, isMicro: boolean, rollRule: RollRule, session: SessionKind,
  genStartPriceTicks: number, genDailyVol: number,
];

function inst([
  symbol, exchangeSymbol, description, tickSize, tickValueCents, feePerSideCents, dayMarginCents,
  storedResolutionS, requiresPro, isMicro, rollRule, session, genStartPriceTicks, genDailyVol,
]: Row): Instrument {
  const text = String(tickSize);
  const dot = text.indexOf('.');
  const priceDecimals = text.includes('e-') ? Number(text.split('e-')[1]) : dot < 0 ? 0 : text.length - dot - 1;
  const ticksPerPoint = Math.round(1 / tickSize);
  // Division by an integer is correctly rounded, so ticks / ticksPerPoint prints as the exact decimal.
  if (Math.abs(ticksPerPoint * tickSize - 1) > 1e-12) throw new Error(`${symbol}: tick size must be 1/k`);
  return Object.freeze({
    symbol, exchangeSymbol, description, tickSize, tickValueCents, feePerSideCents, dayMarginCents,
    storedResolutionS, requiresPro, isMicro, rollRule, session, genStartPriceTicks, genDailyVol, priceDecimals, ticksPerPoint,
  });
}

// Columns as in Row: symbol, exchange symbol, description; tick size, tick value, fee a side, day margin (cents);
// stored resolution (s), Pro only, micro, roll rule, session; generator start (ticks), generator daily volatility.
const TABLE: readonly Row[] = [
  ['NQ', 'ENQ', 'E-mini NASDAQ-100', 0.25, 500, 140, 100_000, 1, true, false, 'equity_index_quarterly', 'cme_globex', 16_800 * 4, 0.012],
  ['ES', 'EP', 'E-mini S&P 500', 0.25, 1250, 140, 50_000, 1, true, false, 'equity_index_quarterly', 'cme_globex', 4_800 * 4, 0.009],
  ['MNQ', 'MNQ', 'Micro E-mini NASDAQ-100', 0.25, 50, 37, 10_000, 1, true, true, 'equity_index_quarterly', 'cme_globex', 16_800 * 4, 0.012],
  ['MES', 'MES', 'Micro E-mini S&P 500', 0.25, 125, 37, 5_000, 1, true, true, 'equity_index_quarterly', 'cme_globex', 4_800 * 4, 0.009],
  ['GC', 'GCE', 'Gold (COMEX, 100 troy oz)', 0.1, 1000, 162, 200_000, 10, true, false, 'gold_active_months', 'cme_globex', 2_070 * 10, 0.009],
  ['EURUSD', 'EURUSD', 'Euro / US Dollar (spot, 1 standard lot)', 0.00001, 100, 250, 100_000, 1, false, false, 'spot_calendar_month', 'fx_24x5', 110_400, 0.005],
  ['LIGHTCMDUSD', 'LIGHTCMDUSD', 'Light Sweet Crude Oil (1,000 barrels)', 0.01, 1000, 152, 100_000, 10, false, false, 'crude_monthly', 'cme_globex', 7_170 * 1, 0.02],
];

export const INSTRUMENTS: readonly Instrument[] = Object.freeze(TABLE.map(inst));

const bySymbol = new Map<string, Instrument>();
const byExchangeSymbol = new Map<string, Instrument>();
for (const i of INSTRUMENTS) {
  bySymbol.set(i.symbol, i);
  byExchangeSymbol.set(i.exchangeSymbol, i);
}

/**
 * Case-insensitive lookup by plain symbol (`NQ`), exchange symbol (`ENQ`) or gateway symbol ID
 * (`F.US.ENQ`, also `F.US.NQ`): every symbol input accepts both symbolId styles.
 */
export function findInstrument(symbol: string): Instrument | undefined {
  const s = stripGatewayPrefix(symbol).trim().toUpperCase();
  return bySymbol.get(s) ?? byExchangeSymbol.get(s);
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

export function centsToUsd(cents: number): number {
  return Math.round(cents) / 100;
}
