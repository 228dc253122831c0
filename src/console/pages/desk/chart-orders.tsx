// The chart's decorations: working orders, planned brackets and the average price as price lines,
// fills as markers, and the working orders as chips the user can cancel from the chart and drag to
// another price. A trailing stop is listed as a stop at its current stop price; one the server
// lists as trailing (trailing.ts) is labelled TRAIL and its planned stop-loss line says it trails.

import { useEffect, useMemo, useState } from 'preact/hooks';
import type { MarkerSpec, PriceChart, PriceLineSpec } from '../../chart.ts';
import { CHART_COLORS } from '../../chart-theme.ts';
import type { PriceFormat } from './core.ts';
import type { Book } from './live.ts';
import { chipClusters } from './chip-layout.ts';
import { type Order, type Position, type SessionMeta, shownType } from './model.ts';
import { fillMarkers, type PositionPricing, positionTitle } from './chart-rules.ts';
import type { TrailMemory } from './trailing.ts';

/** A chip's height (desk.css `.order-chip`). */
const CHIP_HEIGHT_PX = 22;

export type OrderLine = PriceLineSpec & { orderId?: number };

/** Price lines of the working orders (a stop-limit's stop too), their planned brackets and each position (average price, open P&L). */
export function orderLines(orders: readonly Order[], positions: readonly Position[], brackets: SessionMeta['brackets'], at: PositionPricing, trailing: TrailMemory): OrderLine[] {
  const { tickSize } = at;
  const out: OrderLine[] = [];
  for (const o of orders) {
    const color = o.side === 0 ? CHART_COLORS.up : CHART_COLORS.down;
    const word = `${o.side === 0 ? 'BUY' : 'SELL'} ${o.size} ${shownType(o, trailing.orders)}`;
    if (o.type === 3 && o.stopPrice !== null) out.push({ price: o.stopPrice, color, title: `${word} stop #${o.id}`, style: 'dotted', orderId: o.id });
    const price = o.type === 4 ? o.stopPrice : o.limitPrice;
    if (price !== null) out.push({ price, color, title: `${word} #${o.id}`, orderId: o.id });
    const b = brackets[String(o.id)];
    if (b && price !== null) {
      const dir = o.side === 0 ? 1 : -1;
      const sl = trailing.entries[String(o.id)] ? 'Trailing SL' : 'SL';
      if (b.sl) out.push({ price: price - dir * b.sl * tickSize, color: CHART_COLORS.down, title: `${sl} #${o.id} (on fill)`, style: 'dotted' });
      if (b.tp) out.push({ price: price + dir * b.tp * tickSize, color: CHART_COLORS.up, title: `TP #${o.id} (on fill)`, style: 'dotted' });
    }
  }
  for (const p of positions) {
    out.push({ price: p.averagePrice, color: CHART_COLORS.accent, title: positionTitle(p, at), style: 'solid' });
  }
  return out;
}

/** Keeps the chart's price lines and fill markers in step with the book; returns the lines (the overlay places its chips on them). */
export function useChartDecorations(
  chart: { current: PriceChart | null },
  { orders, positions, fills }: Book,
  brackets: SessionMeta['brackets'],
  trailing: TrailMemory,
  at: PositionPricing,
  currentIndex: number,
): OrderLine[] {
  const lines = useMemo(() => orderLines(orders, positions, brackets, at, trailing), [orders, positions, brackets, trailing, at.tickSize, at.lastPrice]);
  useEffect(() => {
    chart.current?.setPriceLines(lines);
  }, [lines]);
  // A fill's marker says side and size, one marker per bar and side; its price is in the fills table (prices on markers piled up).
  useEffect(() => {
    const c = chart.current;
    if (!c) return;
    const markers: MarkerSpec[] = fillMarkers(fills, (s) => c.barTimeAtOrBefore(s));
    c.setMarkers(markers);
  }, [fills, currentIndex]);
  return lines;
}

/** A chip being dragged: its order, the pointer's start and its travel, px. */
interface Drag {
  id: number;
  startY: number;
  dy: number;
}

/**
 * Dragging a chip: it follows the pointer vertically and, let go more than 3 px away, asks for its
 * order at the price under it (snapped to the tick). The chip's line is found again at the release,
 * from its price: a scale that moved meanwhile (a new line, a status read) moves the chip with it.
 */
function useChipDrag(chart: { current: PriceChart | null }, tickSize: number, onMove: (o: Order, price: number) => void) {
  const [drag, setDrag] = useState<Drag | null>(null);
  const priceAt = (lineY: number, dy: number) => {
    const p = chart.current?.yToPrice(lineY + dy);
    return p === null || p === undefined ? null : Math.round(p / tickSize) * tickSize;
  };
  const start = (o: Order, linePrice: number, e: PointerEvent) => {
    if (e.button !== 0) return;
    e.preventDefault();
    const startY = e.clientY;
    setDrag({ id: o.id, startY, dy: 0 });
    const move = (m: PointerEvent) => setDrag({ id: o.id, startY, dy: m.clientY - startY });
    const up = (u: PointerEvent) => {
      removeEventListener('pointermove', move);
      removeEventListener('pointerup', up);
      setDrag(null);
      const dy = u.clientY - startY;
      const lineY = chart.current?.priceToY(linePrice);
      const price = lineY === null || lineY === undefined ? null : priceAt(lineY, dy);
      if (Math.abs(dy) > 3 && price !== null && price > 0) onMove(o, price);
    };
    addEventListener('pointermove', move);
    addEventListener('pointerup', up);
  };
  return { drag, start, priceAt };
}

/**
 * Working orders as chips at their price, just left of the price scale: the chart's own way to
 * cancel an order (×) and to move one (drag the chip to another price). Chips that would cover each
 * other step left (chip-layout.ts). Positions follow the chart as it scrolls, zooms and resizes.
 */
export function OrderOverlay({ chart, orders, lines, onCancel, onMove, trailing, canceling, fmt, tickSize }: {
  chart: { current: PriceChart | null };
  orders: Order[];
  lines: OrderLine[];
  onCancel: (o: Order) => void;
  onMove: (o: Order, price: number) => void;
  trailing: TrailMemory['orders'];
  canceling: number | null;
  fmt: PriceFormat;
  tickSize: number;
}) {
  const [, redraw] = useState(0);
  const { drag, start, priceAt } = useChipDrag(chart, tickSize, onMove);
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
  // New lines may rescale the prices (autoscale covers them), drawn on the chart's next frame: the
  // chips follow on the frame after.
  useEffect(() => {
    const f = requestAnimationFrame(() => requestAnimationFrame(() => redraw((n) => n + 1)));
    return () => cancelAnimationFrame(f);
  }, [lines]);
  const c = chart.current;
  if (!c || orders.length === 0) return null;
  const right = c.priceScaleWidth() + 6;
  const placed = orders.flatMap((o) => {
    const line = lines.find((l) => l.orderId === o.id && !l.title.includes(' stop #'));
    const y = line ? c.priceToY(line.price) : null;
    return line && y !== null ? [{ key: { order: o, price: line.price, y }, y }] : [];
  });
  return (
    <div class="order-overlay" data-testid="chart-orders">
      {chipClusters(placed, CHIP_HEIGHT_PX).map((cl) => (
        <div class="chip-row" style={{ top: `${cl.top}px`, right: `${right}px` }} key={cl.chips[0].key.order.id}>
          {cl.chips.map(({ key: { order: o, price, y }, dy }) => {
            const moving = drag?.id === o.id ? drag.dy : 0;
            const shown = moving ? (priceAt(y, moving) ?? price) : price;
            return (
              <div
                class={`order-chip ${o.side === 0 ? 'buy' : 'sell'}${moving ? ' dragging' : ''}`}
                style={{ marginTop: `${dy}px`, transform: moving ? `translateY(${moving}px)` : undefined }}
                key={o.id}
                data-order-id={o.id}
              >
                <span class="grip" title={trailing[String(o.id)] === undefined ? 'Drag to move the order to another price' : `Trails by ${trailing[String(o.id)]} ticks: drag to change the trail`} onPointerDown={(e) => start(o, price, e as unknown as PointerEvent)}>
                  {o.side === 0 ? 'BUY' : 'SELL'} {o.size} {shownType(o, trailing)} {fmt.price(shown)}
                </span>
                <button type="button" title={`Cancel order #${o.id}`} aria-label={`Cancel order ${o.id} on the chart`} disabled={canceling === o.id} onClick={() => onCancel(o)}>
                  ×
                </button>
              </div>
            );
          })}
        </div>
      ))}
    </div>
  );
}
