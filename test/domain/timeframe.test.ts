import { describe, expect, it } from 'bun:test';
import {
  BarUnit,
  bucketStart,
  daysFromCivil,
  historyScanWindowS,
  nextBucketStart,
  parseTimeframe,
  PRESET_TIMEFRAMES,
  timeframeFromUnit,
  type Timeframe,
} from '../../src/domain/timeframe.ts';

const SCAN = { historyScanSecondMinuteDays: 30, historyScanHourDays: 120, historyScanDayDays: 365 };

/** The outcome as one comparable string: the canonical text, or `!kind` for an error. */
function replay(text: unknown, customEnabled = true, storedResolutionS = 1): string {
  const r = parseTimeframe(text, { customEnabled, storedResolutionS });
  return r.ok ? r.value.text : `!${r.error.kind}`;
}

function history(unit: unknown, unitNumber: unknown, customEnabled = true, storedResolutionS = 1): string {
  const r = timeframeFromUnit(unit, unitNumber, { customEnabled, storedResolutionS, scanLimits: SCAN });
  return r.ok ? r.value.text : `!${r.error.kind}`;
}

function tf(text: string): Timeframe {
  const r = parseTimeframe(text, { customEnabled: true, storedResolutionS: 1 });
  if (!r.ok) throw new Error(`test timeframe ${text}: ${r.error.kind}`);
  return r.value;
}

/** Epoch seconds of a UTC ISO time (tests may use Date; the module under test does not). */
const at = (iso: string): number => Date.parse(iso) / 1000;

describe('presets', () => {
  const table: [string, number][] = [
    ['1s', 1], ['5s', 5], ['10s', 10], ['15s', 15], ['30s', 30], ['1m', 60],
    ['5m', 300], ['15m', 900], ['30m', 1800], ['1h', 3600], ['4h', 14400], ['1d', 86400],
  ];
  it('lists the 12 spec presets in order', () => {
    expect(PRESET_TIMEFRAMES.map((p) => [p.text, p.widthS])).toEqual(table);
  });
  it.each(table)('%s parses with the switch off, fixed, width %d s', (text, widthS) => {
    const r = parseTimeframe(text, { customEnabled: false, storedResolutionS: 1 });
    expect(r.ok && r.value).toEqual({
      count: Number(text.slice(0, -1)), unit: text.slice(-1), kind: 'fixed', widthS, text,
    } as Timeframe);
  });
});

describe('canonicalization', () => {
  // input, count, unit, kind, widthS
  const table: [string, number, string, string, number][] = [
    ['60m', 1, 'h', 'fixed', 3600],
    ['120s', 2, 'm', 'fixed', 120],
    ['60s', 1, 'm', 'fixed', 60],
    ['3600s', 1, 'h', 'fixed', 3600],
    ['7200s', 2, 'h', 'fixed', 7200],
    ['86400s', 1, 'd', 'fixed', 86400],
    ['90s', 90, 's', 'fixed', 90],
    ['99999s', 99999, 's', 'fixed', 99999],
    ['90m', 90, 'm', 'fixed', 5400],
    ['1440m', 1, 'd', 'fixed', 86400],
    ['43200m', 30, 'd', 'fixed', 2592000],
    ['24h', 1, 'd', 'fixed', 86400],
    ['48h', 2, 'd', 'fixed', 172800],
    ['25h', 25, 'h', 'fixed', 90000],
    ['720h', 30, 'd', 'fixed', 2592000],
    ['7d', 7, 'd', 'fixed', 604800],
    ['14d', 14, 'd', 'fixed', 1209600],
    ['30d', 30, 'd', 'fixed', 2592000],
    ['1w', 1, 'w', 'calendar', 0],
    ['4w', 4, 'w', 'calendar', 0],
    ['52w', 52, 'w', 'calendar', 0],
    ['1M', 1, 'M', 'calendar', 0],
    ['3M', 3, 'M', 'calendar', 0],
    ['11M', 11, 'M', 'calendar', 0],
    ['12M', 1, 'y', 'calendar', 0],
    ['24M', 2, 'y', 'calendar', 0],
    ['60M', 5, 'y', 'calendar', 0],
    ['1y', 1, 'y', 'calendar', 0],
    ['5y', 5, 'y', 'calendar', 0],
  ];
  it.each(table)('%s → %d%s (%s, %d s)', (text, count, unit, kind, widthS) => {
    const r = parseTimeframe(text, { customEnabled: true, storedResolutionS: 1 });
    expect(r.ok && r.value).toEqual({ count, unit, kind, widthS, text: `${count}${unit}` } as Timeframe);
  });
});

describe('grammar, range and custom switch (stored resolution 1 s)', () => {
  // input, switch on, switch off
  const table: [unknown, string, string][] = [
    // Presets in other spellings are presets.
    ['60m', '1h', '1h'],
    ['60s', '1m', '1m'],
    ['3600s', '1h', '1h'],
    ['86400s', '1d', '1d'],
    ['1440m', '1d', '1d'],
    ['24h', '1d', '1d'],
    ['240m', '4h', '4h'],
    ['14400s', '4h', '4h'],
    // Custom values.
    ['2m', '2m', '!custom_disabled'],
    ['90s', '90s', '!custom_disabled'],
    ['120s', '2m', '!custom_disabled'],
    ['7d', '7d', '!custom_disabled'],
    ['14d', '14d', '!custom_disabled'],
    ['1w', '1w', '!custom_disabled'],
    ['1M', '1M', '!custom_disabled'],
    ['12M', '1y', '!custom_disabled'],
    ['1y', '1y', '!custom_disabled'],
    // Bound edges, on the canonical form; the switch is checked first (spec: every non-preset).
    ['30d', '30d', '!custom_disabled'],
    ['31d', '!out_of_range', '!custom_disabled'],
    ['720h', '30d', '!custom_disabled'],
    ['721h', '!out_of_range', '!custom_disabled'],
    ['43200m', '30d', '!custom_disabled'],
    ['43201m', '!out_of_range', '!custom_disabled'],
    ['99999d', '!out_of_range', '!custom_disabled'],
    ['52w', '52w', '!custom_disabled'],
    ['53w', '!out_of_range', '!custom_disabled'],
    ['13M', '!out_of_range', '!custom_disabled'],
    ['60M', '5y', '!custom_disabled'],
    ['72M', '!out_of_range', '!custom_disabled'],
    ['5y', '5y', '!custom_disabled'],
    ['6y', '!out_of_range', '!custom_disabled'],
    // Counts have at most 5 digits: 30 days in seconds is not expressible in the grammar.
    ['2592000s', '!invalid_timeframe', '!invalid_timeframe'],
    ['2592001s', '!invalid_timeframe', '!invalid_timeframe'],
    ['100000s', '!invalid_timeframe', '!invalid_timeframe'],
    // Grammar.
    ['0s', '!invalid_timeframe', '!invalid_timeframe'],
    ['00s', '!invalid_timeframe', '!invalid_timeframe'],
    ['01m', '!invalid_timeframe', '!invalid_timeframe'],
    ['1S', '!invalid_timeframe', '!invalid_timeframe'],
    ['1H', '!invalid_timeframe', '!invalid_timeframe'],
    ['1D', '!invalid_timeframe', '!invalid_timeframe'],
    ['1W', '!invalid_timeframe', '!invalid_timeframe'],
    ['1Y', '!invalid_timeframe', '!invalid_timeframe'],
    ['1mo', '!invalid_timeframe', '!invalid_timeframe'],
    ['1min', '!invalid_timeframe', '!invalid_timeframe'],
    ['', '!invalid_timeframe', '!invalid_timeframe'],
    [' 1m', '!invalid_timeframe', '!invalid_timeframe'],
    ['1m ', '!invalid_timeframe', '!invalid_timeframe'],
    ['1m\n', '!invalid_timeframe', '!invalid_timeframe'],
    ['1 m', '!invalid_timeframe', '!invalid_timeframe'],
    ['m', '!invalid_timeframe', '!invalid_timeframe'],
    ['1', '!invalid_timeframe', '!invalid_timeframe'],
    ['-1m', '!invalid_timeframe', '!invalid_timeframe'],
    ['+1m', '!invalid_timeframe', '!invalid_timeframe'],
    ['1.5m', '!invalid_timeframe', '!invalid_timeframe'],
    ['1e3s', '!invalid_timeframe', '!invalid_timeframe'],
    ['1m1', '!invalid_timeframe', '!invalid_timeframe'],
    ['１m', '!invalid_timeframe', '!invalid_timeframe'],
    ['٣m', '!invalid_timeframe', '!invalid_timeframe'],
    [undefined, '!invalid_timeframe', '!invalid_timeframe'],
    [null, '!invalid_timeframe', '!invalid_timeframe'],
    [60, '!invalid_timeframe', '!invalid_timeframe'],
  ];
  it.each(table)('%p → on %s, off %s', (text, on, off) => {
    expect(replay(text, true)).toBe(on);
    expect(replay(text, false)).toBe(off);
  });
});

describe('stored resolution', () => {
  // timeframe, stored 1 s (switch on), stored 10 s (switch on), stored 10 s (switch off)
  const table: [string, string, string, string][] = [
    ['15s', '15s', '!incompatible_resolution', '!incompatible_resolution'],
    ['30s', '30s', '30s', '30s'],
    ['5s', '5s', '!incompatible_resolution', '!incompatible_resolution'],
    ['1s', '1s', '!incompatible_resolution', '!incompatible_resolution'],
    ['10s', '10s', '10s', '10s'],
    ['1m', '1m', '1m', '1m'],
    ['45s', '45s', '!incompatible_resolution', '!custom_disabled'],
    ['1w', '1w', '1w', '!custom_disabled'],
    ['1M', '1M', '1M', '!custom_disabled'],
    ['1y', '1y', '1y', '!custom_disabled'],
    ['31d', '!out_of_range', '!out_of_range', '!custom_disabled'],
  ];
  it.each(table)('%s: 1 s → %s; 10 s → %s; 10 s switch off → %s', (text, r1, r10, r10off) => {
    expect(replay(text, true, 1)).toBe(r1);
    expect(replay(text, true, 10)).toBe(r10);
    expect(replay(text, false, 10)).toBe(r10off);
  });

  it('calendar timeframes need a stored width that divides a day', () => {
    expect(replay('1w', true, 7)).toBe('!incompatible_resolution');
    expect(replay('1M', true, 7)).toBe('!incompatible_resolution');
    expect(replay('1d', true, 7)).toBe('!incompatible_resolution');
    expect(replay('7d', true, 7)).toBe('7d');
    expect(replay('1w', true, 3600)).toBe('1w');
  });

  it('a non-positive or fractional stored width is a bug', () => {
    expect(() => replay('1m', true, 0)).toThrow();
    expect(() => replay('1m', true, 1.5)).toThrow();
  });
});

describe('History unit and unitNumber', () => {
  // unit, unitNumber, stored width, switch on, switch off
  const table: [unknown, unknown, number, string, string][] = [
    [BarUnit.Second, 1, 1, '1s', '1s'],
    [BarUnit.Second, 60, 1, '1m', '1m'],
    [BarUnit.Second, 3600, 1, '1h', '1h'],
    [BarUnit.Second, 86400, 1, '1d', '1d'],
    [BarUnit.Minute, 5, 1, '5m', '5m'],
    [BarUnit.Minute, 60, 1, '1h', '1h'],
    [BarUnit.Minute, 240, 1, '4h', '4h'],
    [BarUnit.Minute, 1440, 1, '1d', '1d'],
    [BarUnit.Hour, 24, 1, '1d', '1d'],
    [BarUnit.Day, 1, 1, '1d', '1d'],
    [BarUnit.Minute, 2, 1, '2m', '!custom_disabled'],
    [BarUnit.Day, 7, 1, '7d', '!custom_disabled'],
    // History's own ceilings: the scan window of the request's unit, not Replay's 30 days.
    [BarUnit.Day, 60, 1, '60d', '!custom_disabled'],
    [BarUnit.Day, 365, 1, '365d', '!custom_disabled'],
    [BarUnit.Day, 366, 1, '!unit_number_invalid', '!unit_number_invalid'],
    [BarUnit.Hour, 2880, 1, '120d', '!custom_disabled'],
    [BarUnit.Hour, 2881, 1, '!unit_number_invalid', '!unit_number_invalid'],
    [BarUnit.Minute, 43200, 1, '30d', '!custom_disabled'],
    [BarUnit.Minute, 43201, 1, '!unit_number_invalid', '!unit_number_invalid'],
    [BarUnit.Second, 2592000, 1, '30d', '!custom_disabled'],
    [BarUnit.Second, 2592001, 1, '!unit_number_invalid', '!unit_number_invalid'],
    [BarUnit.Second, 31 * 86400, 1, '!unit_number_invalid', '!unit_number_invalid'],
    [BarUnit.Second, 1e20, 1, '!unit_number_invalid', '!unit_number_invalid'],
    // unitNumber itself.
    [BarUnit.Minute, undefined, 1, '!unit_number_invalid', '!unit_number_invalid'],
    [BarUnit.Minute, null, 1, '!unit_number_invalid', '!unit_number_invalid'],
    [BarUnit.Minute, 0, 1, '!unit_number_invalid', '!unit_number_invalid'],
    [BarUnit.Minute, -5, 1, '!unit_number_invalid', '!unit_number_invalid'],
    [BarUnit.Minute, 1.5, 1, '!unit_number_invalid', '!unit_number_invalid'],
    [BarUnit.Minute, Number.NaN, 1, '!unit_number_invalid', '!unit_number_invalid'],
    [BarUnit.Minute, Number.POSITIVE_INFINITY, 1, '!unit_number_invalid', '!unit_number_invalid'],
    [BarUnit.Minute, '5', 1, '!unit_number_invalid', '!unit_number_invalid'],
    // unit, checked first.
    [BarUnit.Week, 1, 1, '!unit_invalid', '!unit_invalid'],
    [BarUnit.Month, 1, 1, '!unit_invalid', '!unit_invalid'],
    [0, 1, 1, '!unit_invalid', '!unit_invalid'],
    [7, 1, 1, '!unit_invalid', '!unit_invalid'],
    [1.5, 1, 1, '!unit_invalid', '!unit_invalid'],
    ['1', 1, 1, '!unit_invalid', '!unit_invalid'],
    [undefined, 1, 1, '!unit_invalid', '!unit_invalid'],
    [null, 0, 1, '!unit_invalid', '!unit_invalid'],
    // Stored width 10 s (GC).
    [BarUnit.Second, 30, 10, '30s', '30s'],
    [BarUnit.Second, 15, 10, '!incompatible_resolution', '!incompatible_resolution'],
    [BarUnit.Second, 5, 10, '!incompatible_resolution', '!incompatible_resolution'],
    [BarUnit.Second, 45, 10, '!incompatible_resolution', '!custom_disabled'],
    [BarUnit.Minute, 1, 10, '1m', '1m'],
  ];
  it.each(table)('unit %p × %p on %d s → on %s, off %s', (unit, n, stored, on, off) => {
    expect(history(unit, n, true, stored)).toBe(on);
    expect(history(unit, n, false, stored)).toBe(off);
  });

  it('scan windows follow the request unit', () => {
    expect([1, 2, 3, 4, 5, 6].map((u) => historyScanWindowS(u, SCAN) / 86400)).toEqual([30, 30, 120, 365, 0, 0]);
  });
});

describe('fixed buckets on the epoch grid', () => {
  // timeframe, time, bucket start, next bucket start
  const table: [string, string, string, string][] = [
    ['1m', '2024-03-05T14:37:59Z', '2024-03-05T14:37:00Z', '2024-03-05T14:38:00Z'],
    ['1m', '2024-03-05T14:37:00Z', '2024-03-05T14:37:00Z', '2024-03-05T14:38:00Z'],
    ['90s', '2024-03-05T00:01:31Z', '2024-03-05T00:01:30Z', '2024-03-05T00:03:00Z'],
    ['4h', '2024-03-05T03:59:59Z', '2024-03-05T00:00:00Z', '2024-03-05T04:00:00Z'],
    ['4h', '2024-03-05T22:10:00Z', '2024-03-05T20:00:00Z', '2024-03-06T00:00:00Z'],
    ['1d', '2024-02-29T23:59:59Z', '2024-02-29T00:00:00Z', '2024-03-01T00:00:00Z'],
    // 7d is fixed: buckets start on Thursdays, as 1970-01-01 did.
    ['7d', '2024-03-05T12:00:00Z', '2024-02-29T00:00:00Z', '2024-03-07T00:00:00Z'],
  ];
  it.each(table)('%s: %s → [%s, %s)', (text, t, start, next) => {
    expect(bucketStart(tf(text), at(t))).toBe(at(start));
    expect(nextBucketStart(tf(text), at(start))).toBe(at(next));
    expect(nextBucketStart(tf(text), at(t))).toBe(at(next));
  });
});

describe('calendar buckets', () => {
  const table: [string, string, string, string][] = [
    // ISO weeks start Monday 00:00 UTC, across month and year ends.
    ['1w', '2024-01-03T10:00:00Z', '2024-01-01T00:00:00Z', '2024-01-08T00:00:00Z'],
    ['1w', '2024-01-01T00:00:00Z', '2024-01-01T00:00:00Z', '2024-01-08T00:00:00Z'],
    ['1w', '2023-12-31T23:59:59Z', '2023-12-25T00:00:00Z', '2024-01-01T00:00:00Z'],
    ['1w', '2025-12-31T12:00:00Z', '2025-12-29T00:00:00Z', '2026-01-05T00:00:00Z'],
    ['1w', '2024-03-01T00:00:00Z', '2024-02-26T00:00:00Z', '2024-03-04T00:00:00Z'],
    // 2w: even week numbers counted from the week of Monday 1970-01-05.
    // (2024-01-01 is week 2817 since then, odd.)
    ['2w', '2024-01-03T10:00:00Z', '2023-12-25T00:00:00Z', '2024-01-08T00:00:00Z'],
    ['2w', '2024-01-10T10:00:00Z', '2024-01-08T00:00:00Z', '2024-01-22T00:00:00Z'],
    ['2w', '2024-01-21T23:59:59Z', '2024-01-08T00:00:00Z', '2024-01-22T00:00:00Z'],
    ['2w', '1970-01-12T00:00:00Z', '1970-01-05T00:00:00Z', '1970-01-19T00:00:00Z'],
    // UTC months, leap February, December → January.
    ['1M', '2024-02-29T12:00:00Z', '2024-02-01T00:00:00Z', '2024-03-01T00:00:00Z'],
    ['1M', '2024-12-31T23:59:59Z', '2024-12-01T00:00:00Z', '2025-01-01T00:00:00Z'],
    ['1M', '2100-03-01T00:00:00Z', '2100-03-01T00:00:00Z', '2100-04-01T00:00:00Z'],
    // 3M: quarters (months since 1970-01 divisible by 3); 5M drifts through the year.
    ['3M', '2024-05-15T00:00:00Z', '2024-04-01T00:00:00Z', '2024-07-01T00:00:00Z'],
    ['3M', '2024-12-15T00:00:00Z', '2024-10-01T00:00:00Z', '2025-01-01T00:00:00Z'],
    // (2024-05 is month 652 since 1970-01; 650 = 2024-03.)
    ['5M', '2024-05-15T00:00:00Z', '2024-03-01T00:00:00Z', '2024-08-01T00:00:00Z'],
    ['5M', '2024-08-01T00:00:00Z', '2024-08-01T00:00:00Z', '2025-01-01T00:00:00Z'],
    // UTC years; 2y on even years, 5y on 1970 + 5k.
    ['1y', '2024-07-01T00:00:00Z', '2024-01-01T00:00:00Z', '2025-01-01T00:00:00Z'],
    ['1y', '2024-12-31T23:59:59Z', '2024-01-01T00:00:00Z', '2025-01-01T00:00:00Z'],
    ['2y', '2025-07-01T00:00:00Z', '2024-01-01T00:00:00Z', '2026-01-01T00:00:00Z'],
    ['5y', '2024-07-01T00:00:00Z', '2020-01-01T00:00:00Z', '2025-01-01T00:00:00Z'],
    ['12M', '2024-07-01T00:00:00Z', '2024-01-01T00:00:00Z', '2025-01-01T00:00:00Z'],
  ];
  it.each(table)('%s: %s → [%s, %s)', (text, t, start, next) => {
    expect(bucketStart(tf(text), at(t))).toBe(at(start));
    expect(nextBucketStart(tf(text), at(start))).toBe(at(next));
    expect(nextBucketStart(tf(text), at(t))).toBe(at(next));
  });

  it('agrees with Date for every day of 1970–2105', () => {
    const month = tf('1M');
    const year = tf('1y');
    const week = tf('1w');
    let mismatches = 0;
    for (let day = 4; day < 49_710; day++) {
      const t = day * 86400 + 43_210;
      const d = new Date(t * 1000);
      const y = d.getUTCFullYear();
      const m = d.getUTCMonth();
      const isoDow = (d.getUTCDay() + 6) % 7; // Monday 0
      if (bucketStart(month, t) !== Date.UTC(y, m, 1) / 1000) mismatches++;
      if (nextBucketStart(month, t) !== Date.UTC(y, m + 1, 1) / 1000) mismatches++;
      if (bucketStart(year, t) !== Date.UTC(y, 0, 1) / 1000) mismatches++;
      if (bucketStart(week, t) !== (day - isoDow) * 86400) mismatches++;
      if (daysFromCivil(y, m + 1, d.getUTCDate()) !== day) mismatches++;
    }
    expect(mismatches).toBe(0);
  });
});
