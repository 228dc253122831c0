// One UTC day of the synthetic market: the intraday latent walk between two daily anchors, and its bars.
//
// The model:
// - Intraday. Within a UTC day the latent price is a Gaussian walk over the open seconds whose
//   variance follows a U-shaped profile in exchange local time (see profiles.ts) times an intraday
//   clustering factor updated every minute, with occasional jumps (random, and more likely at
//   scheduled release times such as 07:30 CT) that excite the clustering factor. The walk is pinned
//   to the next day's anchor (see daily-anchors.ts) by a Brownian bridge (the end error is removed in
//   proportion to elapsed variance), so the last close of a UTC day is the next UTC day's first open,
//   exactly. After the daily halt and after the weekend the market reopens with a small gap drawn
//   like a few seconds (halt) or minutes (weekend) of trading.
// - Bars. Open = previous latent close, close = latent close, both rounded to the tick grid; high and
//   low are drawn from the exact distributions of the maximum and of the minimum of a Brownian
//   bridge between them (one exponential draw each, independently), rounded and clamped so that
//   low ≤ min(open, close) ≤ max(open, close) ≤ high. Volume is proportional to
//   the slot's variance (the mixture-of-distributions view: more trades, more movement), scaled by
//   the size of the move, stochastically rounded to an integer; a bar whose price moved has
//   volume ≥ 1. Every open slot gets a bar (flat zero-volume bars are kept in quiet seconds).
//
// Speed: two passes over the day's slots (walk, then bars) with the per-minute work hoisted out of
// the per-slot loops, an inlined generator and table look-ups: no allocation and no transcendental
// call per bar. The day's plan and walk live in module-level scratch arrays, reused from day to day.

import { coreLimits } from '../../core-limits.ts';
import { assert } from '../../lib/assert.ts';
import type { Instrument, SessionKind } from '../../domain/instrument.ts';
import { openIntervalsForUtcDay, sessionOffsetS, weekdayOf } from '../../domain/trading-hours.ts';
import { DAY_S } from '../../lib/time-units.ts';
import { allocBars, type BarColumns } from '../bar-columns.ts';
import { anchorTicks, anchorVariance, modelFor } from './daily-anchors.ts';
import { expTable, normalBase, normalSlope, Sfc32, STREAM_BARS, STREAM_MINUTE, STREAM_WALK } from './prng.ts';
import type { Profile } from './profiles.ts';

// Intraday clustering factor `clus`: AR(1) per minute around 1; variance scales with clus².
const CLUS_PHI = 0.95;
const CLUS_SD = 0.3;
const CLUS_ETA = CLUS_SD * Math.sqrt(1 - CLUS_PHI * CLUS_PHI);
const CLUS_NORM = 1 / (1 + CLUS_SD * CLUS_SD); // E[clus²] = 1 + sd²
const CLUS_MIN = 0.3;
const CLUS_JUMP_EXCITE = 0.5;

// Jumps (random and scheduled, see profiles.ts) and the clustering they excite add about a sixth to a
// day's variance (measured over 2024), so the diffusion gets the rest and a day's realized variance
// matches its anchor's on average.
const DIFFUSION_SHARE = 0.85;
const HALT_GAP_S = coreLimits.generatorHaltGapS; // reopen gap after the daily halt, as this many seconds of trading
const WEEKEND_GAP_S = coreLimits.generatorWeekendGapS;

const ivStartS = new Float64Array(coreLimits.generatorIntervalsPerDayMax);
const ivEndS = new Float64Array(coreLimits.generatorIntervalsPerDayMax);
const ivOffsetS = new Float64Array(coreLimits.generatorIntervalsPerDayMax);
const ivGapS = new Float64Array(coreLimits.generatorIntervalsPerDayMax); // 0 when the interval continues from the previous day
const ivFirstSlot = new Int32Array(coreLimits.generatorIntervalsPerDayMax);
const ivOpenLat = new Float64Array(coreLimits.generatorIntervalsPerDayMax);
const ivOpenCv = new Float64Array(coreLimits.generatorIntervalsPerDayMax);
let walkLat = new Float64Array(0); // latent close of each slot, before the bridge correction
let walkCv = new Float64Array(0); // cumulative variance up to each slot's close

/** Fills the interval scratch for a UTC day; returns the number of slots (bars). */
function planDay(session: SessionKind, utcDay: number, resolutionS: number): [number, number] {
  const intervals = openIntervalsForUtcDay(session, utcDay);
  assert(intervals.length <= coreLimits.generatorIntervalsPerDayMax, 'too many open intervals in one UTC day');
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
  const inRange = Number.isInteger(utcDay) && utcDay >= coreLimits.generatorDayMin && utcDay <= coreLimits.generatorDayMax;
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
