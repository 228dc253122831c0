// Trading from the chart: a click with a modifier places an order at the clicked price, a working
// order's chip dragged to another price moves the order there, and two commands clear the book
// (cancel every working order; flatten every position).
//
// - Shift+click: a limit at the price (a buy under the last price, a sell over it); Alt+click: a stop
//   (a buy over, a sell under), as chart traders place them. The ticket gives the size and the
//   brackets, as it does to the B/S keys. A plain click does nothing, so looking never trades.
// - A drag is Order/modify of the price the chip sits on (trailing.ts: a trailing stop's trail), so
//   the order keeps its id, a bracket leg its one-cancels-other link with its sibling, and a pending
//   entry its brackets; time priority follows the engine's rules (a new price goes behind the orders
//   already working there). A refused modify changes nothing: the chip stays at the order's price and
//   the refusal is shown. A drag through the market is NinjaTrader's chart trader's (chart-rules.ts'
//   dragHazard): a stop to the wrong side of the last price is refused before it is sent, a limit
//   that would become marketable is asked about first (docs/decisions.md, "desk").

import { useState } from 'preact/hooks';
import { sim } from '../../api.ts';
import type { ChartClick } from '../../chart.ts';
import { clickOrder, dragHazard } from './chart-rules.ts';
import type { Book } from './live.ts';
import type { SessionCore } from './core.ts';
import type { Order } from './model.ts';
import type { TicketModel } from './ticket-model.ts';
import type { Trading } from './trading.ts';
import { dragChange, retrailed, trailTicksOf } from './trailing.ts';

export interface ChartTrading {
  /** The last chart command's refusal, shown over the chart. */
  error: string | null;
  busy: boolean;
  /** A click on the chart: places an order when Shift or Alt is held. */
  click(c: ChartClick): void;
  /** Moves a working order's chip to `price` (Order/modify, in place); a move through the market is refused or asked first (dragHazard). */
  move(o: Order, price: number): Promise<void>;
  /** A move that would fill at once, waiting for the trader's answer. */
  pendingMove: PendingMove | null;
  /** Sends the pending move (it fills). */
  confirmMove(): void;
  /** Withdraws the pending move: the order stays where it is. */
  keepOrder(): void;
  cancelAll(): Promise<void>;
  flattenAll(): Promise<void>;
}

export interface PendingMove {
  order: Order;
  price: number;
  question: string;
}

const message = (e: unknown) => (e instanceof Error ? e.message : String(e));

export function useChartTrading(core: SessionCore, _book: Book, trading: Trading, ticket: TicketModel): ChartTrading {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const { accountId } = core;
  const run = async (f: () => Promise<void>) => {
    setBusy(true);
    setError(null);
    try {
      await f();
    } catch (e) {
      setError(message(e));
    } finally {
      await trading.afterCommand().catch(() => undefined);
      setBusy(false);
    }
  };

  const click = (c: ChartClick) => {
    if (core.live.current.over) return;
    const o = clickOrder(c, core.live.current.lastPrice, core.meta.contract.tickSize, ticket.order(0));
    if (o === null) return;
    if (typeof o === 'string') return setError(o);
    run(async () => void (await trading.send(o)));
  };

  const moves = useDragMoves(core, run, setError);

  const cancelAll = () =>
    run(async () => {
      const orders = core.live.current.book.orders;
      for (const o of orders) await sim('Order/cancel', { accountId, orderId: o.id });
      core.setFlash(`${orders.length} order${orders.length === 1 ? '' : 's'} canceled`);
    });

  const flattenAll = () =>
    run(async () => {
      const contracts = [...new Set(core.live.current.book.positions.map((p) => p.contractId))];
      for (const contractId of contracts) await sim('Position/closeContract', { accountId, contractId });
      core.setFlash(contracts.length ? 'Flat: every position closed' : 'No position to close');
    });

  return { error, busy, click, ...moves, cancelAll, flattenAll };
}

/** A chip's drag: Order/modify in place, unless dragHazard refuses it or asks first. */
function useDragMoves(core: SessionCore, run: (f: () => Promise<void>) => Promise<void>, setError: (e: string | null) => void): Pick<ChartTrading, 'move' | 'pendingMove' | 'confirmMove' | 'keepOrder'> {
  const [pendingMove, setPendingMove] = useState<PendingMove | null>(null);
  const { accountId } = core;
  const send = (o: Order, price: number) =>
    run(async () => {
      const { tickSize } = core.meta.contract;
      const change = dragChange(o, price, core.metaRef.current.trailing.orders[String(o.id)], { tickSize, fmt: core.fmt.price });
      if (typeof change === 'string') throw new Error(`Move refused: ${change}`);
      try {
        await sim('Order/modify', { accountId, orderId: o.id, ...change });
      } catch (e) {
        throw new Error(`Move refused: ${message(e)}`);
      }
      const trail = trailTicksOf(change, tickSize);
      if (trail !== null) core.updateMeta({ trailing: retrailed(core.metaRef.current.trailing, o.id, trail) });
      core.setFlash(trail === null ? `Order #${o.id} moved to ${core.fmt.price(price)}` : `Order #${o.id} now trails by ${trail} ticks (its stop at ${core.fmt.price(price)})`);
    });

  const move = async (o: Order, price: number) => {
    setPendingMove(null);
    const shownType = core.metaRef.current.trailing.orders[String(o.id)] === undefined ? o.type : 5;
    const hazard = dragHazard({ side: o.side, type: shownType }, price, core.live.current.lastPrice, core.fmt.price);
    if (hazard && 'refuse' in hazard) return setError(`Move refused: ${hazard.refuse}`);
    setError(null);
    if (hazard) return setPendingMove({ order: o, price, question: hazard.ask });
    await send(o, price);
  };
  const confirmMove = () => {
    if (pendingMove) send(pendingMove.order, pendingMove.price);
    setPendingMove(null);
  };

  return { move, pendingMove, confirmMove, keepOrder: () => setPendingMove(null) };
}
