// The deterministic synthetic market: bars at an instrument's stored resolution for any UTC day,
// the same on every machine, so the server is useful on its first start with no data of the user's.
//
// The model:
// - Daily anchors. The latent price at each UTC midnight comes from a daily random walk started at
//   `genStartPriceTicks` on 2024-01-01 (and walked backwards from there for earlier days): a return
//   of genDailyVol × sqrt(h × w) × z per UTC day, where w is the share of a full trade day's variance
//   that falls in that UTC day's open hours (0 on Saturday) and h is a GARCH(1,1)-like variance
//   multiplier (volatility clustering from day to day). A weak pull towards the geometric middle of
//   a per-symbol price band, and reflection at its edges, keep years of data at realistic levels.
//   Anchors cost one draw per day and are cached per symbol (computed lazily, always in day order
//   from the origin, so the order of requests never changes output); generating day N never
//   generates the bars of other days.
// - Intraday. Within a UTC day the latent price is a Gaussian walk over the open seconds whose
//   variance follows a U-shaped profile in exchange local time (cash open, lunch, close; London/New
//   York overlap for EURUSD) times an intraday clustering factor updated every minute, with
//   occasional jumps (random, and more likely at scheduled release times such as 07:30 CT) that
//   excite the clustering factor. The walk is pinned to the next day's anchor by a Brownian bridge
//   (the end error is removed in proportion to elapsed variance), so the last close of a UTC day is
//   the next UTC day's first open, exactly. After the daily halt and after the weekend the market
//   reopens with a small gap drawn like a few seconds (halt) or minutes (weekend) of trading.
// - Bars. Open = previous latent close, close = latent close, both rounded to the tick grid; high and
//   low are drawn from the exact distributions of the maximum and of the minimum of a Brownian
//   bridge between them (one exponential draw each, independently), rounded and clamped so that
//   low ≤ min(open, close) ≤ max(open, close) ≤ high. Volume is proportional to
//   the slot's variance (the mixture-of-distributions view: more trades, more movement), scaled by
//   the size of the move, stochastically rounded to an integer; a bar whose price moved has
//   volume ≥ 1. Every open slot gets a bar (flat zero-volume bars are kept in quiet seconds).
// - Micro contracts (MNQ, MES) follow their mini's price path; only volume differs. Models are
//   cached by symbol: the catalog is fixed for the life of the process.
// - Holidays are not modelled: every weekday trades its full session (see trading-hours.ts).
//
// Determinism across machines: seeds come from (symbol, UTC day) through integer hashing and sfc32,
// and generation uses only IEEE-754 operations that are exactly rounded in every JavaScript engine
// (+ − × ÷, Math.sqrt, Math.floor). The normal and exponential tables are built at load time with a
// logarithm written here in those operations; Math.log/exp/pow are never used.
//
// Speed: two passes over the day's slots (walk, then bars) with the per-minute work hoisted out of
// the per-slot loops, an inlined generator and table look-ups: no allocation and no transcendental
// call per bar.

import { assert } from '../lib/assert.ts';
import { findInstrument, type Instrument, type SessionKind } from '../domain/instrument.ts';
import { daysFromCivil } from '../domain/timeframe.ts';
import {
  lastCompletedTradingDay,
  openIntervalsForUtcDay,
  sessionOffsetS,
  tradeDateEndS,
  weekdayOf,
} from '../domain/trading-hours.ts';
import { allocBars, type BarColumns } from './bar-columns.ts';

/** Bump whenever generated output changes, so cached generated days are rebuilt. */
export const GENERATOR_VERSION = 1;
/** 2024-01-01: the anchor path starts here at each instrument's `genStartPriceTicks`. */
export const GENERATOR_ORIGIN_DAY = daysFromCivil(2024, 1, 1);
/** Days outside [2007-01-01, 2099-12-31] are refused: the DST rules hold from 2007. */
export const GENERATOR_DAY_MIN = daysFromCivil(2007, 1, 1);
export const GENERATOR_DAY_MAX = daysFromCivil(2099, 12, 31);

const DAY_S = 86_400;
const MINUTES_PER_DAY = 1_440;

// Daily anchor walk.
const GARCH_ALPHA = 0.1;
const GARCH_BETA = 0.87;
const GARCH_OMEGA = 1 - GARCH_ALPHA - GARCH_BETA; // long-run mean of h is 1
const GARCH_H_MAX = 6;
const MEAN_REVERSION_PER_DAY = 0.003; // half-life about 230 trade days

// Intraday clustering factor `clus`: AR(1) per minute around 1; variance scales with clus².
const CLUS_PHI = 0.95;
const CLUS_SD = 0.3;
const CLUS_ETA = CLUS_SD * Math.sqrt(1 - CLUS_PHI * CLUS_PHI);
const CLUS_NORM = 1 / (1 + CLUS_SD * CLUS_SD); // E[clus²] = 1 + sd²
const CLUS_MIN = 0.3;
const CLUS_JUMP_EXCITE = 0.5;

// Jumps: random ones spread like variance, plus scheduled releases (see NEWS_TIMES). Jumps and the
// clustering they excite add about a sixth to a day's variance (measured over 2024), so the
// diffusion gets the rest and a day's realized variance matches its anchor's on average.
const DIFFUSION_SHARE = 0.85;
const RANDOM_JUMPS_PER_DAY = 2;
const HALT_GAP_S = 20; // reopen gap after the daily halt, as this many seconds of trading
const WEEKEND_GAP_S = 120;

// ---- Deterministic math for the tables (IEEE + − × ÷ and sqrt only). ----

const LN2 = 0.6931471805599453;
const SQRT2 = 1.4142135623730951;

/** Natural logarithm by exact halving and the atanh series: bit-identical on every engine. */
function detLog(x: number): number {
  assert(x > 0 && x < Infinity, 'detLog needs a positive finite number');
  let e = 0;
  while (x >= 2) { x *= 0.5; e++; }
  while (x < 1) { x *= 2; e--; }
  if (x > SQRT2) { x *= 0.5; e++; }
  const s = (x - 1) / (x + 1);
  const s2 = s * s;
  let term = s;
  let sum = 0;
  for (let k = 1; k < 40; k += 2) { sum += term / k; term *= s2; }
  return 2 * sum + e * LN2;
}

// Acklam's coefficients for the inverse normal CDF.
const ACKLAM_A = [-39.69683028665376, 220.9460984245205, -275.928510446969, 138.357751867269, -30.66479806614716,
  2.506628277459239];
const ACKLAM_B = [-54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572];
const ACKLAM_C = [-0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734,
  4.374664141464968, 2.938163982698783];
const ACKLAM_D = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416];

/** Inverse standard normal CDF (Acklam's rational approximation, relative error < 1.2e-9). */
function inverseNormal(p: number): number {
  const a = ACKLAM_A, b = ACKLAM_B, c = ACKLAM_C, d = ACKLAM_D;
  if (p < 0.02425) {
    const q = Math.sqrt(-2 * detLog(p));
    const num = ((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5];
    return num / ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  }
  if (p > 1 - 0.02425) return -inverseNormal(1 - p);
  const q = p - 0.5;
  const r = q * q;
  const num = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q;
  return num / (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
}

const TABLE_SIZE = 4_096; // indexed by the top 12 bits of a draw
const FRACTION_SCALE = 1 / 1_048_576; // the low 20 bits of a draw, as a fraction

/** Normal draw = base[top 12 bits] + slope[top 12 bits] × (low 20 bits): a piecewise-linear inverse CDF. */
const normalBase = new Float64Array(TABLE_SIZE);
const normalSlope = new Float64Array(TABLE_SIZE);
/** Exponential(1) draw = expTable[12 bits], the quantile at the middle of each cell. */
const expTable = new Float64Array(TABLE_SIZE);

function buildTables(): void {
  const q = new Float64Array(TABLE_SIZE + 1);
  q[0] = inverseNormal(1 / (16 * TABLE_SIZE));
  for (let j = 1; j < TABLE_SIZE / 2; j++) q[j] = inverseNormal(j / TABLE_SIZE);
  for (let j = TABLE_SIZE / 2; j <= TABLE_SIZE; j++) q[j] = -q[TABLE_SIZE - j]; // exact symmetry: mean 0
  let variance = 0;
  for (let j = 0; j < TABLE_SIZE; j++) variance += (q[j] * q[j] + q[j] * q[j + 1] + q[j + 1] * q[j + 1]) / 3;
  const scale = 1 / Math.sqrt(variance / TABLE_SIZE); // unit variance despite the clipped tails
  for (let j = 0; j < TABLE_SIZE; j++) {
    normalBase[j] = q[j] * scale;
    normalSlope[j] = (q[j + 1] - q[j]) * scale * FRACTION_SCALE;
    expTable[j] = -detLog(1 - (j + 0.5) / TABLE_SIZE);
  }
}
buildTables();

// ---- Random numbers: sfc32 (32-bit state words, integer math only). ----

function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85eb_ca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2_ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

function hashSymbol(symbol: string): number {
  let h = 0x811c_9dc5; // FNV-1a
  for (let i = 0; i < symbol.length; i++) h = Math.imul(h ^ symbol.charCodeAt(i), 0x0100_0193);
  return h >>> 0;
}

const STREAM_ANCHOR_FORWARD = 1;
const STREAM_ANCHOR_BACKWARD = 2;
const STREAM_MINUTE = 3;
const STREAM_WALK = 4;
const STREAM_BARS = 5;

class Sfc32 {
  a: number;
  b: number;
  c: number;
  d: number;

  constructor(symbolHash: number, day: number, stream: number) {
    this.a = fmix32(symbolHash ^ 0x9e37_79b9);
    this.b = fmix32((day + 0x632b_e5ab) ^ Math.imul(stream, 0x27d4_eb2f));
    this.c = fmix32(symbolHash + Math.imul(stream, 0x1656_67b1) + day);
    this.d = 1;
    for (let i = 0; i < 12; i++) this.nextU32();
  }

  nextU32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  uniform(): number {
    return this.nextU32() * 2.3283064365386963e-10;
  }

  normal(): number {
    const r = this.nextU32();
    const i = r >>> 20;
    return normalBase[i] + normalSlope[i] * (r & 0xf_ffff);
  }
}

// ---- Per-symbol parameters and intraday profiles. ----

interface SymbolParams {
  /** Price band in price units: the walk reverts to its geometric middle and reflects at its edges. */
  readonly band: readonly [number, number];
  /** Contracts (ticks for spot forex) in an average full trade day. */
  readonly dailyVolume: number;
  /** The symbol whose price path this one shares (micros follow their mini). */
  readonly pathSymbol?: string;
}

const SYMBOL_PARAMS: Readonly<Record<string, SymbolParams>> = {
  NQ: { band: [14_000, 25_000], dailyVolume: 600_000 },
  MNQ: { band: [14_000, 25_000], dailyVolume: 1_100_000, pathSymbol: 'NQ' },
  ES: { band: [4_000, 7_000], dailyVolume: 1_500_000 },
  MES: { band: [4_000, 7_000], dailyVolume: 1_300_000, pathSymbol: 'ES' },
  GC: { band: [1_800, 3_500], dailyVolume: 220_000 },
  EURUSD: { band: [1.0, 1.2], dailyVolume: 250_000 },
  LIGHTCMDUSD: { band: [55, 95], dailyVolume: 350_000 },
};

type ProfileKind = 'equity_index' | 'metal' | 'energy' | 'fx';

/** Volatility multipliers at local times (hhmm), linear in between: the shape of a trading day. */
const VOL_KNOTS: Readonly<Record<ProfileKind, ReadonlyArray<readonly [number, number]>>> = {
  // Chicago time: quiet Asia, Europe from 02:00, data at 07:30, cash open 08:30, lunch, cash close 15:00.
  equity_index: [[0, 0.35], [200, 0.45], [230, 0.55], [500, 0.45], [729, 0.6], [730, 1.3], [745, 0.9], [829, 0.9],
    [830, 2.6], [845, 2.0], [900, 1.7], [930, 1.4], [1030, 1.1], [1100, 0.85], [1200, 0.7], [1300, 0.8], [1400, 1.0],
    [1430, 1.2], [1455, 1.6], [1500, 1.4], [1515, 0.7], [1600, 0.5], [1700, 0.45], [1800, 0.4], [2000, 0.35],
    [2400, 0.35]],
  // Chicago time: London from 02:00, COMEX floor hours 07:20–12:30, Shanghai in the evening.
  metal: [[0, 0.45], [200, 0.6], [300, 0.75], [600, 0.6], [715, 0.8], [720, 1.4], [730, 1.8], [800, 1.4], [830, 1.6],
    [900, 1.3], [1000, 1.0], [1100, 0.8], [1230, 0.7], [1330, 0.5], [1700, 0.4], [1900, 0.5], [2400, 0.45]],
  // Chicago time: NYMEX floor hours 08:00–13:30 with the settlement at 13:28–13:30.
  energy: [[0, 0.4], [200, 0.55], [730, 0.8], [800, 1.8], [830, 1.5], [930, 1.6], [1030, 1.1], [1200, 0.8], [1320, 1.0],
    [1330, 1.3], [1335, 0.7], [1600, 0.4], [1700, 0.35], [2400, 0.4]],
  // New York time: Tokyo in the evening, London open 03:00, overlap 08:00–12:00, fix at 11:00.
  fx: [[0, 0.6], [200, 0.7], [300, 1.3], [400, 1.2], [700, 1.0], [800, 1.3], [830, 1.8], [930, 1.6], [1000, 1.6],
    [1100, 1.4], [1200, 0.9], [1400, 0.7], [1600, 0.5], [1700, 0.35], [1800, 0.5], [1900, 0.65], [2400, 0.6]],
};

/** Scheduled releases [local hhmm, probability of a jump on a trading day]. */
const NEWS_TIMES: Readonly<Record<ProfileKind, ReadonlyArray<readonly [number, number]>>> = {
  equity_index: [[730, 0.45], [900, 0.25], [1300, 0.06]],
  metal: [[730, 0.45], [900, 0.2], [1300, 0.06]],
  energy: [[730, 0.3], [930, 0.2], [1300, 0.05]],
  fx: [[400, 0.2], [830, 0.45], [1000, 0.25], [1400, 0.06]],
};

interface Profile {
  /** Share of a full trade day's variance per second, by local minute (0 while closed). */
  readonly varPerSecond: Float64Array;
  /** Probability of a random jump in the minute, × 2^32, for an integer compare. */
  readonly jumpThreshold: Float64Array;
  /** Probability of a scheduled-release jump at the minuteState. */
  readonly newsProbability: Float64Array;
}

function profileKindOf(inst: Instrument): ProfileKind {
  if (inst.session === 'fx_24x5') return 'fx';
  if (inst.rollRule === 'gold_active_months') return 'metal';
  if (inst.rollRule === 'crude_monthly') return 'energy';
  return 'equity_index';
}

const hhmmToMinute = (hhmm: number): number => Math.floor(hhmm / 100) * 60 + (hhmm % 100);

function buildProfile(kind: ProfileKind, session: SessionKind): Profile {
  const knots = VOL_KNOTS[kind];
  const raw = new Float64Array(MINUTES_PER_DAY);
  let total = 0;
  let k = 0;
  for (let m = 0; m < MINUTES_PER_DAY; m++) {
    while (hhmmToMinute(knots[k + 1][0]) <= m) k++;
    const m0 = hhmmToMinute(knots[k][0]);
    const m1 = hhmmToMinute(knots[k + 1][0]);
    const mult = knots[k][1] + ((knots[k + 1][1] - knots[k][1]) * (m - m0)) / (m1 - m0);
    const halted = session === 'cme_globex' && m >= 16 * 60 && m < 17 * 60;
    raw[m] = halted ? 0 : mult * mult;
    total += raw[m] * 60;
  }
  const varPerSecond = new Float64Array(MINUTES_PER_DAY);
  const jumpThreshold = new Float64Array(MINUTES_PER_DAY);
  const newsProbability = new Float64Array(MINUTES_PER_DAY);
  for (let m = 0; m < MINUTES_PER_DAY; m++) {
    varPerSecond[m] = raw[m] / total;
    jumpThreshold[m] = RANDOM_JUMPS_PER_DAY * varPerSecond[m] * 60 * 4_294_967_296;
  }
  for (const [hhmm, p] of NEWS_TIMES[kind]) newsProbability[hhmmToMinute(hhmm)] = p;
  return { varPerSecond, jumpThreshold, newsProbability };
}

// ---- Daily anchors, cached per price path. ----

interface AnchorSide {
  price: Float64Array; // latent price in ticks at UTC midnight; index = |day − origin|
  h: Float64Array; // variance multiplier of the UTC day that starts at that midnight
  count: number;
  readonly rng: Sfc32;
  readonly direction: 1 | -1;
}

interface PricePath {
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

interface SymbolModel {
  readonly path: PricePath;
  readonly dailyVolume: number;
}

const profiles = new Map<string, Profile>();
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
  const kind = profileKindOf(inst);
  const profileKey = `${kind}/${inst.session}`;
  let profile = profiles.get(profileKey);
  if (profile === undefined) {
    profile = buildProfile(kind, inst.session);
    profiles.set(profileKey, profile);
  }
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

function modelFor(inst: Instrument): SymbolModel {
  const cached = models.get(inst.symbol);
  if (cached !== undefined) return cached;
  const params = SYMBOL_PARAMS[inst.symbol];
  const owner = params?.pathSymbol !== undefined ? findInstrument(params.pathSymbol) ?? inst : inst;
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
    const hNext = w > 0 ? Math.min(GARCH_OMEGA + (GARCH_ALPHA * z * z + GARCH_BETA) * hPrev, GARCH_H_MAX) : hPrev;
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
function anchorTicks(path: PricePath, utcDay: number): number {
  const [side, index] = anchorIndex(path, utcDay);
  return side.price[index];
}

/** The GARCH variance multiplier of UTC day `utcDay`. */
function anchorVariance(path: PricePath, utcDay: number): number {
  const [side, index] = anchorIndex(path, utcDay);
  return side.h[index];
}

// ---- One day: plan, walk (pass 1), bars (pass 2). ----

const INTERVALS_MAX = 4;
const ivStartS = new Float64Array(INTERVALS_MAX);
const ivEndS = new Float64Array(INTERVALS_MAX);
const ivOffsetS = new Float64Array(INTERVALS_MAX);
const ivGapS = new Float64Array(INTERVALS_MAX); // 0 when the interval continues from the previous day
const ivFirstSlot = new Int32Array(INTERVALS_MAX);
const ivOpenLat = new Float64Array(INTERVALS_MAX);
const ivOpenCv = new Float64Array(INTERVALS_MAX);
let walkLat = new Float64Array(0); // latent close of each slot, before the bridge correction
let walkCv = new Float64Array(0); // cumulative variance up to each slot's close

/** Fills the interval scratch for a UTC day; returns the number of slots (bars). */
function planDay(session: SessionKind, utcDay: number, resolutionS: number): [number, number] {
  const intervals = openIntervalsForUtcDay(session, utcDay);
  assert(intervals.length <= INTERVALS_MAX, 'too many open intervals in one UTC day');
  let slots = 0;
  for (let j = 0; j < intervals.length; j++) {
    const [startS, endS] = intervals[j];
    const offsetS = sessionOffsetS(session, startS);
    ivStartS[j] = startS;
    ivEndS[j] = endS;
    ivOffsetS[j] = offsetS;
    const reopens = startS !== utcDay * DAY_S;
    const sunday = weekdayOf(Math.floor((startS + offsetS) / DAY_S)) === 0;
    ivGapS[j] = !reopens ? 0 : sunday ? WEEKEND_GAP_S : HALT_GAP_S;
    slots += (endS - startS) / resolutionS;
  }
  if (walkLat.length < slots) {
    walkLat = new Float64Array(Math.max(slots, DAY_S));
    walkCv = new Float64Array(Math.max(slots, DAY_S));
  }
  return [intervals.length, slots];
}

/** Per-minute state of the walk, reused (no allocation per minute). */
const minuteState = { clus: 1, varSlot: 0, sd: 0, jumpAt: -1, jumpTicks: 0 };

/** Advances the clustering factor and decides the minute's variance and jump. */
function advanceMinute(
  profile: Profile, localMinute: number, slots: number, resolutionS: number, dayVar: number, rng: Sfc32,
): void {
  let clus = 1 + CLUS_PHI * (minuteState.clus - 1) + CLUS_ETA * rng.normal();
  if (clus < CLUS_MIN) clus = CLUS_MIN;
  const varPerSecond = dayVar * profile.varPerSecond[localMinute] * clus * clus * CLUS_NORM;
  minuteState.varSlot = varPerSecond * resolutionS;
  minuteState.sd = Math.sqrt(minuteState.varSlot);
  minuteState.jumpAt = -1;
  minuteState.jumpTicks = 0;
  const u = rng.nextU32();
  const news = profile.newsProbability[localMinute];
  const random = u < profile.jumpThreshold[localMinute];
  if (random || (news > 0 && rng.uniform() < news)) {
    // A jump of 2–4 (random) or 3–6 (scheduled) one-minute standard deviations, either way.
    const sdMinute = Math.sqrt(varPerSecond * 60);
    const size = random ? 2 + 2 * rng.uniform() : 3 + 3 * rng.uniform();
    minuteState.jumpTicks = (rng.nextU32() & 1 ? size : -size) * sdMinute;
    minuteState.jumpAt = rng.nextU32() % slots;
    clus += CLUS_JUMP_EXCITE;
  }
  minuteState.clus = clus;
}

/** Pass 1: the unpinned latent walk over all slots of the planned intervals. */
function walkDay(
  intervalCount: number, resolutionS: number, startLat: number, dayVar: number, profile: Profile,
  minuteRng: Sfc32, walkRng: Sfc32,
): void {
  let a = walkRng.a, b = walkRng.b, c = walkRng.c, d = walkRng.d;
  const lat = walkLat, cv = walkCv, base = normalBase, slope = normalSlope;
  const blockS = resolutionS >= 60 ? resolutionS : 60;
  let x = startLat, v = 0, i = 0;
  minuteState.clus = 1 + CLUS_SD * minuteRng.normal();
  for (let j = 0; j < intervalCount; j++) {
    const startS = ivStartS[j], endS = ivEndS[j], offsetS = ivOffsetS[j];
    if (ivGapS[j] > 0) {
      const gapVar = dayVar * profile.varPerSecond[Math.floor(((startS + offsetS) % DAY_S) / 60)] * ivGapS[j];
      x += Math.sqrt(gapVar) * minuteRng.normal();
      v += gapVar;
    }
    ivOpenLat[j] = x;
    ivOpenCv[j] = v;
    ivFirstSlot[j] = i;
    for (let t = startS; t < endS; t += blockS) {
      const slots = (endS - t < blockS ? endS - t : blockS) / resolutionS;
      advanceMinute(profile, Math.floor(((t + offsetS) % DAY_S) / 60), slots, resolutionS, dayVar, minuteRng);
      const sd = minuteState.sd, varSlot = minuteState.varSlot, jumpAt = minuteState.jumpAt;
      for (let k = 0; k < slots; k++) {
        const r = (((a + b) | 0) + d) | 0; // sfc32, inlined
        d = (d + 1) | 0;
        a = b ^ (b >>> 9);
        b = (c + (c << 3)) | 0;
        c = ((c << 21) | (c >>> 11)) + r | 0;
        const cell = r >>> 20;
        x += sd * (base[cell] + slope[cell] * (r & 0xf_ffff));
        if (k === jumpAt) x += minuteState.jumpTicks;
        v += varSlot;
        lat[i] = x;
        cv[i] = v;
        i++;
      }
    }
  }
}

/** Pass 2: pins the walk to `target` and writes bars; see the header for the bar model. */
function writeBars(
  out: BarColumns, intervalCount: number, resolutionS: number, slotCount: number, target: number,
  volumePerVar: number, rng: Sfc32,
): void {
  let a = rng.a, b = rng.b, c = rng.c, d = rng.d;
  const lat = walkLat, cv = walkCv, exp = expTable;
  const time = out.time, open = out.open, high = out.high, low = out.low, close = out.close, volume = out.volume;
  const last = slotCount - 1;
  const correction = (lat[last] - target) / cv[last];
  for (let j = 0; j < intervalCount; j++) {
    let prevCv = ivOpenCv[j];
    let prev = ivOpenLat[j] - prevCv * correction;
    const first = ivFirstSlot[j];
    const end = first + (ivEndS[j] - ivStartS[j]) / resolutionS;
    let t = ivStartS[j];
    for (let i = first; i < end; i++) {
      const cvi = cv[i];
      const x = i === last ? target : lat[i] - cvi * correction;
      const varSlot = cvi - prevCv;
      const r = (((a + b) | 0) + d) | 0; // sfc32, inlined
      d = (d + 1) | 0;
      a = b ^ (b >>> 9);
      b = (c + (c << 3)) | 0;
      c = ((c << 21) | (c >>> 11)) + r | 0;
      const move = x - prev;
      const move2 = move * move;
      const o = Math.floor(prev + 0.5);
      const cl = Math.floor(x + 0.5);
      let hi = Math.floor((prev + x + Math.sqrt(move2 + 2 * varSlot * exp[r >>> 20])) * 0.5 + 0.5);
      let lo = Math.floor((prev + x - Math.sqrt(move2 + 2 * varSlot * exp[(r >>> 8) & 0xfff])) * 0.5 + 0.5);
      if (hi < o) hi = o;
      if (hi < cl) hi = cl;
      if (lo > o) lo = o;
      if (lo > cl) lo = cl;
      const shock = move2 < 12 * varSlot ? move2 / varSlot : 12; // a jump bar trades up to ~8× its usual volume
      const vol = Math.floor(varSlot * volumePerVar * (0.4 + 0.6 * shock) + (r & 0xff) * 0.00390625);
      time[i] = t;
      open[i] = o;
      high[i] = hi;
      low[i] = lo;
      close[i] = cl;
      volume[i] = vol === 0 && hi > lo ? 1 : vol;
      prev = x;
      prevCv = cvi;
      t += resolutionS;
    }
  }
}

/**
 * Bars of `inst` at its stored resolution for every open slot of UTC day `utcDay` (time = slot
 * start, epoch seconds). The same instrument and day always give the same bars. Empty when closed.
 */
export function generateDay(inst: Instrument, utcDay: number): BarColumns {
  const inRange = Number.isInteger(utcDay) && utcDay >= GENERATOR_DAY_MIN && utcDay <= GENERATOR_DAY_MAX;
  assert(inRange, `generator day ${utcDay} out of range`);
  const resolutionS = inst.storedResolutionS;
  const dividesHour = resolutionS > 0 && Number.isInteger(resolutionS) && 3_600 % resolutionS === 0;
  assert(dividesHour, 'stored resolution must divide an hour');
  const model = modelFor(inst);
  const path = model.path;
  const [intervalCount, slotCount] = planDay(path.session, utcDay, resolutionS);
  if (slotCount === 0) return allocBars(0);
  const startLat = anchorTicks(path, utcDay);
  const target = anchorTicks(path, utcDay + 1);
  const scaleTicks = path.dailyVol * startLat; // one day's standard deviation, in ticks
  const dayVar = scaleTicks * scaleTicks * anchorVariance(path, utcDay) * DIFFUSION_SHARE;
  const minuteRng = new Sfc32(path.symbolHash, utcDay, STREAM_MINUTE);
  const walkRng = new Sfc32(path.symbolHash, utcDay, STREAM_WALK);
  walkDay(intervalCount, resolutionS, startLat, dayVar, path.profile, minuteRng, walkRng);
  const out = allocBars(slotCount);
  const volumePerVar = model.dailyVolume / (scaleTicks * scaleTicks);
  const barsRng = new Sfc32(path.symbolHash, utcDay, STREAM_BARS);
  writeBars(out, intervalCount, resolutionS, slotCount, target, volumePerVar, barsRng);
  out.length = slotCount;
  return out;
}

/** The generator's latent price (ticks, fractional) at 00:00 UTC of `utcDay`: cheap, for level checks. */
export function generatorAnchorTicks(inst: Instrument, utcDay: number): number {
  assert(utcDay >= GENERATOR_DAY_MIN && utcDay <= GENERATOR_DAY_MAX, `generator day ${utcDay} out of range`);
  return anchorTicks(modelFor(inst).path, utcDay);
}

export interface GeneratorSpanOptions {
  readonly session: SessionKind;
  readonly nowEpochS: number;
  /** First UTC day; default 2024-01-01. */
  readonly firstUtcDay?: number;
  /** Last UTC day; default (and cap) the last completed trading day. */
  readonly lastUtcDay?: number | null;
}

export interface GeneratorSpan {
  readonly firstUtcDay: number;
  readonly lastUtcDay: number;
  /** Bars at or after this time are left out: they belong to a trade date not yet completed. */
  readonly endS: number;
}

/** The UTC days to generate: from 2024-01-01 (or the configured day) to the last completed trading day. */
export function generatorSpan(opts: GeneratorSpanOptions): GeneratorSpan {
  const completed = lastCompletedTradingDay(opts.session, opts.nowEpochS);
  const firstUtcDay = opts.firstUtcDay ?? GENERATOR_ORIGIN_DAY;
  const wanted = opts.lastUtcDay ?? completed;
  if (wanted < completed) return { firstUtcDay, lastUtcDay: wanted, endS: (wanted + 1) * DAY_S };
  return { firstUtcDay, lastUtcDay: completed, endS: tradeDateEndS(opts.session, completed) };
}
