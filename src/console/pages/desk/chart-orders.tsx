// The chart's decorations: working orders, planned brackets and the average price as price lines,
// fills as markers, and the working orders as chips the user can cancel from the chart.

import { useEffect, useMemo, useState } from 'preact/hooks';
import { CHART_COLORS, type MarkerSpec, type PriceChart, type PriceLineSpec } from '../../chart.ts';
import type { PriceFormat } from './core.ts';
import type { Book } from './live.ts';
import { chipClusters } from './chip-layout.ts';
import { type Order, type Position, type SessionMeta, typeShort } from './model.ts';

/** A chip's height (desk.css `.order-chip`). */
const CHIP_HEIGHT_PX = 22;

export type OrderLine = PriceLineSpec & { orderId?: number };

/** Price lines of the working orders (a stop-limit's stop too), their planned brackets and each position's average price. */
export function orderLines(orders: readonly Order[], positions: readonly Position[], brackets: SessionMeta['brackets'], tickSize: number): OrderLine[] {
  const out: OrderLine[] = [];
  for (const o of orders) {
    const color = o.side === 0 ? CHART_COLORS.up : CHART_COLORS.down;
    const word = `${o.side === 0 ? 'BUY' : 'SELL'} ${o.size} ${typeShort(o.type)}`;
    if (o.type === 3 && o.stopPrice !== null) out.push({ price: o.stopPrice, color, title: `${word} stop #${o.id}`, style: 'dotted', orderId: o.id });
    const price = o.type === 4 ? o.stopPrice : o.limitPrice;
    if (price !== null) out.push({ price, color, title: `${word} #${o.id}`, orderId: o.id });
    const b = brackets[String(o.id)];
    if (b && price !== null) {
      const dir = o.side === 0 ? 1 : -1;
      if (b.sl) out.push({ price: price - dir * b.sl * tickSize, color: CHART_COLORS.down, title: `SL #${o.id} (on fill)`, style: 'dotted' });
      if (b.tp) out.push({ price: price + dir * b.tp * tickSize, color: CHART_COLORS.up, title: `TP #${o.id} (on fill)`, style: 'dotted' });
    }
  }
  for (const p of positions) {
    out.push({ price: p.averagePrice, color: CHART_COLORS.accent, title: `${p.type === 1 ? 'LONG' : 'SHORT'} ${p.size} avg`, style: 'solid' });
  }
  return out;
}

/** Keeps the chart's price lines and fill markers in step with the book; returns the lines (the overlay places its chips on them). */
export function useChartDecorations(
  chart: { current: PriceChart | null },
  { orders, positions, fills }: Book,
  brackets: SessionMeta['brackets'],
  tickSize: number,
  fmt: PriceFormat,
  currentIndex: number,
): OrderLine[] {
  const lines = useMemo(() => orderLines(orders, positions, brackets, tickSize), [orders, positions, brackets, tickSize]);
  useEffect(() => {
    chart.current?.setPriceLines(lines);
  }, [lines]);
  // A fill's marker says side and size; its price is in the fills table (prices on markers piled up).
  useEffect(() => {
    const markers: MarkerSpec[] = fills.map((t) => ({ time: t.creationTimestamp, side: t.side === 0 ? 'buy' : 'sell', text: `${t.side === 0 ? 'B' : 'S'} ${t.size}` }));
    chart.current?.setMarkers(markers);
  }, [fills, currentIndex]);
  return lines;
}

/**
 * Working orders as chips at their price, just left of the price scale: the chart's own way to
 * cancel an order (×). Chips that would cover each other step left (chip-layout.ts). Positions
 * follow the chart as it scrolls, zooms and resizes.
 */
export function OrderOverlay({ chart, orders, lines, onCancel, canceling, fmt }: {
  chart: { current: PriceChart | null };
  orders: Order[];
  lines: OrderLine[];
  onCancel: (o: Order) => void;
  canceling: number | null;
  fmt: PriceFormat;
}) {
  const [, redraw] = useState(0);
  useEffect(() => {
    const c = chart.current;
    if (!c || orders.length === 0) return;
    const off = c.onViewChange(() => redraw((n) => n + 1));
    const t = setInterval(() => redraw((n) => n + 1), 400);
    return () => {
      off();
      clearInterval(t);
    };
  }, [orders.length, chart.current]);
  const c = chart.current;
  if (!c || orders.length === 0) return null;
  const right = c.priceScaleWidth() + 6;
  const placed = orders.flatMap((o) => {
    const line = lines.find((l) => l.orderId === o.id && !l.title.includes(' stop #'));
    const y = line ? c.priceToY(line.price) : null;
    return line && y !== null ? [{ key: { order: o, price: line.price }, y }] : [];
  });
  return (
    <div class="order-overlay" data-testid="chart-orders">
      {chipClusters(placed, CHIP_HEIGHT_PX).map((cl) => (
        <div class="chip-row" style={{ top: `${cl.top}px`, right: `${right}px` }} key={cl.chips[0].key.order.id}>
          {cl.chips.map(({ key: { order: o, price }, dy }) => (
            <div class={`order-chip ${o.side === 0 ? 'buy' : 'sell'}`} style={{ marginTop: `${dy}px` }} key={o.id} data-order-id={o.id}>
              <span>
                {o.side === 0 ? 'BUY' : 'SELL'} {o.size} {typeShort(o.type)} {fmt.price(price)}
              </span>
              <button type="button" title={`Cancel order #${o.id}`} aria-label={`Cancel order ${o.id} on the chart`} disabled={canceling === o.id} onClick={() => onCancel(o)}>
                ×
              </button>
            </div>
          ))}
        </div>
      ))}
    </div>
  );
}
