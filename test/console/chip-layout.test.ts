// The chart's order chips: chips closer than their height form one row, each at its own height.
import { describe, expect, it } from 'bun:test';
import { chipClusters } from '../../src/console/pages/desk/chip-layout.ts';

describe('chipClusters', () => {
  it('keeps far-apart chips alone, centred on their lines', () => {
    expect(chipClusters([{ key: 'a', y: 100 }, { key: 'b', y: 200 }], 22)).toEqual([
      { top: 89, chips: [{ key: 'a', dy: 0 }] },
      { top: 189, chips: [{ key: 'b', dy: 0 }] },
    ]);
  });

  it('puts chips at one price, or closer than a chip, in one row: the highest nearest the scale', () => {
    const r = chipClusters([{ key: 'low', y: 110 }, { key: 'same1', y: 100 }, { key: 'same2', y: 100 }, { key: 'far', y: 300 }], 22);
    expect(r).toEqual([
      { top: 89, chips: [{ key: 'low', dy: 10 }, { key: 'same2', dy: 0 }, { key: 'same1', dy: 0 }] },
      { top: 289, chips: [{ key: 'far', dy: 0 }] },
    ]);
  });

  it('chains: each chip joins the row when it is within a chip of the previous one', () => {
    const r = chipClusters([10, 25, 40, 62].map((y) => ({ key: y, y })), 22);
    expect(r.map((c) => c.chips.map((x) => x.key))).toEqual([[40, 25, 10], [62]]);
  });
});
