// Daily anchors: the latent price of each instrument at each UTC midnight, which pins every
// generated day at both ends (see intraday.ts).
//
// The model: a daily random walk started at `genStartPriceTicks` on 2024-01-01 (and walked backwards
// from there for earlier days): a return of genDailyVol × sqrt(h × w) × z per UTC day, where w is the
// share of a full trade day's variance that falls in that UTC day's open hours (0 on Saturday) and h
// is a GARCH(1,1)-like variance multiplier (volatility clustering from day to day). A weak pull
// towards the geometric middle of a per-symbol price band, and reflection at its edges, keep years
// of data at realistic levels.
//
// Anchors cost one draw per day and are cached per symbol (computed lazily, always in day order from
// the origin, so the order of requests never changes output); generating day N never generates the
// bars of other days. Micro contracts (MNQ, MES, …) follow their mini's price path, and CL and MCL
// LIGHTCMDUSD's (one WTI market); only volume differs.
// Models are cached by symbol: the catalog is fixed for the life of the process.

import { coreLimits } from '../../core-limits.ts';
import { assert } from '../../lib/assert.ts';
import { findInstrument, type Instrument, type SessionKind } from '../../domain/instrument.ts';
import { openIntervalsForUtcDay, sessionOffsetS } from '../../domain/trading-hours.ts';
import { DAY_S } from '../../lib/time-units.ts';
import { GENERATOR_ORIGIN_DAY, MINUTES_PER_DAY } from './calendar.ts';
import { hashSymbol, Sfc32, STREAM_ANCHOR_BACKWARD, STREAM_ANCHOR_FORWARD } from './prng.ts';
import { profileFor, SYMBOL_PARAMS, type Profile } from './profiles.ts';

const GARCH_ALPHA = 0.1;
const GARCH_BETA = 0.87;
const GARCH_OMEGA = 1 - GARCH_ALPHA - GARCH_BETA; // long-run mean of h is 1
const MEAN_REVERSION_PER_DAY = 0.003; // half-life about 230 trade days

/** One direction of the anchor walk from the origin, grown on demand. */
interface AnchorSide {
  price: Float64Array; // latent price in ticks at UTC midnight; index = |day − origin|
  h: Float64Array; // variance multiplier of the UTC day that starts at that midnight
  count: number;
  readonly rng: Sfc32;
  readonly direction: 1 | -1;
}

/** A price path: its band, its profile and its cached anchors, shared by a mini and its micro. */
export interface PricePath {
  readonly symbol: string;
  readonly symbolHash: number;
  readonly session: SessionKind;
  readonly dailyVol: number;
  readonly profile: Profile;
  readonly centerTicks: number;
  readonly lowTicks: number;
  readonly highTicks: number;
  readonly forward: AnchorSide;
  readonly backward: AnchorSide;
}

/** What generating a symbol's day needs: the path it follows and its own volume. */
export interface SymbolModel {
  readonly path: PricePath;
  readonly dailyVolume: number;
}

const paths = new Map<string, PricePath>();
const models = new Map<string, SymbolModel>();

function newAnchorSide(symbolHash: number, startTicks: number, direction: 1 | -1): AnchorSide {
  const price = new Float64Array(1_024);
  const h = new Float64Array(1_024);
  price[0] = startTicks;
  h[0] = 1;
  const stream = direction === 1 ? STREAM_ANCHOR_FORWARD : STREAM_ANCHOR_BACKWARD;
  return { price, h, count: 1, rng: new Sfc32(symbolHash, GENERATOR_ORIGIN_DAY, stream), direction };
}

function pathFor(inst: Instrument): PricePath {
  const cached = paths.get(inst.symbol);
  if (cached !== undefined) return cached;
  const params = SYMBOL_PARAMS[inst.symbol];
  const start = inst.genStartPriceTicks;
  const lowTicks = params ? Math.round(params.band[0] / inst.tickSize) : Math.round(start * 0.7);
  const highTicks = params ? Math.round(params.band[1] / inst.tickSize) : Math.round(start * 1.4);
  assert(start > lowTicks && start < highTicks, `generator start price of ${inst.symbol} outside its band`);
  const profile = profileFor(inst);
  const symbolHash = hashSymbol(inst.symbol);
  const path: PricePath = {
    symbol: inst.symbol, symbolHash, session: inst.session, dailyVol: inst.genDailyVol, profile,
    centerTicks: Math.sqrt(lowTicks * highTicks), lowTicks, highTicks,
    forward: newAnchorSide(symbolHash, start, 1),
    backward: newAnchorSide(symbolHash, start, -1),
  };
  paths.set(inst.symbol, path);
  return path;
}

/** The model of an instrument, built on first use; a micro gets its mini's path. */
export function modelFor(inst: Instrument): SymbolModel {
  const cached = models.get(inst.symbol);
  if (cached !== undefined) return cached;
  const params = SYMBOL_PARAMS[inst.symbol];
  const owner = params?.pathSymbol !== undefined ? findInstrument(params.pathSymbol, 'all') ?? inst : inst;
  const model = { path: pathFor(owner), dailyVolume: params?.dailyVolume ?? 100_000 };
  models.set(inst.symbol, model);
  return model;
}

/** Share of a full trade day's variance that falls in the open hours of a UTC day. */
function dayVarianceShare(path: PricePath, utcDay: number): number {
  let share = 0;
  for (const [startS, endS] of openIntervalsForUtcDay(path.session, utcDay)) {
    const localS = startS + sessionOffsetS(path.session, startS);
    const firstMinute = Math.floor((localS - Math.floor(localS / DAY_S) * DAY_S) / 60);
    const minutes = (endS - startS) / 60;
    for (let i = 0; i < minutes; i++) share += path.profile.varPerSecond[(firstMinute + i) % MINUTES_PER_DAY] * 60;
  }
  return share;
}

function growSide(side: AnchorSide): void {
  const price = new Float64Array(side.price.length * 2);
  const h = new Float64Array(side.h.length * 2);
  price.set(side.price);
  h.set(side.h);
  side.price = price;
  side.h = h;
}

/** Walks one side of the anchor path out to index `index` (days away from the origin). */
function extendSide(path: PricePath, side: AnchorSide, index: number): void {
  while (side.count <= index) {
    if (side.count === side.price.length) growSide(side);
    const k = side.count;
    // Forward, anchor k closes UTC day origin+k−1; backward, anchor k opens UTC day origin−k.
    const elapsedDay = side.direction === 1 ? GENERATOR_ORIGIN_DAY + k - 1 : GENERATOR_ORIGIN_DAY - k;
    const w = dayVarianceShare(path, elapsedDay);
    const z = side.rng.normal();
    const hPrev = side.h[k - 1];
    const hNext = w > 0 ? Math.min(GARCH_OMEGA + (GARCH_ALPHA * z * z + GARCH_BETA) * hPrev, coreLimits.generatorGarchVarianceMax) : hPrev;
    // The day's own multiplier: known before the day forward, drawn with it backward.
    const hDay = side.direction === 1 ? hPrev : hNext;
    const p = side.price[k - 1];
    const ret = path.dailyVol * Math.sqrt(hDay * w) * z - MEAN_REVERSION_PER_DAY * w * (p / path.centerTicks - 1);
    let next = p * (1 + ret);
    if (next > path.highTicks) next = 2 * path.highTicks - next;
    if (next < path.lowTicks) next = 2 * path.lowTicks - next;
    side.price[k] = next;
    side.h[k] = hNext;
    side.count = k + 1;
  }
}

function anchorIndex(path: PricePath, utcDay: number): [AnchorSide, number] {
  const side = utcDay >= GENERATOR_ORIGIN_DAY ? path.forward : path.backward;
  const index = Math.abs(utcDay - GENERATOR_ORIGIN_DAY);
  extendSide(path, side, index);
  return [side, index];
}

/** Latent price (ticks, fractional) at 00:00 UTC of `utcDay`; the first bar of the day opens at it rounded. */
export function anchorTicks(path: PricePath, utcDay: number): number {
  const [side, index] = anchorIndex(path, utcDay);
  return side.price[index];
}

/** The GARCH variance multiplier of UTC day `utcDay`. */
export function anchorVariance(path: PricePath, utcDay: number): number {
  const [side, index] = anchorIndex(path, utcDay);
  return side.h[index];
}

/** The generator's latent price (ticks, fractional) at 00:00 UTC of `utcDay`: cheap, for level checks. */
export function generatorAnchorTicks(inst: Instrument, utcDay: number): number {
  assert(utcDay >= coreLimits.generatorDayMin && utcDay <= coreLimits.generatorDayMax, `generator day ${utcDay} out of range`);
  return anchorTicks(modelFor(inst).path, utcDay);
}
