// The earlier family's instrument table (src/domain/legacy-instruments.ts).
import { describe, expect, it } from 'bun:test';
import { findInstrument } from '../../src/domain/instrument.ts';
import {
  baseTicksToLegacyPrice, findLegacyInstrument, LEGACY_INSTRUMENTS, legacyInstrumentForContractId, legacyPriceToBaseTicks,
} from '../../src/domain/legacy-instruments.ts';

describe('legacy instruments', () => {
  it('lists CL on the oil history and EURUSD on a coarser tick, with tick sizes, values and multipliers', () => {
    expect(LEGACY_INSTRUMENTS.map((l) => [l.symbol, l.base.symbol, l.tickSize, l.tickValueCents / 100, l.contractSize])).toEqual([
      ['NQ', 'NQ', 0.25, 5, 20],
      ['ES', 'ES', 0.25, 12.5, 50],
      ['MNQ', 'MNQ', 0.25, 0.5, 2],
      ['MES', 'MES', 0.25, 1.25, 5],
      ['GC', 'GC', 0.1, 10, 100],
      ['CL', 'LIGHTCMDUSD', 0.01, 10, 1000],
      ['EURUSD', 'EURUSD', 0.00005, 5, 100000],
    ]);
  });

  it('P&L per price unit is the same as the base instrument\'s', () => {
    for (const l of LEGACY_INSTRUMENTS) {
      const base = findInstrument(l.base.symbol)!;
      expect((l.tickValueCents / l.tickSize)).toBeCloseTo(base.tickValueCents / base.tickSize, 6);
    }
  });

  it('finds by symbol and by contract ID (month ignored)', () => {
    expect(findLegacyInstrument('cl')?.base.symbol).toBe('LIGHTCMDUSD');
    expect(findLegacyInstrument('LIGHTCMDUSD')).toBeUndefined();
    expect(legacyInstrumentForContractId('CON.F.US.CL.Z26')?.symbol).toBe('CL');
    expect(legacyInstrumentForContractId('CON.F.US.EURUSD.X26')?.baseTicksPerTick).toBe(5);
    expect(legacyInstrumentForContractId('F.US.CL')).toBeUndefined();
  });

  it('order prices must sit on the family\'s grid; base ticks convert back exactly', () => {
    const eur = findLegacyInstrument('EURUSD')!;
    expect(legacyPriceToBaseTicks(eur, 1.08125)).toBe(108_125);
    expect(legacyPriceToBaseTicks(eur, 1.08123)).toBeUndefined();
    expect(legacyPriceToBaseTicks(eur, Number.NaN)).toBeUndefined();
    expect(baseTicksToLegacyPrice(eur, 108_123)).toBe(1.08123);
    const cl = findLegacyInstrument('CL')!;
    expect(legacyPriceToBaseTicks(cl, 71.7)).toBe(7170);
    expect(legacyPriceToBaseTicks(cl, 71.705)).toBeUndefined();
    expect(baseTicksToLegacyPrice(cl, 7170)).toBe(71.7);
  });
});
