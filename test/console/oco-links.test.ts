// The desk's memory of one-cancels-other links between manual orders (src/console/pages/desk/oco-links.ts).
import { describe, expect, it } from 'bun:test';
import { linked, partners, pruned } from '../../src/console/pages/desk/oco-links.ts';

describe('OCO links the desk asked for', () => {
  it('a new order joins the group of the order it links to', () => {
    const a = linked({}, 8, 7);
    expect(a).toEqual({ '7': 7, '8': 7 });
    const b = linked(a, 9, 8);
    expect(b).toEqual({ '7': 7, '8': 7, '9': 7 });
    expect(partners(b, 8, [7, 8, 9, 10])).toEqual([7, 9]);
    expect(partners(b, 10, [7, 8, 9, 10])).toEqual([]);
  });

  it('only working orders stay in a group; a group of one shows no partner', () => {
    const l = linked({}, 8, 7);
    expect(pruned(l, [7, 8])).toBe(l);
    expect(pruned(l, [8])).toEqual({ '8': 7 });
    expect(partners(pruned(l, [8]), 8, [8])).toEqual([]);
  });
});
