import { describe, expect, it } from 'bun:test';
import type { SessionKind } from '../../src/domain/instrument.ts';
import { daysFromCivil } from '../../src/domain/timeframe.ts';
import {
  chicagoOffsetS,
  isMarketOpen,
  lastCompletedTradingDay,
  newYorkOffsetS,
  nextTradeDateStartS,
  openIntervalsForUtcDay,
  tradeDate,
  tradeDateEndS,
  tradeDateStartS,
  tradeDateString,
  weekdayOf,
} from '../../src/domain/trading-hours.ts';

const s = (iso: string): number => Date.parse(iso) / 1000;
const day = (iso: string): number => Date.parse(`${iso}T00:00:00Z`) / 86_400_000;

describe('UTC offsets (US DST since 2007)', () => {
  it.each([
    // [instant, Chicago, New York]
    ['2024-01-15T12:00:00Z', -21600, -18000],
    ['2024-07-01T12:00:00Z', -18000, -14400],
    ['2024-03-10T06:59:59Z', -21600, -18000],
    ['2024-03-10T07:00:00Z', -21600, -14400], // New York springs forward at 02:00 EST
    ['2024-03-10T07:59:59Z', -21600, -14400],
    ['2024-03-10T08:00:00Z', -18000, -14400], // Chicago springs forward at 02:00 CST
    ['2024-11-03T05:59:59Z', -18000, -14400],
    ['2024-11-03T06:00:00Z', -18000, -18000], // New York falls back at 02:00 EDT
    ['2024-11-03T06:59:59Z', -18000, -18000],
    ['2024-11-03T07:00:00Z', -21600, -18000], // Chicago falls back at 02:00 CDT
    ['2025-03-09T06:59:59Z', -21600, -18000],
    ['2025-03-09T07:00:00Z', -21600, -14400],
    ['2025-03-09T08:00:00Z', -18000, -14400],
    ['2025-11-02T05:59:59Z', -18000, -14400],
    ['2025-11-02T06:00:00Z', -18000, -18000],
    ['2025-11-02T07:00:00Z', -21600, -18000],
    ['2024-12-31T23:59:59Z', -21600, -18000],
    ['2025-01-01T00:00:00Z', -21600, -18000],
  ])('%s → Chicago %d, New York %d', (iso, chicago, newYork) => {
    expect(chicagoOffsetS(s(iso))).toBe(chicago);
    expect(newYorkOffsetS(s(iso))).toBe(newYork);
  });

  it('agrees with the runtime time-zone database every 5 hours from 2007 to 2035', () => {
    const offsetOf = (fmt: Intl.DateTimeFormat, t: number): number => {
      const p = Object.fromEntries(fmt.formatToParts(new Date(t * 1000)).map((x) => [x.type, x.value]));
      const local = Date.UTC(+p.year, +p.month - 1, +p.day, +p.hour % 24, +p.minute, +p.second) / 1000;
      return local - t;
    };
    const opts = {
      hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric',
      second: 'numeric',
    } as const;
    const chi = new Intl.DateTimeFormat('en-US', { ...opts, timeZone: 'America/Chicago' });
    const ny = new Intl.DateTimeFormat('en-US', { ...opts, timeZone: 'America/New_York' });
    let mismatches = 0;
    for (let t = s('2007-01-01T00:00:00Z'); t < s('2035-01-01T00:00:00Z'); t += 5 * 3600) {
      if (chicagoOffsetS(t) !== offsetOf(chi, t)) mismatches++;
      if (newYorkOffsetS(t) !== offsetOf(ny, t)) mismatches++;
    }
    expect(mismatches).toBe(0);
  });
});

describe('isMarketOpen', () => {
  it.each([
    ['cme_globex', '2024-01-07T22:59:59Z', false], // Sunday 16:59:59 CST
    ['cme_globex', '2024-01-07T23:00:00Z', true], // Sunday 17:00 CST: the week opens
    ['cme_globex', '2024-03-10T21:59:59Z', false], // DST Sunday 16:59:59 CDT
    ['cme_globex', '2024-03-10T22:00:00Z', true], // DST Sunday 17:00 CDT
    ['cme_globex', '2024-11-03T22:00:00Z', false], // fall-back Sunday 16:00 CST
    ['cme_globex', '2024-11-03T23:00:00Z', true],
    ['cme_globex', '2024-01-09T21:59:59Z', true], // Tuesday 15:59:59 CST
    ['cme_globex', '2024-01-09T22:00:00Z', false], // daily halt 16:00 CST
    ['cme_globex', '2024-01-09T22:59:59Z', false],
    ['cme_globex', '2024-01-09T23:00:00Z', true],
    ['cme_globex', '2024-07-09T20:59:59Z', true], // summer: 15:59:59 CDT
    ['cme_globex', '2024-07-09T21:00:00Z', false], // summer halt 16:00 CDT
    ['cme_globex', '2024-07-09T22:00:00Z', true],
    ['cme_globex', '2024-01-12T21:59:59Z', true], // Friday 15:59:59 CST
    ['cme_globex', '2024-01-12T22:00:00Z', false], // Friday close
    ['cme_globex', '2024-01-12T23:00:00Z', false], // no Friday evening session
    ['cme_globex', '2024-07-12T21:00:00Z', false],
    ['cme_globex', '2024-01-13T12:00:00Z', false], // Saturday
    ['cme_globex', '2024-01-14T03:00:00Z', false], // Saturday evening in Chicago
    ['cme_globex', '2024-01-10T05:00:00Z', true], // Tuesday night in Chicago
    ['fx_24x5', '2024-01-07T21:59:59Z', false], // Sunday 16:59:59 EST
    ['fx_24x5', '2024-01-07T22:00:00Z', true], // Sunday 17:00 EST
    ['fx_24x5', '2024-07-07T21:00:00Z', true], // Sunday 17:00 EDT
    ['fx_24x5', '2024-07-07T20:59:59Z', false],
    ['fx_24x5', '2024-01-09T22:30:00Z', true], // no daily halt
    ['fx_24x5', '2024-01-12T21:59:59Z', true], // Friday 16:59:59 EST
    ['fx_24x5', '2024-01-12T22:00:00Z', false], // Friday 17:00 EST
    ['fx_24x5', '2024-07-12T21:00:00Z', false], // Friday 17:00 EDT
    ['fx_24x5', '2024-01-13T12:00:00Z', false],
  ] as Array<[SessionKind, string, boolean]>)('%s at %s → %p', (session, iso, open) => {
    expect(isMarketOpen(session, s(iso))).toBe(open);
  });
});

describe('trade dates', () => {
  it.each([
    ['cme_globex', '2024-01-07T23:00:00Z', '2024-01-08'], // Sunday evening counts for Monday
    ['cme_globex', '2024-01-08T21:59:59Z', '2024-01-08'],
    ['cme_globex', '2024-01-08T22:30:00Z', '2024-01-08'], // the halt belongs to the day that closed
    ['cme_globex', '2024-01-08T23:00:00Z', '2024-01-09'], // 17:00 CST starts the next trade date
    ['cme_globex', '2024-03-10T22:00:00Z', '2024-03-11'], // 17:00 CDT on the DST Sunday
    ['cme_globex', '2024-03-11T21:59:59Z', '2024-03-11'],
    ['cme_globex', '2024-03-11T22:00:00Z', '2024-03-12'], // boundary moved to 22:00 UTC
    ['cme_globex', '2024-11-03T22:59:59Z', '2024-11-01'], // weekend belongs to Friday
    ['cme_globex', '2024-11-03T23:00:00Z', '2024-11-04'],
    ['cme_globex', '2024-11-04T22:59:59Z', '2024-11-04'],
    ['cme_globex', '2024-11-04T23:00:00Z', '2024-11-05'],
    ['cme_globex', '2024-03-08T23:30:00Z', '2024-03-08'], // Friday evening: closed, still Friday
    ['cme_globex', '2024-03-09T12:00:00Z', '2024-03-08'], // Saturday
    ['fx_24x5', '2024-01-07T22:00:00Z', '2024-01-08'],
    ['fx_24x5', '2024-01-09T21:59:59Z', '2024-01-09'],
    ['fx_24x5', '2024-01-09T22:00:00Z', '2024-01-10'],
    ['fx_24x5', '2024-07-09T21:00:00Z', '2024-07-10'],
  ] as Array<[SessionKind, string, string]>)('%s at %s → %s', (session, iso, date) => {
    expect(tradeDateString(tradeDate(session, s(iso)))).toBe(date);
  });

  it.each([
    ['cme_globex', '2024-01-09', '2024-01-08T23:00:00Z', '2024-01-09T22:00:00Z'],
    ['cme_globex', '2024-01-08', '2024-01-07T23:00:00Z', '2024-01-08T22:00:00Z'],
    ['cme_globex', '2024-03-11', '2024-03-10T22:00:00Z', '2024-03-11T21:00:00Z'],
    ['cme_globex', '2024-11-04', '2024-11-03T23:00:00Z', '2024-11-04T22:00:00Z'],
    ['cme_globex', '2025-03-10', '2025-03-09T22:00:00Z', '2025-03-10T21:00:00Z'],
    ['fx_24x5', '2024-07-09', '2024-07-08T21:00:00Z', '2024-07-09T21:00:00Z'],
    ['fx_24x5', '2024-01-12', '2024-01-11T22:00:00Z', '2024-01-12T22:00:00Z'],
  ] as Array<[SessionKind, string, string, string]>)('%s %s runs %s – %s', (session, date, start, end) => {
    expect(tradeDateStartS(session, day(date))).toBe(s(start));
    expect(tradeDateEndS(session, day(date))).toBe(s(end));
  });

  it.each([
    ['cme_globex', '2024-03-08T15:00:00Z', '2024-03-10T22:00:00Z'], // Friday → Sunday after DST
    ['cme_globex', '2024-03-10T22:00:00Z', '2024-03-11T22:00:00Z'], // strictly after
    ['cme_globex', '2024-03-10T21:59:59Z', '2024-03-10T22:00:00Z'],
    ['cme_globex', '2024-11-01T21:30:00Z', '2024-11-03T23:00:00Z'], // Friday → Sunday after fall-back
    ['fx_24x5', '2024-01-10T12:00:00Z', '2024-01-10T22:00:00Z'],
  ] as Array<[SessionKind, string, string]>)('%s next boundary after %s is %s', (session, iso, next) => {
    expect(nextTradeDateStartS(session, s(iso))).toBe(s(next));
  });

  it('changes trade date exactly at each boundary, and only to a weekday', () => {
    for (const session of ['cme_globex', 'fx_24x5'] as const) {
      let t = s('2024-01-01T00:00:00Z');
      const end = s('2026-01-01T00:00:00Z');
      while (t < end) {
        const d = tradeDate(session, t);
        const next = nextTradeDateStartS(session, t);
        expect(next).toBeGreaterThan(t);
        expect(tradeDate(session, next - 1)).toBe(d);
        expect(tradeDate(session, next)).not.toBe(d);
        expect([1, 2, 3, 4, 5]).toContain(weekdayOf(tradeDate(session, next)));
        t = next;
      }
    }
  });

  it('formats day numbers as YYYY-MM-DD', () => {
    expect(tradeDateString(0)).toBe('1970-01-01');
    expect(tradeDateString(19_723)).toBe('2024-01-01');
    expect(tradeDateString(daysFromCivil(2024, 2, 29))).toBe('2024-02-29');
    expect(tradeDateString(daysFromCivil(2100, 12, 31))).toBe('2100-12-31');
  });
});

describe('openIntervalsForUtcDay', () => {
  it.each([
    ['cme_globex', '2024-01-08', [['00:00', '22:00'], ['23:00', '24:00']]], // Monday, CST
    ['cme_globex', '2024-03-08', [['00:00', '22:00']]], // Friday, CST
    ['cme_globex', '2024-03-09', []], // Saturday
    ['cme_globex', '2024-03-10', [['22:00', '24:00']]], // Sunday of spring-forward
    ['cme_globex', '2024-03-11', [['00:00', '21:00'], ['22:00', '24:00']]], // Monday, CDT
    ['cme_globex', '2024-11-03', [['23:00', '24:00']]], // Sunday of fall-back
    ['fx_24x5', '2024-01-07', [['22:00', '24:00']]],
    ['fx_24x5', '2024-01-08', [['00:00', '24:00']]],
    ['fx_24x5', '2024-01-12', [['00:00', '22:00']]],
    ['fx_24x5', '2024-07-12', [['00:00', '21:00']]],
  ] as Array<[SessionKind, string, string[][]]>)('%s %s', (session, date, hours) => {
    const base = day(date) * 86_400;
    const hm = (x: string): number => base + Number(x.slice(0, 2)) * 3600 + Number(x.slice(3)) * 60;
    expect(openIntervalsForUtcDay(session, day(date))).toEqual(hours.map(([a, b]) => [hm(a), hm(b)]));
  });

  it('covers exactly the open seconds (checked every 5 minutes for two years)', () => {
    for (const session of ['cme_globex', 'fx_24x5'] as const) {
      let wrong = 0;
      for (let d = day('2024-01-01'); d < day('2026-01-01'); d++) {
        const intervals = openIntervalsForUtcDay(session, d);
        for (let t = d * 86_400; t < (d + 1) * 86_400; t += 300) {
          const inside = intervals.some(([a, b]) => t >= a && t < b);
          if (inside !== isMarketOpen(session, t)) wrong++;
        }
      }
      expect(wrong).toBe(0);
    }
  });
});

describe('lastCompletedTradingDay', () => {
  it.each([
    ['cme_globex', '2024-01-09T15:00:00Z', '2024-01-08'], // Tuesday midday
    ['cme_globex', '2024-01-09T21:59:59Z', '2024-01-08'],
    ['cme_globex', '2024-01-09T22:00:00Z', '2024-01-09'], // 16:00 CST: Tuesday is done
    ['cme_globex', '2024-01-13T12:00:00Z', '2024-01-12'], // Saturday
    ['cme_globex', '2024-01-08T10:00:00Z', '2024-01-05'], // Monday morning → Friday
    ['cme_globex', '2024-01-07T23:30:00Z', '2024-01-05'], // Sunday evening → Friday
    ['fx_24x5', '2024-01-12T21:59:59Z', '2024-01-11'],
    ['fx_24x5', '2024-01-12T22:00:00Z', '2024-01-12'],
  ] as Array<[SessionKind, string, string]>)('%s at %s → %s', (session, iso, date) => {
    expect(tradeDateString(lastCompletedTradingDay(session, s(iso)))).toBe(date);
  });
});
