// Per-symbol parameters and the intraday profiles of the synthetic market.
//
// - Each symbol has a price band (its anchor walk reverts towards the band's geometric middle and
//   reflects at its edges) and an average daily volume. Micro contracts share their mini's path.
// - A profile gives, per exchange-local minute, the share of a full trade day's variance that falls
//   in each second: a U-shaped day (cash open, lunch, close; London/New York overlap for EURUSD)
//   drawn as linear interpolation between hand-set knots, zero in the CME daily halt. Random jumps
//   are spread like variance; scheduled releases (such as 07:30 CT) add a chance of a jump at fixed
//   local minutes. Profiles depend only on (profile kind, session kind) and are built once each.

import { CATALOGUE, type GeneratorRow, type Instrument, type SessionKind } from '../../domain/instrument.ts';
import type { GeneratorProfileKind } from '../../domain/instrument-table.ts';
import { MINUTES_PER_DAY } from './calendar.ts';

/** Random jumps in an average full trade day, spread over the day like variance. */
const RANDOM_JUMPS_PER_DAY = 2;

/** Per-symbol parameters: the catalogue's generator columns (src/domain/instruments.json). */
type SymbolParams = GeneratorRow;

export const SYMBOL_PARAMS: Readonly<Record<string, SymbolParams>> = Object.fromEntries(CATALOGUE.map((i) => [i.symbol, i.generator]));

type ProfileKind = GeneratorProfileKind;

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

export interface Profile {
  /** Share of a full trade day's variance per second, by local minute (0 while closed). */
  readonly varPerSecond: Float64Array;
  /** Probability of a random jump in the minute, × 2^32, for an integer compare. */
  readonly jumpThreshold: Float64Array;
  /** Probability of a scheduled-release jump in the minute. */
  readonly newsProbability: Float64Array;
}

function profileKindOf(inst: Instrument): ProfileKind {
  return inst.generator.profile;
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

const profiles = new Map<string, Profile>();

/** The profile of an instrument, built on first use and shared by instruments of the same kind and session. */
export function profileFor(inst: Instrument): Profile {
  const kind = profileKindOf(inst);
  const profileKey = `${kind}/${inst.session}`;
  let profile = profiles.get(profileKey);
  if (profile === undefined) {
    profile = buildProfile(kind, inst.session);
    profiles.set(profileKey, profile);
  }
  return profile;
}
