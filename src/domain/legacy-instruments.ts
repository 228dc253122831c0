// The earlier family's instrument list (spec: "The earlier family lists CL (0.01, 10.00) and EURUSD
// (0.00005, 5.00)"), in one table over the instruments we hold.
//
// - Every legacy instrument trades on a current one (`base`): its bars, its matching engine, its
//   fees and margins. Only the price grid and the words differ.
// - CL is the oil history we hold, LIGHTCMDUSD's bars, on the same grid (0.01, 10.00 USD).
// - EURUSD keeps its bars but quotes a coarser tick: 0.00005 worth 5.00 USD, five of the base's
//   0.00001 / 1.00 ticks. Order prices must sit on the coarser grid; fills and marks stay on the
//   base grid (a market fill can be 1.08123). P&L per price unit is the same in both families:
//   5.00 / 0.00005 = 1.00 / 0.00001 = 100,000 USD per 1.0 of price.
// - `contractSize` (the spec's multiplier) is USD per 1.0 of price: tick value / tick size.

import { findInstrument, type Instrument } from './instrument.ts';
import { stripGatewayPrefix } from './symbol-id.ts';

export interface LegacyInstrument {
  /** Symbol in this family (`CL`), also the exchange symbol of its contract IDs. */
  readonly symbol: string;
  readonly description: string;
  /** The instrument whose bars, engine, fees and margins it trades on. */
  readonly base: Instrument;
  /** This family's tick, a whole number of base ticks. */
  readonly tickSize: number;
  readonly tickValueCents: number;
  /** Base ticks per tick of this family (EURUSD 5). */
  readonly baseTicksPerTick: number;
  /** USD per 1.0 of price. */
  readonly contractSize: number;
}

function legacy(symbol: string, baseSymbol: string, baseTicksPerTick = 1, description?: string): LegacyInstrument {
  const base = findInstrument(baseSymbol);
  if (!base) throw new Error(`unknown base instrument ${baseSymbol}`);
  const tickValueCents = base.tickValueCents * baseTicksPerTick;
  return Object.freeze({
    symbol,
    description: description ?? base.description,
    base,
    // Exact: every base tick is 1/k, so k / n is the decimal this family quotes.
    tickSize: baseTicksPerTick / base.ticksPerPoint,
    tickValueCents,
    baseTicksPerTick,
    contractSize: (base.tickValueCents * base.ticksPerPoint) / 100,
  });
}

export const LEGACY_INSTRUMENTS: readonly LegacyInstrument[] = Object.freeze([
  legacy('NQ', 'NQ'),
  legacy('ES', 'ES'),
  legacy('MNQ', 'MNQ'),
  legacy('MES', 'MES'),
  legacy('GC', 'GC'),
  legacy('CL', 'LIGHTCMDUSD', 1, 'Crude Oil WTI (1,000 barrels)'),
  legacy('EURUSD', 'EURUSD', 5),
]);

const bySymbol = new Map(LEGACY_INSTRUMENTS.map((l) => [l.symbol, l]));

/**
 * Case-insensitive lookup by this family's symbol (`CL`) or its gateway-shaped ID (`F.US.CL`, the root
 * of this family's contract IDs); current-family-only words (`ENQ`, `F.US.ENQ`) name nothing here.
 */
export function findLegacyInstrument(symbol: unknown): LegacyInstrument | undefined {
  return typeof symbol === 'string' ? bySymbol.get(stripGatewayPrefix(symbol).trim().toUpperCase()) : undefined;
}

/** The legacy instrument of a contract ID `CON.F.US.{symbol}.{MYY}` (the month is ignored, as in the spec). */
export function legacyInstrumentForContractId(id: unknown): LegacyInstrument | undefined {
  if (typeof id !== 'string') return undefined;
  const parts = id.trim().split('.');
  if (parts.length !== 5 || parts[0] !== 'CON' || parts[1] !== 'F' || parts[2] !== 'US') return undefined;
  return bySymbol.get(parts[3].toUpperCase());
}

/** The legacy instrument that trades on base instrument `base` (CL for LIGHTCMDUSD). */
export function legacyInstrumentOfBase(base: Instrument): LegacyInstrument | undefined {
  return LEGACY_INSTRUMENTS.find((l) => l.base === base);
}

/** Base ticks of a price on this family's grid; undefined when it is off the grid or not a price. */
export function legacyPriceToBaseTicks(l: LegacyInstrument, price: unknown): number | undefined {
  if (typeof price !== 'number' || !Number.isFinite(price)) return undefined;
  const legacyTicks = Math.round(price / l.tickSize);
  // On the grid: the price is the tick count's exact decimal (tolerance for binary fractions only,
  // relative to the price as in priceToTicks, so 1e-9 is off the grid rather than 0).
  if (Math.abs(legacyTicks * l.tickSize - price) > Math.min(l.tickSize * 1e-6, Math.abs(price) * 1e-9)) return undefined;
  return legacyTicks * l.baseTicksPerTick;
}

/** A base-tick price in this family's units (base grid: a fill may sit between this family's ticks). */
export function baseTicksToLegacyPrice(l: LegacyInstrument, ticks: number): number {
  return Number((ticks / l.base.ticksPerPoint).toFixed(l.base.priceDecimals));
}
