// priceToTicks: a client price on the instrument's grid becomes whole ticks; float noise is tolerated,
// a price between two ticks (however close to one, however small) is off the grid.
import { describe, expect, it } from 'bun:test';
import { findInstrument, priceToTicks } from '../../src/domain/instrument.ts';

const NQ = findInstrument('NQ')!;
const EURUSD = findInstrument('EURUSD')!;

describe('priceToTicks', () => {
  it.each([
    ['NQ', NQ, 20000.25, 80001],
    ['NQ with float noise', NQ, 4500.2500000001, 18001],
    ['NQ 0 (the engine refuses it; the grid does not)', NQ, 0, 0],
    ['NQ one tick', NQ, 0.25, 1],
    ['NQ a negative price on the grid', NQ, -0.5, -2],
    ['EURUSD', EURUSD, 1.08125, 108125],
    ['EURUSD summed in floats', EURUSD, 1.1 + 0.00002, 110002],
  ] as const)('%s: %p → %p ticks', (_n, inst, price, ticks) => {
    expect(priceToTicks(inst, price)).toBe(ticks);
  });

  it.each([
    ['1e-9 is not rounded to 0', NQ, 1e-9],
    ['-1e-9 is not rounded to 0', NQ, -1e-9],
    ['a millionth of a tick above 0.25, on a small price', NQ, 0.25 + 1e-8],
    ['between two ticks', NQ, 20000.1],
    ['EURUSD 1e-12', EURUSD, 1e-12],
    ['NaN', NQ, Number.NaN],
    ['Infinity', NQ, Number.POSITIVE_INFINITY],
  ] as const)('%s → off the grid', (_n, inst, price) => {
    expect(priceToTicks(inst, price)).toBeUndefined();
  });
});
