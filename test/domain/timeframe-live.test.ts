// The live gateway's History units 5 (week) and 6 (month), accepted when the caller asks for them
// (the live profile): ISO weeks and UTC months as Replay's `w` and `M`; 1 week and 1 month are
// presets; counts up to Replay's calendar bounds; refused as before otherwise.
import { describe, expect, it } from 'bun:test';
import { BarUnit, bucketStart, historyScanWindowS, timeframeFromUnit } from '../../src/domain/timeframe.ts';

const SCAN = { historyScanSecondMinuteDays: 30, historyScanHourDays: 120, historyScanDayDays: 365, historyScanWeekDays: 728, historyScanMonthDays: 1826 };

function live(unit: unknown, unitNumber: unknown, customEnabled = false, storedResolutionS = 1, calendarUnits = true): string {
  const r = timeframeFromUnit(unit, unitNumber, { customEnabled, storedResolutionS, scanLimits: SCAN, calendarUnits });
  return r.ok ? `${r.value.text} ${r.value.kind}` : `!${r.error.kind}`;
}

describe('History units 5 and 6 under the live profile', () => {
  // unit, unitNumber, switch off, switch on
  const table: [unknown, unknown, string, string][] = [
    [BarUnit.Week, 1, '1w calendar', '1w calendar'],
    [BarUnit.Month, 1, '1M calendar', '1M calendar'],
    [BarUnit.Week, 2, '!custom_disabled', '2w calendar'],
    [BarUnit.Month, 3, '!custom_disabled', '3M calendar'],
    [BarUnit.Month, 12, '!custom_disabled', '1y calendar'],
    [BarUnit.Week, 52, '!custom_disabled', '52w calendar'],
    [BarUnit.Week, 53, '!unit_number_invalid', '!unit_number_invalid'],
    [BarUnit.Month, 13, '!unit_number_invalid', '!unit_number_invalid'],
    [BarUnit.Week, 0, '!unit_number_invalid', '!unit_number_invalid'],
    [BarUnit.Month, 1.5, '!unit_number_invalid', '!unit_number_invalid'],
    [BarUnit.Month, undefined, '!unit_number_invalid', '!unit_number_invalid'],
  ];
  it.each(table)('unit %p × %p → off %s, on %s', (unit, n, off, on) => {
    expect(live(unit, n, false)).toBe(off);
    expect(live(unit, n, true)).toBe(on);
  });

  it('calendar bars need stored bars that tile a day; the other units are the spec\'s; unless asked for, weeks and months are refused as before', () => {
    expect(live(BarUnit.Week, 1, false, 10)).toBe('1w calendar');
    expect(live(BarUnit.Month, 1, false, 7)).toBe('!incompatible_resolution');
    expect([live(BarUnit.Minute, 5), live(BarUnit.Day, 7), live(BarUnit.Day, 7, true), live(7, 1)]).toEqual(['5m fixed', '!custom_disabled', '7d fixed', '!unit_invalid']);
    expect(live(BarUnit.Week, 1, true, 1, false)).toBe('!unit_invalid');
    expect(live(BarUnit.Month, 1, true, 1, false)).toBe('!unit_invalid');
  });

  it('scan two years of weeks and five of months', () => {
    expect([5, 6].map((u) => historyScanWindowS(u, SCAN) / 86400)).toEqual([728, 1826]);
  });

  it('buckets are ISO weeks (Monday) and UTC months', () => {
    const week = timeframeFromUnit(BarUnit.Week, 1, { customEnabled: false, storedResolutionS: 1, scanLimits: SCAN, calendarUnits: true });
    const month = timeframeFromUnit(BarUnit.Month, 1, { customEnabled: false, storedResolutionS: 1, scanLimits: SCAN, calendarUnits: true });
    if (!week.ok || !month.ok) throw new Error('timeframes');
    const t = Date.parse('2025-03-05T15:00:00Z') / 1000;
    expect(new Date(bucketStart(week.value, t) * 1000).toISOString()).toBe('2025-03-03T00:00:00.000Z');
    expect(new Date(bucketStart(month.value, t) * 1000).toISOString()).toBe('2025-03-01T00:00:00.000Z');
  });
});
