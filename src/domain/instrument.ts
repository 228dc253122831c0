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

function inst(i: Omit<Instrument, 'priceDecimals' | 'ticksPerPoint'>): Instrument {
  const text = String(i.tickSize);
  const dot = text.indexOf('.');
  const priceDecimals = text.includes('e-') ? Number(text.split('e-')[1]) : dot < 0 ? 0 : text.length - dot - 1;
  const ticksPerPoint = Math.round(1 / i.tickSize);
  // Division by an integer is correctly rounded, so ticks / ticksPerPoint prints as the exact decimal.
  if (Math.abs(ticksPerPoint * i.tickSize - 1) > 1e-12) throw new Error(`${i.symbol}: tick size must be 1/k`);
  return Object.freeze({ ...i, priceDecimals, ticksPerPoint });
}

export const INSTRUMENTS: readonly Instrument[] = Object.freeze([
  inst({
    symbol: 'NQ', exchangeSymbol: 'ENQ', description: 'E-mini NASDAQ-100',
    tickSize: 0.25, tickValueCents: 500, feePerSideCents: 140, dayMarginCents: 100_000,
    storedResolutionS: 1, requiresPro: true, isMicro: false,
    rollRule: 'equity_index_quarterly', session: 'cme_globex',
    genStartPriceTicks: 16_800 * 4, genDailyVol: 0.012,
  }),
  inst({
    symbol: 'ES', exchangeSymbol: 'EP', description: 'E-mini S&P 500',
    tickSize: 0.25, tickValueCents: 1250, feePerSideCents: 140, dayMarginCents: 50_000,
    storedResolutionS: 1, requiresPro: true, isMicro: false,
    rollRule: 'equity_index_quarterly', session: 'cme_globex',
    genStartPriceTicks: 4_800 * 4, genDailyVol: 0.009,
  }),
  inst({
    symbol: 'MNQ', exchangeSymbol: 'MNQ', description: 'Micro E-mini NASDAQ-100',
    tickSize: 0.25, tickValueCents: 50, feePerSideCents: 37, dayMarginCents: 10_000,
    storedResolutionS: 1, requiresPro: true, isMicro: true,
    rollRule: 'equity_index_quarterly', session: 'cme_globex',
    genStartPriceTicks: 16_800 * 4, genDailyVol: 0.012,
  }),
  inst({
    symbol: 'MES', exchangeSymbol: 'MES', description: 'Micro E-mini S&P 500',
    tickSize: 0.25, tickValueCents: 125, feePerSideCents: 37, dayMarginCents: 5_000,
    storedResolutionS: 1, requiresPro: true, isMicro: true,
    rollRule: 'equity_index_quarterly', session: 'cme_globex',
    genStartPriceTicks: 4_800 * 4, genDailyVol: 0.009,
  }),
  inst({
    symbol: 'GC', exchangeSymbol: 'GCE', description: 'Gold (COMEX, 100 troy oz)',
    tickSize: 0.1, tickValueCents: 1000, feePerSideCents: 162, dayMarginCents: 200_000,
    storedResolutionS: 10, requiresPro: true, isMicro: false,
    rollRule: 'gold_active_months', session: 'cme_globex',
    genStartPriceTicks: 2_070 * 10, genDailyVol: 0.009,
  }),
  inst({
    symbol: 'EURUSD', exchangeSymbol: 'EURUSD', description: 'Euro / US Dollar (spot, 1 standard lot)',
    tickSize: 0.00001, tickValueCents: 100, feePerSideCents: 250, dayMarginCents: 100_000,
    storedResolutionS: 1, requiresPro: false, isMicro: false,
    rollRule: 'spot_calendar_month', session: 'fx_24x5',
    genStartPriceTicks: 110_400, genDailyVol: 0.005,
  }),
  inst({
    symbol: 'LIGHTCMDUSD', exchangeSymbol: 'LIGHTCMDUSD', description: 'Light Sweet Crude Oil (1,000 barrels)',
    tickSize: 0.01, tickValueCents: 1000, feePerSideCents: 152, dayMarginCents: 100_000,
    storedResolutionS: 10, requiresPro: false, isMicro: false,
    rollRule: 'crude_monthly', session: 'cme_globex',
    genStartPriceTicks: 7_170 * 1, genDailyVol: 0.02,
  }),
]);

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
