// The instrument catalogue's rows (src/domain/instruments.json), checked once when the module loads:
// a row with a missing or mistyped field, a tick size that is not 1/k, a gateway symbol ID that is not
// `F.US.{exchangeSymbol}`, a duplicate name or a generator path that names no row stops the process
// with an error naming the row and the field. The JSON is the table; this file only reads it.
// (A hand check rather than a TypeBox schema: the runner child bundles the engine, and this file with
// it, for a browser-like target, where the table's few shapes need no library.)

import type { ApiProfile } from './api-profile.ts';
import ROWS from './instruments.json';

export const ROLL_RULES = [
  'equity_index_quarterly', 'gold_active_months', 'crude_monthly', 'spot_calendar_month',
  'treasury_quarterly', 'fx_futures_quarterly', 'natural_gas_monthly',
] as const;
/** How a symbol's front month is chosen (contract-id.ts states and implements each rule). */
export type RollRule = (typeof ROLL_RULES)[number];

export const SESSION_KINDS = ['cme_globex', 'fx_24x5'] as const;
/** When the market trades (trading-hours.ts): Globex Sun–Fri 17:00–16:00 CT; spot forex Sun 17:00 – Fri 17:00 New York. */
export type SessionKind = (typeof SESSION_KINDS)[number];

/** The generator's intraday shape (src/data/generator/profiles.ts). */
export const GENERATOR_PROFILES = ['equity_index', 'metal', 'energy', 'fx'] as const;
export type GeneratorProfileKind = (typeof GENERATOR_PROFILES)[number];

const PROFILES: readonly ApiProfile[] = ['spec', 'live'];

/** The synthetic market of one instrument (src/data/generator/). */
export interface GeneratorRow {
  /** Latent price in ticks on 2024-01-01, the generator's origin. */
  readonly startPriceTicks: number;
  /** Daily volatility as a fraction of the price. */
  readonly dailyVol: number;
  /** Price band in price units: the walk reverts to its geometric middle and reflects at its edges. */
  readonly band: readonly [number, number];
  /** Contracts (ticks for spot forex) in an average full trade day. */
  readonly dailyVolume: number;
  /** The row whose price path this one follows (a micro its mini): same tick size, itself a leader. */
  readonly pathSymbol?: string;
  readonly profile: GeneratorProfileKind;
}

/** One row of instruments.json, as checked. */
export interface InstrumentRow {
  readonly symbol: string;
  readonly exchangeSymbol: string;
  readonly gatewaySymbolId: string;
  readonly description: string;
  readonly tickSize: number;
  readonly tickValueCents: number;
  readonly feePerSideCents: number;
  readonly dayMarginCents: number;
  readonly storedResolutionS: number;
  readonly requiresPro: boolean;
  readonly isMicro: boolean;
  readonly rollRule: RollRule;
  readonly session: SessionKind;
  /** The API profiles whose Contract/* and Replay/start list the instrument. */
  readonly profiles: readonly ApiProfile[];
  readonly generator: GeneratorRow;
}

type Obj = Record<string, unknown>;

function fail(where: string, field: string, what: string): never {
  throw new Error(`src/domain/instruments.json ${where}: ${field} ${what}`);
}

function text(o: Obj, where: string, field: string, pattern = /^.+$/): string {
  const v = o[field];
  if (typeof v !== 'string' || !pattern.test(v)) fail(where, field, `must be a string matching ${pattern}`);
  return v;
}

function num(o: Obj, where: string, field: string, min = 0, integer = true): number {
  const v = o[field];
  if (typeof v !== 'number' || !Number.isFinite(v) || v <= min || (integer && !Number.isInteger(v))) {
    fail(where, field, `must be a${integer ? 'n integer' : ' number'} above ${min}`);
  }
  return v;
}

function bool(o: Obj, where: string, field: string): boolean {
  const v = o[field];
  if (typeof v !== 'boolean') fail(where, field, 'must be true or false');
  return v;
}

function oneOf<T extends string>(o: Obj, where: string, field: string, choices: readonly T[]): T {
  const v = o[field];
  if (!choices.includes(v as T)) fail(where, field, `must be one of ${choices.join(', ')}`);
  return v as T;
}

function object(v: unknown, where: string, field: string): Obj {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) fail(where, field, 'must be an object');
  return v as Obj;
}

function checkGenerator(o: Obj, where: string): GeneratorRow {
  const band = o.band;
  if (!Array.isArray(band) || band.length !== 2 || !band.every((x) => typeof x === 'number' && x > 0) || band[0] >= band[1]) {
    fail(where, 'band', 'must be [low, high] prices, 0 < low < high');
  }
  const pathSymbol = o.pathSymbol === undefined ? undefined : text(o, where, 'pathSymbol');
  return {
    startPriceTicks: num(o, where, 'startPriceTicks'),
    dailyVol: num(o, where, 'dailyVol', 0, false),
    band: [band[0], band[1]],
    dailyVolume: num(o, where, 'dailyVolume'),
    ...(pathSymbol === undefined ? {} : { pathSymbol }),
    profile: oneOf(o, where, 'profile', GENERATOR_PROFILES),
  };
}

/** One row checked field by field (the table-wide checks are in checkTable). */
export function checkRow(v: unknown, index: number): InstrumentRow {
  const o = object(v, `row ${index}`, 'the row');
  const symbol = text(o, `row ${index}`, 'symbol', /^[A-Z0-9]+$/);
  const where = `row ${index} (${symbol})`;
  const exchangeSymbol = text(o, where, 'exchangeSymbol', /^[A-Z0-9]+$/);
  if (o.gatewaySymbolId !== `F.US.${exchangeSymbol}`) fail(where, 'gatewaySymbolId', `must be F.US.${exchangeSymbol}`);
  const profiles = o.profiles;
  if (!Array.isArray(profiles) || profiles.length === 0 || !profiles.every((p) => PROFILES.includes(p))) {
    fail(where, 'profiles', `must list one or more of ${PROFILES.join(', ')}`);
  }
  const tickSize = num(o, where, 'tickSize', 0, false);
  if (Math.abs(Math.round(1 / tickSize) * tickSize - 1) > 1e-12) fail(where, 'tickSize', 'must be 1/k for a whole k');
  return {
    symbol, exchangeSymbol, gatewaySymbolId: `F.US.${exchangeSymbol}`,
    description: text(o, where, 'description'),
    tickSize,
    tickValueCents: num(o, where, 'tickValueCents', 0, false),
    feePerSideCents: num(o, where, 'feePerSideCents'),
    dayMarginCents: num(o, where, 'dayMarginCents'),
    storedResolutionS: num(o, where, 'storedResolutionS'),
    requiresPro: bool(o, where, 'requiresPro'),
    isMicro: bool(o, where, 'isMicro'),
    rollRule: oneOf(o, where, 'rollRule', ROLL_RULES),
    session: oneOf(o, where, 'session', SESSION_KINDS),
    profiles: profiles as ApiProfile[],
    generator: checkGenerator(object(o.generator, where, 'generator'), `${where} generator`),
  };
}

/** The rows of a table, each checked, then names unique and generator paths resolved. */
export function checkTable(rows: unknown): InstrumentRow[] {
  if (!Array.isArray(rows) || rows.length === 0) throw new Error('src/domain/instruments.json: must be a non-empty array of rows');
  const out = rows.map(checkRow);
  const names = new Set<string>();
  for (const r of out) {
    for (const n of new Set([r.symbol, r.exchangeSymbol])) {
      if (names.has(n)) fail(`(${r.symbol})`, 'symbol', `${n} names two rows`);
      names.add(n);
    }
  }
  for (const r of out) {
    const lead = r.generator.pathSymbol;
    if (lead === undefined) continue;
    const owner = out.find((x) => x.symbol === lead);
    if (!owner || owner.generator.pathSymbol !== undefined || owner.tickSize !== r.tickSize) {
      fail(`(${r.symbol})`, 'generator.pathSymbol', 'must name a row without a pathSymbol and with the same tick size');
    }
  }
  return out;
}

export const INSTRUMENT_ROWS: readonly InstrumentRow[] = checkTable(ROWS);
