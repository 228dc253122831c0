// Where the chart's order chips go. Each chip sits on its order's price line, just left of the price
// scale; chips whose lines are closer than a chip's height (orders at one price, or a tick apart)
// would cover each other, so they form a cluster laid out in a row leftwards from the scale, each
// still at its own height: every chip stays readable and its × stays clickable.

export interface ChipAt<K> {
  key: K;
  /** The price line's y in the pane, px. */
  y: number;
}

export interface ChipCluster<K> {
  /** The top of the cluster's highest chip, px. */
  top: number;
  /** Left to right as drawn: the last is nearest the price scale. Each chip's offset below `top`. */
  chips: { key: K; dy: number }[];
}

/** Chips grouped so no two overlap; `heightPx` is a chip's height (centred on its line). */
export function chipClusters<K>(chips: readonly ChipAt<K>[], heightPx: number): ChipCluster<K>[] {
  const sorted = [...chips].sort((a, b) => a.y - b.y);
  const groups: ChipAt<K>[][] = [];
  for (const c of sorted) {
    const g = groups[groups.length - 1];
    if (g && c.y - g[g.length - 1].y < heightPx) g.push(c);
    else groups.push([c]);
  }
  return groups.map((g) => {
    const top = g[0].y - heightPx / 2;
    // The highest price's chip stays next to the scale; lower ones step left.
    return { top, chips: g.map((c) => ({ key: c.key, dy: c.y - heightPx / 2 - top })).reverse() };
  });
}
