import { describe, expect, it } from 'bun:test';
import {
  applyFill, averagePriceTicks, FLAT, type Position, positionFromLots, unrealizedTicks,
} from '../../src/engine/positions.ts';

// A fill is 'buy 1@100' / 'sell 3@104'; each row lists fills, then the realized ticks × contracts of
// each fill, the final signed qty, costTicks and average price.
type Row = readonly [name: string, fills: readonly string[], realized: readonly number[], qty: number,
  cost: number, avg: number];

const rows: Row[] = [
  ['open long', ['buy 1@100'], [0], 1, 100, 100],
  ['add to long averages', ['buy 1@100', 'buy 1@101'], [0, 0], 2, 201, 100.5],
  ['sell 3 against long 1 flips to short 2 at the fill price', ['buy 1@100', 'sell 3@104'], [0, 4], -2, -208, 104],
  ['partial close realizes against the oldest lot (FIFO)', ['buy 1@100', 'buy 1@101', 'sell 1@102'], [0, 0, 2],
    1, 101, 101],
  ['close across lots', ['buy 2@100', 'buy 3@110', 'sell 4@120'], [0, 0, 60], 1, 110, 110],
  ['short then cover part', ['sell 2@100', 'buy 1@98'], [0, 2], -1, -100, 100],
  ['short covered at a loss goes flat', ['sell 2@100', 'buy 2@103'], [0, -6], 0, 0, 0],
  ['long three at fractional average', ['buy 1@100', 'buy 1@100', 'buy 1@101'], [0, 0, 0], 3, 301, 301 / 3],
  ['flip short to long through several lots', ['sell 1@100', 'sell 1@102', 'buy 5@99'], [0, 0, 1 + 3], 3, 297, 99],
];

function parse(fill: string): [1 | -1, number, number] {
  const m = /^(buy|sell) (\d+)@(-?\d+)$/.exec(fill);
  if (m === null) throw new Error(`bad fill '${fill}'`);
  return [m[1] === 'buy' ? 1 : -1, Number(m[2]), Number(m[3])];
}

describe('positions: netting', () => {
  it.each(rows)('%s', (_name, fills, realized, qty, cost, avg) => {
    let pos: Position = FLAT;
    const got: number[] = [];
    for (const f of fills) {
      const [sign, size, price] = parse(f);
      const effect = applyFill(pos, sign, size, price);
      expect(effect.closedQty + effect.openedQty).toBe(size);
      got.push(effect.realizedTicks);
      pos = effect.position;
    }
    expect(got).toEqual([...realized]);
    expect([pos.qty, pos.costTicks, averagePriceTicks(pos)]).toEqual([qty, cost, avg]);
  });

  it('reports what a flipping fill closed and opened', () => {
    const long1 = applyFill(FLAT, 1, 1, 100).position;
    const flip = applyFill(long1, -1, 3, 104);
    expect([flip.closedQty, flip.openedQty, flip.realizedTicks]).toEqual([1, 2, 4]);
    expect(flip.position.lots).toEqual([{ size: 2, priceTicks: 104 }]);
  });

  it('does not mutate the position it is given', () => {
    const pos = applyFill(FLAT, 1, 2, 100).position;
    applyFill(pos, -1, 1, 110);
    expect(pos).toEqual({ qty: 2, costTicks: 200, lots: [{ size: 2, priceTicks: 100 }] });
  });

  it.each([
    ['long 2@100', 103, 6, [['buy', 2, 100]]],
    ['short 2@100', 103, -6, [['sell', 2, 100]]],
    ['long 1@100 + 1@101', 100, -1, [['buy', 1, 100], ['buy', 1, 101]]],
  ] as const)('unrealized ticks of %s at %p → %p', (_label, mark, expected, fills) => {
    let pos: Position = FLAT;
    for (const [side, size, price] of fills) pos = applyFill(pos, side === 'buy' ? 1 : -1, size, price).position;
    expect(unrealizedTicks(pos, mark)).toBe(expected);
  });

  it('rebuilds a position from its lots', () => {
    expect(positionFromLots([{ size: 1, priceTicks: 100 }, { size: 2, priceTicks: 103 }], -1)).toEqual({
      qty: -3, costTicks: -306, lots: [{ size: 1, priceTicks: 100 }, { size: 2, priceTicks: 103 }],
    });
  });

  it.each([[0, 100], [1.5, 100], [1, 100.5]])('rejects size %p at price %p as a bug', (size, price) => {
    expect(() => applyFill(FLAT, 1, size, price)).toThrow();
  });
});
