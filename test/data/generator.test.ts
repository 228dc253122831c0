import { describe, expect, it } from 'bun:test';
import type { BarColumns } from '../../src/data/bar-columns.ts';
import {
  GENERATOR_ORIGIN_DAY,
  generateDay,
  generatorAnchorTicks,
  generatorSpan,
} from '../../src/data/generator.ts';
import { INSTRUMENTS, findInstrument, type Instrument } from '../../src/domain/instrument.ts';
import {
  chicagoOffsetS,
  isMarketOpen,
  newYorkOffsetS,
  openIntervalsForUtcDay,
  weekdayOf,
} from '../../src/domain/trading-hours.ts';

const day = (iso: string): number => Date.parse(`${iso}T00:00:00Z`) / 86_400_000;
const s = (iso: string): number => Date.parse(iso) / 1000;
const inst = (symbol: string): Instrument => findInstrument(symbol) as Instrument;

function median(xs: ArrayLike<number>): number {
  const sorted = Array.from(xs).sort((a, b) => a - b);
  return sorted[sorted.length >> 1];
}

function weekdaysBetween(fromIso: string, toIso: string): number[] {
  const days: number[] = [];
  for (let d = day(fromIso); d <= day(toIso); d++) if (weekdayOf(d) !== 0 && weekdayOf(d) !== 6) days.push(d);
  return days;
}

/** FNV-1a over the bars' bytes: a fingerprint of a day's output. */
function fingerprint(b: BarColumns): number {
  let h = 0x811c9dc5;
  const cols = [b.time, b.open, b.high, b.low, b.close, b.volume];
  for (const col of cols) {
    const bytes = new Uint8Array(col.buffer, col.byteOffset, b.length * 4);
    for (let i = 0; i < bytes.length; i++) h = Math.imul(h ^ bytes[i], 0x01000193);
  }
  return h >>> 0;
}

/** Bars aggregated into local-time minutes: [local minute of day, range ticks, volume] per minute. */
function minutes(b: BarColumns, offsetOf: (t: number) => number): Array<[number, number, number]> {
  const out: Array<[number, number, number]> = [];
  let i = 0;
  while (i < b.length) {
    const m = Math.floor(b.time[i] / 60);
    let hi = b.high[i], lo = b.low[i], vol = 0;
    const local = b.time[i] + offsetOf(b.time[i]);
    for (; i < b.length && Math.floor(b.time[i] / 60) === m; i++) {
      hi = Math.max(hi, b.high[i]);
      lo = Math.min(lo, b.low[i]);
      vol += b.volume[i];
    }
    out.push([Math.floor((local % 86_400) / 60), hi - lo, vol]);
  }
  return out;
}

const CHECK_DAYS = [
  '2024-01-01', // origin day (a Monday; holidays are not modelled)
  '2024-03-08', // Friday before spring-forward
  '2024-03-09', // Saturday
  '2024-03-10', // Sunday of spring-forward
  '2024-03-11', // Monday after
  '2024-11-03', // Sunday of fall-back
  '2024-11-04',
  '2025-03-09',
  '2025-06-18',
  '2023-06-14', // before the origin: the backward anchor walk
];

describe('generateDay: determinism', () => {
  it('gives identical bars on every call', () => {
    for (const i of INSTRUMENTS) {
      const a = generateDay(i, day('2024-05-15'));
      const b = generateDay(i, day('2024-05-15'));
      expect(b.length).toBe(a.length);
      expect(fingerprint(b)).toBe(fingerprint(a));
    }
  });

  // Generation uses only exactly rounded IEEE operations (see the generator's header), so these
  // fingerprints hold on every machine; they were checked equal under Bun (JSC) and Node 20 (V8).
  // A deliberate change of output must update them and bump GENERATOR_VERSION.
  it.each([
    ['NQ', '2024-03-11', 82_800, 370_646_537],
    ['GC', '2024-07-10', 8_280, 133_997_404],
    ['EURUSD', '2025-02-04', 86_400, 1_510_377_734],
  ])('%s %s fingerprint', (symbol, date, length, hash) => {
    const b = generateDay(inst(symbol), day(date));
    expect(b.length).toBe(length);
    expect(fingerprint(b)).toBe(hash);
  });
});

describe('generateDay: bars are consistent', () => {
  it.each(CHECK_DAYS)('every instrument on %s', (date) => {
    for (const i of INSTRUMENTS) {
      const b = generateDay(i, day(date));
      const res = i.storedResolutionS;
      const openS = openIntervalsForUtcDay(i.session, day(date)).reduce((n, [a, z]) => n + z - a, 0);
      expect(b.length).toBe(openS / res); // one bar per open slot
      let bad = 0;
      for (let k = 0; k < b.length; k++) {
        const t = b.time[k];
        if (t % res !== 0 || (k > 0 && t <= b.time[k - 1])) bad++;
        if (!isMarketOpen(i.session, t) || !isMarketOpen(i.session, t + res - 1)) bad++;
        if (b.low[k] <= 0 || b.low[k] > Math.min(b.open[k], b.close[k])) bad++;
        if (b.high[k] < Math.max(b.open[k], b.close[k])) bad++;
        if (b.high[k] > b.low[k] && b.volume[k] === 0) bad++;
        // Within an open stretch each bar opens at the previous close.
        if (k > 0 && t === b.time[k - 1] + res && b.open[k] !== b.close[k - 1]) bad++;
      }
      expect(bad).toBe(0);
    }
  });

  it('has no bars on a Saturday', () => {
    for (const i of INSTRUMENTS) expect(generateDay(i, day('2024-06-15')).length).toBe(0);
  });

  it('has no Globex bars in the daily halt, and bars right around it', () => {
    const b = generateDay(inst('NQ'), day('2024-01-09'));
    const times = new Set(b.time.subarray(0, b.length));
    let inHalt = 0;
    for (let t = s('2024-01-09T22:00:00Z'); t < s('2024-01-09T23:00:00Z'); t++) if (times.has(t)) inHalt++;
    expect(inHalt).toBe(0);
    expect(times.has(s('2024-01-09T21:59:59Z'))).toBe(true);
    expect(times.has(s('2024-01-09T23:00:00Z'))).toBe(true);
  });

  it('refuses days outside 2007–2099', () => {
    expect(() => generateDay(inst('NQ'), day('2006-12-29'))).toThrow();
  });
});

describe('generateDay: continuity', () => {
  it('opens each UTC day at the previous UTC day\'s last close when trading runs through midnight', () => {
    for (const i of INSTRUMENTS) {
      let checked = 0;
      for (let d = day('2023-12-20'); d < day('2024-01-20'); d++) {
        const today = generateDay(i, d);
        const tomorrow = generateDay(i, d + 1);
        if (today.length === 0 || tomorrow.length === 0) continue;
        if (today.time[today.length - 1] + i.storedResolutionS !== tomorrow.time[0]) continue;
        expect(tomorrow.open[0]).toBe(today.close[today.length - 1]);
        checked++;
      }
      expect(checked).toBeGreaterThanOrEqual(18);
    }
  });

  it('reopens after the halt and the weekend within a few ticks of the last close', () => {
    const gaps: number[] = [];
    const nq = inst('NQ');
    for (const d of weekdaysBetween('2024-04-01', '2024-06-28')) {
      const b = generateDay(nq, d);
      for (let k = 1; k < b.length; k++) {
        if (b.time[k] - b.time[k - 1] > 1) gaps.push(Math.abs(b.open[k] - b.close[k - 1]));
      }
    }
    expect(gaps.length).toBeGreaterThan(40);
    expect(median(gaps)).toBeLessThanOrEqual(8);
    expect(Math.max(...gaps)).toBeLessThanOrEqual(60);
  });
});

describe('generateDay: realistic levels and ranges', () => {
  const bands: Record<string, [number, number]> = {
    NQ: [14_000, 25_000], MNQ: [14_000, 25_000], ES: [4_000, 7_000], MES: [4_000, 7_000],
    GC: [1_800, 3_500], EURUSD: [1.0, 1.2], LIGHTCMDUSD: [55, 95],
  };

  it('stays in each instrument\'s realistic band every day of 2024–2025', () => {
    for (const i of INSTRUMENTS) {
      const [lo, hi] = bands[i.symbol];
      for (let d = day('2024-01-01'); d <= day('2025-12-31'); d++) {
        const price = generatorAnchorTicks(i, d) * i.tickSize;
        if (price < lo || price > hi) throw new Error(`${i.symbol} at ${price} on day ${d}`);
      }
    }
  });

  it('moves about genDailyVol a day, with volatility clustering', () => {
    for (const i of INSTRUMENTS) {
      const r: number[] = [];
      for (const d of weekdaysBetween('2024-01-02', '2025-12-30')) {
        if (weekdayOf(d) === 5) continue; // Friday's UTC day is short
        r.push(Math.log(generatorAnchorTicks(i, d + 1) / generatorAnchorTicks(i, d)));
      }
      const sd = Math.sqrt(r.reduce((a, x) => a + x * x, 0) / r.length);
      expect(sd / i.genDailyVol).toBeGreaterThan(0.7);
      expect(sd / i.genDailyVol).toBeLessThan(1.4);
      // |r| is autocorrelated (big days follow big days): mean autocorrelation over lags 1–5.
      const abs = r.map(Math.abs);
      const mean = abs.reduce((a, x) => a + x, 0) / abs.length;
      const den = abs.reduce((a, x) => a + (x - mean) ** 2, 0);
      let acSum = 0;
      for (let lag = 1; lag <= 5; lag++) {
        for (let k = lag; k < abs.length; k++) acSum += ((abs[k] - mean) * (abs[k - lag] - mean)) / den;
      }
      expect(acSum / 5).toBeGreaterThan(0.03);
    }
  });

  it('NQ: 1 s bars of a few ticks, 1 m bars of 5–40 ticks, busy cash open and quiet night', () => {
    const secondRanges: number[] = [];
    const minuteRanges: number[] = [];
    let openRange = 0, openVol = 0, openN = 0, nightRange = 0, nightVol = 0, nightN = 0, lunchRange = 0, lunchN = 0;
    for (const d of weekdaysBetween('2024-09-09', '2024-09-20')) {
      const b = generateDay(inst('NQ'), d);
      for (let k = 0; k < b.length; k++) secondRanges.push(b.high[k] - b.low[k]);
      for (const [m, range, vol] of minutes(b, chicagoOffsetS)) {
        minuteRanges.push(range);
        if (m >= 8 * 60 + 30 && m < 9 * 60) { openRange += range; openVol += vol; openN++; }
        if (m >= 11 * 60 + 30 && m < 12 * 60 + 30) { lunchRange += range; lunchN++; }
        if (m >= 20 * 60 || m < 60) { nightRange += range; nightVol += vol; nightN++; }
      }
    }
    expect(median(secondRanges)).toBeLessThanOrEqual(4);
    expect(median(minuteRanges)).toBeGreaterThanOrEqual(5);
    expect(median(minuteRanges)).toBeLessThanOrEqual(40);
    expect(openRange / openN).toBeGreaterThan(2 * (lunchRange / lunchN));
    expect(openRange / openN).toBeGreaterThan(4 * (nightRange / nightN));
    expect(openVol / openN).toBeGreaterThan(10 * (nightVol / nightN));
  });

  it('EURUSD: 1 m bars of about a pip, busiest in the London/New York overlap', () => {
    const ranges: number[] = [];
    let overlap = 0, overlapN = 0, asia = 0, asiaN = 0;
    for (const d of weekdaysBetween('2024-09-09', '2024-09-20')) {
      for (const [m, range] of minutes(generateDay(inst('EURUSD'), d), newYorkOffsetS)) {
        ranges.push(range);
        if (m >= 8 * 60 && m < 11 * 60) { overlap += range; overlapN++; }
        if (m >= 20 * 60 && m < 23 * 60) { asia += range; asiaN++; }
      }
    }
    expect(median(ranges)).toBeGreaterThanOrEqual(5); // 0.5 pip
    expect(median(ranges)).toBeLessThanOrEqual(40); // 4 pips
    expect(overlap / overlapN).toBeGreaterThan(1.5 * (asia / asiaN));
  });

  it('has occasional jumps: fat-tailed one-minute moves', () => {
    const moves: number[] = [];
    for (const d of weekdaysBetween('2024-02-05', '2024-03-29')) {
      const b = generateDay(inst('ES'), d);
      for (let k = 60; k < b.length; k += 60) moves.push(b.close[k] - b.close[k - 60]);
    }
    const m2 = moves.reduce((a, x) => a + x * x, 0) / moves.length;
    const m4 = moves.reduce((a, x) => a + x ** 4, 0) / moves.length;
    expect(m4 / (m2 * m2)).toBeGreaterThan(4); // a normal distribution has 3
  });

  it('gives micro contracts their mini\'s prices with their own volume', () => {
    const mini = generateDay(inst('NQ'), day('2024-08-05'));
    const micro = generateDay(inst('MNQ'), day('2024-08-05'));
    const prices = (b: BarColumns): number[][] =>
      [b.open, b.high, b.low, b.close].map((col) => Array.from(col.subarray(0, b.length)));
    expect(prices(micro)).toEqual(prices(mini));
    expect(fingerprint(micro)).not.toBe(fingerprint(mini));
  });
});

describe('generatorSpan', () => {
  it.each([
    // [session, now, configured last day, expected last day, expected end]
    ['cme_globex', '2025-06-18T15:00:00Z', null, '2025-06-17', '2025-06-17T21:00:00Z'],
    ['cme_globex', '2025-06-21T12:00:00Z', null, '2025-06-20', '2025-06-20T21:00:00Z'],
    ['fx_24x5', '2025-01-15T23:00:00Z', null, '2025-01-15', '2025-01-15T22:00:00Z'],
    ['cme_globex', '2025-06-18T15:00:00Z', '2025-03-31', '2025-03-31', '2025-04-01T00:00:00Z'],
    ['cme_globex', '2025-06-18T15:00:00Z', '2026-01-01', '2025-06-17', '2025-06-17T21:00:00Z'],
  ] as const)('%s now %s, configured end %s → %s', (session, now, configured, last, end) => {
    const lastUtcDay = configured === null ? null : day(configured);
    const span = generatorSpan({ session, nowEpochS: s(now), lastUtcDay });
    expect(span).toEqual({ firstUtcDay: GENERATOR_ORIGIN_DAY, lastUtcDay: day(last), endS: s(end) });
  });
});
