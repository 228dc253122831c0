// The risk/reward tool's rules (risk-reward.ts holds its state): the box's ticks, dollars and R:R,
// the bracketed order it places, and a dragged point kept on its side of the entry.

import { onTick, type TicketOrder } from './chart-rules.ts';

export type RrSide = 'long' | 'short';
export type RrPoint = 'entry' | 'stop' | 'target';

export interface RrBox {
  side: RrSide;
  /** The bar the box starts at (epoch seconds); it extends right. */
  t: number;
  entry: number;
  stop: number;
  target: number;
}

export interface RrFigures {
  stopTicks: number;
  targetTicks: number;
  /** Dollars at risk and to gain at the ticket's size. */
  risk: number;
  reward: number;
  /** Reward over risk. */
  rr: number;
  size: number;
}


export interface RrContract {
  tickSize: number;
  tickValue: number;
}

/** The box's ticks, dollars and R:R at `size` contracts. */
export function figuresOf(b: RrBox, c: RrContract, size: number): RrFigures {
  const ticks = (a: number, z: number) => Math.round(Math.abs(a - z) / c.tickSize);
  const [stopTicks, targetTicks] = [ticks(b.entry, b.stop), ticks(b.target, b.entry)];
  // Integer cents, as money is kept: a tick's value is a whole number of cents.
  const dollars = (n: number) => (Math.round(n * c.tickValue * 100) * size) / 100;
  return { stopTicks, targetTicks, risk: dollars(stopTicks), reward: dollars(targetTicks), rr: stopTicks === 0 ? 0 : targetTicks / stopTicks, size };
}

/** The bracketed order for the box: a limit at the entry on the better side of the last price, a stop on the other. */
export function rrOrder(b: RrBox, f: RrFigures, lastPrice: number | null): TicketOrder {
  const buy = b.side === 'long';
  const better = lastPrice === null || (buy ? b.entry <= lastPrice : b.entry >= lastPrice);
  return {
    side: buy ? 0 : 1,
    type: better ? 1 : 4,
    size: f.size,
    limitPrice: better ? b.entry : null,
    stopPrice: better ? null : b.entry,
    slTicks: f.stopTicks,
    tpTicks: f.targetTicks,
  };
}

/** `box` with `which` at `price`, kept on its side of the entry (the entry keeps the others' distances). */
export function withPoint(box: RrBox, which: RrPoint, price: number, tickSize: number): RrBox {
  const up = box.side === 'long' ? 1 : -1;
  if (which === 'entry') return { ...box, entry: price, stop: onTick(price - (box.entry - box.stop), tickSize), target: onTick(price + (box.target - box.entry), tickSize) };
  const limit = onTick(box.entry + (which === 'target' ? up : -up) * tickSize, tickSize);
  const kept = which === 'target' ? (up > 0 ? Math.max(price, limit) : Math.min(price, limit)) : up > 0 ? Math.min(price, limit) : Math.max(price, limit);
  return { ...box, [which]: kept };
}
