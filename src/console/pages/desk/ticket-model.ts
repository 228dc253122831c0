// The order ticket's state and what it makes: the type, the size, the prices, the trail and the
// bracket distances the trader set, read by the ticket's Buy/Sell buttons and by the B/S keys alike,
// so a hotkey order carries the same stop-loss (trailing or not) and take-profit as the button beside it.

import { useState } from 'preact/hooks';
import type { TicketOrder } from './chart-rules.ts';

export type { TicketOrder };

export interface TicketModel {
  type: number;
  size: number;
  setSize(n: number): void;
  limit: string;
  setLimit(v: string): void;
  stop: string;
  setStop(v: string): void;
  /** A Trailing stop's trail in ticks. */
  trail: string;
  setTrail(v: string): void;
  sl: string;
  setSl(v: string): void;
  /** The stop-loss bracket trails (its ticks are the trail). */
  slTrailing: boolean;
  setSlTrailing(b: boolean): void;
  tp: string;
  setTp(v: string): void;
  needsLimit: boolean;
  needsStop: boolean;
  needsTrail: boolean;
  /** Chooses an order type; its price fields start at the last price. */
  choose(type: number, lastPrice: number | null, decimals: number): void;
  /** The ticket's order on one side (the Buy and Sell buttons). */
  order(side: 0 | 1): TicketOrder;
  /** A market order of the ticket's size with its brackets (the B and S keys). */
  marketOrder(side: 0 | 1): TicketOrder;
}

const num = (v: string) => (v.trim() === '' ? null : Number(v));

export function useTicketModel(): TicketModel {
  const [type, setType] = useState(2);
  const [size, setSize] = useState(1);
  const [limit, setLimit] = useState('');
  const [stop, setStop] = useState('');
  const [trail, setTrail] = useState('');
  const [sl, setSl] = useState('');
  const [slTrailing, setSlTrailing] = useState(false);
  const [tp, setTp] = useState('');
  const needsLimit = type === 1 || type === 3;
  const needsStop = type === 3 || type === 4;
  const needsTrail = type === 5;
  const choose = (t: number, lastPrice: number | null, decimals: number) => {
    setType(t);
    if (lastPrice === null) return;
    if ((t === 1 || t === 3) && limit === '') setLimit(lastPrice.toFixed(decimals));
    if ((t === 3 || t === 4) && stop === '') setStop(lastPrice.toFixed(decimals));
  };
  const slTicks = num(sl);
  const brackets = { slTicks, tpTicks: num(tp), ...(slTrailing && slTicks !== null ? { slTrailing: true } : {}) };
  const prices = { limitPrice: needsLimit ? num(limit) : null, stopPrice: needsStop ? num(stop) : null, ...(needsTrail ? { trailTicks: num(trail) } : {}) };
  return {
    type,
    size,
    setSize,
    limit,
    setLimit,
    stop,
    setStop,
    trail,
    setTrail,
    sl,
    setSl,
    slTrailing,
    setSlTrailing,
    tp,
    setTp,
    needsLimit,
    needsStop,
    needsTrail,
    choose,
    order: (side) => ({ side, type, size, ...prices, ...brackets }),
    marketOrder: (side) => ({ side, type: 2, size, limitPrice: null, stopPrice: null, ...brackets }),
  };
}
