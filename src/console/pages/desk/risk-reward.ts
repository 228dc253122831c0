// The risk/reward (long/short position) tool, as TradingView's: a click puts the entry at a price,
// with a stop 20 ticks and a target 40 ticks away (2 R); the three are then dragged on the chart
// (risk-reward.tsx). It shows the ticks, the dollars (the instrument's tick value × the ticket's
// size) and R:R, and places the box in one click as a bracketed order through the ticket's own
// Order/place (trading.ts send): a limit at the entry when the entry is on the better side of the
// last price (below it to buy, above it to sell), a stop there otherwise, with a stop-loss and a
// take-profit leg at the drawn distances, so the legs sit at the drawn prices once the entry fills at
// its price. Not kept on the server: it is a plan, not a drawing.

import { useEffect, useRef, useState } from 'preact/hooks';
import type { ChartClick, PriceChart } from '../../chart.ts';
import { attempt } from '../../ui.tsx';
import { onTick } from './chart-rules.ts';
import { figuresOf, type RrBox, type RrContract, type RrFigures, type RrPoint, type RrSide, rrOrder, withPoint } from './risk-reward-rules.ts';
import type { ShapeSpec } from '../../chart-shapes.ts';
import type { Trading } from './trading.ts';
import { ticketWords } from './trading.ts';

export type { RrBox, RrFigures, RrPoint, RrSide };
export { rrOrder };

export interface RiskReward {
  /** The tool in hand (waiting for the entry's click), or null. */
  choosing: RrSide | null;
  box: RrBox | null;
  figures: RrFigures | null;
  placing: boolean;
  error: string | null;
  choose(side: RrSide): void;
  /** A click on the chart; true when the tool took it. */
  click(c: ChartClick): boolean;
  /** A point dragged to a price (kept on the right side of the entry, a tick away at least). */
  setPoint(which: RrPoint, price: number): void;
  place(): Promise<void>;
  close(): void;
}

const STOP_TICKS = 20;
const TARGET_TICKS = 40;

const PROFIT = { color: '#26a69a', fill: 'rgba(38, 166, 154, 0.18)' };
const LOSS = { color: '#ef5350', fill: 'rgba(239, 83, 80, 0.18)' };

function shapesOf(b: RrBox, f: RrFigures, money: (v: number) => string): ShapeSpec[] {
  return [
    { kind: 'rect', t1: b.t, p1: b.entry, t2: b.t, p2: b.target, extendRight: true, ...PROFIT },
    { kind: 'rect', t1: b.t, p1: b.entry, t2: b.t, p2: b.stop, extendRight: true, ...LOSS },
    { kind: 'text', t: b.t, p: b.target, text: `Target ${f.targetTicks} t · ${money(f.reward)}`, color: PROFIT.color, dy: b.side === 'long' ? -14 : 24 },
    { kind: 'text', t: b.t, p: b.stop, text: `Stop ${f.stopTicks} t · ${money(f.risk)} · R:R ${f.rr.toFixed(2)}`, color: LOSS.color, dy: b.side === 'long' ? 24 : -14 },
  ];
}

export function useRiskReward(
  chart: { current: PriceChart | null },
  ready: boolean,
  contract: RrContract,
  at: { size: number; lastPrice: number | null; money: (v: number) => string },
  trading: Trading,
): RiskReward {
  const [choosing, setChoosing] = useState<RrSide | null>(null);
  const [box, setBox] = useState<RrBox | null>(null);
  const [placing, setPlacing] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const latest = useRef({ choosing, box });
  latest.current = { choosing, box };
  const figures = box ? figuresOf(box, contract, at.size) : null;
  useEffect(() => {
    const c = chart.current;
    if (!c || !ready) return;
    c.setShapes('rr', box && figures ? shapesOf(box, figures, at.money) : []);
  }, [chart.current, ready, box, at.size]);

  const click = (c: ChartClick): boolean => {
    const side = latest.current.choosing;
    if (!side || c.time === null) return false;
    const entry = onTick(c.price, contract.tickSize);
    const up = side === 'long' ? 1 : -1;
    const next = { side, t: c.time, entry, stop: onTick(entry - up * STOP_TICKS * contract.tickSize, contract.tickSize), target: onTick(entry + up * TARGET_TICKS * contract.tickSize, contract.tickSize) };
    latest.current = { choosing: null, box: next };
    setBox(next);
    setChoosing(null);
    setError(null);
    return true;
  };
  const place = async () => {
    if (!box || !figures || placing) return;
    setPlacing(true);
    await attempt((e) => setError(e === null ? null : ticketWords(e)), async () => {
      await trading.send(rrOrder(box, figures, at.lastPrice));
      await trading.afterCommand();
    });
    setPlacing(false);
  };
  return {
    choosing,
    box,
    figures,
    placing,
    error,
    choose: (side) => setChoosing((s) => (s === side ? null : side)),
    click,
    setPoint: (which, price) => latest.current.box && setBox(withPoint(latest.current.box, which, onTick(price, contract.tickSize), contract.tickSize)),
    place,
    close: () => {
      setBox(null);
      setChoosing(null);
      setError(null);
    },
  };
}
