// The risk/reward tool on the chart (risk-reward.ts): a handle at each of its entry, stop and target
// that drags the price (the box follows as it moves), and a card with the ticks, the dollars, R:R and
// the one-click bracketed order.

import { useEffect, useState } from 'preact/hooks';
import type { PriceChart } from '../../chart.ts';
import { money } from '../../ui.tsx';
import type { PriceFormat } from './core.ts';
import { type RiskReward, type RrPoint, rrOrder } from './risk-reward.ts';

const POINTS: readonly { which: RrPoint; label: string }[] = [
  { which: 'target', label: 'Target' },
  { which: 'entry', label: 'Entry' },
  { which: 'stop', label: 'Stop' },
];

/** Drags a handle: each move puts its point at the price under the pointer. */
function startDrag(chart: PriceChart, rr: RiskReward, which: RrPoint, price: number, e: PointerEvent): void {
  if (e.button !== 0) return;
  e.preventDefault();
  const y0 = chart.priceToY(price);
  if (y0 === null) return;
  const startY = e.clientY;
  const move = (m: PointerEvent) => {
    const p = chart.yToPrice(y0 + m.clientY - startY);
    if (p !== null && p > 0) rr.setPoint(which, p);
  };
  const up = () => {
    removeEventListener('pointermove', move);
    removeEventListener('pointerup', up);
  };
  addEventListener('pointermove', move);
  addEventListener('pointerup', up);
}

export function RiskRewardOverlay({ chart, rr, fmt, lastPrice }: { chart: { current: PriceChart | null }; rr: RiskReward; fmt: PriceFormat; lastPrice: number | null }) {
  const [, redraw] = useState(0);
  useEffect(() => {
    const c = chart.current;
    if (!c || !rr.box) return;
    const off = c.onViewChange(() => redraw((n) => n + 1));
    const t = setInterval(() => redraw((n) => n + 1), 400);
    return () => {
      off();
      clearInterval(t);
    };
  }, [chart.current, !!rr.box]);
  const c = chart.current;
  const { box, figures: f } = rr;
  if (!c || !box || !f) return null;
  const order = rrOrder(box, f, lastPrice);
  const right = c.priceScaleWidth() + 190;
  return (
    <>
      <div class="order-overlay rr-overlay" data-testid="rr-handles">
        {POINTS.map(({ which, label }) => {
          const y = c.priceToY(box[which]);
          return y === null ? null : (
            <div class={`order-chip rr-${which}`} style={{ top: `${y - 11}px`, right: `${right}px`, position: 'absolute' }} key={which} data-rr={which} data-price={box[which]}>
              <span class="grip" title={`Drag to move the ${label.toLowerCase()}`} onPointerDown={(e) => startDrag(c, rr, which, box[which], e as unknown as PointerEvent)}>
                {label} {fmt.price(box[which])}
              </span>
            </div>
          );
        })}
      </div>
      <div class="rr-card card mono small" data-testid="rr-panel">
        <div>
          <b>{box.side === 'long' ? 'Long' : 'Short'}</b> {f.size} @ {fmt.price(box.entry)}
        </div>
        <div class="neg">
          Stop {fmt.price(box.stop)} · <span data-testid="rr-stop-ticks">{f.stopTicks}</span> t · <span data-testid="rr-risk">{money(f.risk)}</span>
        </div>
        <div class="pos">
          Target {fmt.price(box.target)} · <span data-testid="rr-target-ticks">{f.targetTicks}</span> t · <span data-testid="rr-reward">{money(f.reward)}</span>
        </div>
        <div>
          R:R <span data-testid="rr-ratio">{f.rr.toFixed(2)}</span>
        </div>
        {rr.error && (
          <div class="error" data-testid="rr-error">
            {rr.error}
          </div>
        )}
        <div class="row">
          <button type="button" class="primary" data-testid="rr-place" disabled={rr.placing} onClick={() => void rr.place()} title="Place the entry with its stop-loss and take-profit at the drawn prices">
            {order.side === 0 ? 'Buy' : 'Sell'} {order.type === 1 ? 'limit' : 'stop'} {order.size} · SL {order.slTicks} · TP {order.tpTicks}
          </button>
          <button type="button" class="ghost" data-testid="rr-close" onClick={rr.close} title="Remove the tool">
            ×
          </button>
        </div>
      </div>
    </>
  );
}
