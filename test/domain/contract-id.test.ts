import { describe, expect, it } from 'bun:test';
import { contractIdFor, frontMonth, instrumentForContractId, thirdFriday } from '../../src/domain/contract-id.ts';
import { findInstrument } from '../../src/domain/instrument.ts';

const at = (iso: string) => Date.parse(`${iso}T12:00:00Z`);
const id = (sym: string, iso: string) => contractIdFor(findInstrument(sym)!, at(iso));

describe('third Friday', () => {
  it.each([
    [2024, 3, '2024-03-15'],
    [2024, 6, '2024-06-21'],
    [2025, 3, '2025-03-21'],
    [2025, 12, '2025-12-19'],
    [2026, 9, '2026-09-18'],
  ])('%i-%i → %s', (y, m, expected) => {
    expect(new Date(thirdFriday(y, m) * 86_400_000).toISOString().slice(0, 10)).toBe(expected);
  });
});

describe('equity index front month: roll 8 days before the third-Friday expiry', () => {
  it.each([
    ['2024-01-02', 'CON.F.US.ENQ.H24'],
    ['2024-03-06', 'CON.F.US.ENQ.H24'], // day before roll (roll = 2024-03-07)
    ['2024-03-07', 'CON.F.US.ENQ.M24'],
    ['2024-06-12', 'CON.F.US.ENQ.M24'],
    ['2024-06-13', 'CON.F.US.ENQ.U24'],
    ['2024-09-11', 'CON.F.US.ENQ.U24'],
    ['2024-09-12', 'CON.F.US.ENQ.Z24'],
    ['2024-12-11', 'CON.F.US.ENQ.Z24'],
    ['2024-12-12', 'CON.F.US.ENQ.H25'],
    ['2025-03-12', 'CON.F.US.ENQ.H25'],
    ['2025-03-13', 'CON.F.US.ENQ.M25'],
    ['2025-12-11', 'CON.F.US.ENQ.H26'],
    ['2026-11-21', 'CON.F.US.ENQ.Z26'],
    ['2026-12-10', 'CON.F.US.ENQ.H27'],
  ])('NQ on %s → %s', (date, expected) => {
    expect(id('NQ', date)).toBe(expected);
  });

  it('ES, MNQ and MES use their exchange symbols and the same calendar', () => {
    expect(id('ES', '2025-06-01')).toBe('CON.F.US.EP.M25');
    expect(id('MNQ', '2025-06-01')).toBe('CON.F.US.MNQ.M25');
    expect(id('MES', '2025-06-12')).toBe('CON.F.US.MES.U25');
  });
});

describe('gold: active months G J M Q Z, roll 3 business days before first notice', () => {
  it.each([
    ['2024-01-02', 'CON.F.US.GCE.G24'],
    ['2024-01-26', 'CON.F.US.GCE.J24'], // FND 2024-01-31, roll 2024-01-26
    ['2024-01-25', 'CON.F.US.GCE.G24'],
    ['2024-05-01', 'CON.F.US.GCE.M24'],
    ['2024-07-20', 'CON.F.US.GCE.Q24'],
    ['2024-09-15', 'CON.F.US.GCE.Z24'], // no V: October is not an active month
    ['2024-11-26', 'CON.F.US.GCE.G25'], // FND 2024-11-29, roll 2024-11-26
    ['2024-11-25', 'CON.F.US.GCE.Z24'],
  ])('GC on %s → %s', (date, expected) => {
    expect(id('GC', date)).toBe(expected);
  });
});

describe('crude (LIGHTCMDUSD): monthly, roll 5 business days before last trade', () => {
  it.each([
    ['2025-03-03', 'CON.F.US.LIGHTCMDUSD.J25'],
    ['2025-03-13', 'CON.F.US.LIGHTCMDUSD.K25'], // J25 last trade 2025-03-20 → roll 2025-03-13
    ['2025-12-31', 'CON.F.US.LIGHTCMDUSD.G26'],
  ])('on %s → %s', (date, expected) => {
    expect(id('LIGHTCMDUSD', date)).toBe(expected);
  });
});

describe('EURUSD spot: the calendar month', () => {
  it.each([
    ['2024-01-31', 'CON.F.US.EURUSD.F24'],
    ['2024-02-01', 'CON.F.US.EURUSD.G24'],
    ['2025-12-15', 'CON.F.US.EURUSD.Z25'],
  ])('on %s → %s', (date, expected) => {
    expect(id('EURUSD', date)).toBe(expected);
  });
});

it('front month is monotonic over three years of days for every symbol', () => {
  for (const sym of ['NQ', 'GC', 'LIGHTCMDUSD', 'EURUSD']) {
    let prev = -1;
    for (let d = Date.parse('2024-01-01'); d < Date.parse('2027-01-01'); d += 86_400_000) {
      const c = frontMonth(findInstrument(sym)!, d);
      const key = c.year * 12 + c.month;
      expect(key).toBeGreaterThanOrEqual(prev);
      prev = key;
    }
  }
});

describe('received contract IDs match on the symbol only', () => {
  it.each([
    ['CON.F.US.ENQ.H25', 'NQ'],
    ['CON.F.US.ENQ.Z99', 'NQ'],
    ['CON.F.US.EP.U25', 'ES'],
    ['con.f.us.gce.z25', 'GC'],
    ['CON.F.US.NQ.H25', 'NQ'],
    ['F.US.MES', 'MES'],
    ['NQ', 'NQ'],
    ['CON.F.US.EURUSD', 'EURUSD'],
  ])('%s → %s', (text, sym) => {
    expect(instrumentForContractId(text)?.symbol).toBe(sym);
  });

  it.each([['CON.F.US.CLE.Z25'], ['CON.F.US.XYZ.H25'], [''], ['CON.F.US..H25']])('%p → not found', (text) => {
    expect(instrumentForContractId(text)).toBeUndefined();
  });
});
