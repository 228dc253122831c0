// Trading from the chart: a click with a modifier places an order at the clicked price, a working
// order's chip dragged to another price replaces the order there, and two commands clear the book
// (cancel every working order; flatten every position).
//
// - Shift+click: a limit at the price (a buy under the last price, a sell over it); Alt+click: a stop
//   (a buy over, a sell under), as chart traders place them. The ticket gives the size and the
//   brackets, as it does to the B/S keys. A plain click does nothing, so looking never trades.
// - The current family has no modify (Order/modify answers "not supported"), so a drag is a cancel
//   and a place of the same side, type and size (and the planned brackets of a pending entry) at the
//   new price. If the place is refused, the order is placed again at its old price and the refusal
//   is shown; a dragged bracket leg comes back as a plain order (the API cannot re-link it). So
//   that a moved stop or target does not outlive its position, the desk remembers the protective
//   orders it moved (this browser, per session) and cancels them when the position goes flat, as
//   the engine cancels a bracket's legs; it can only do so while a desk is open on the session.

import { useEffect, useRef, useState } from 'preact/hooks';
import { sim } from '../../api.ts';
import type { ChartClick } from '../../chart.ts';
import { clickOrder, movedOrder, orphans, protects } from './chart-rules.ts';
import type { Book } from './live.ts';
import type { SessionCore } from './core.ts';
import type { Order } from './model.ts';
import type { TicketModel } from './ticket-model.ts';
import type { Trading } from './trading.ts';

export interface ChartTrading {
  /** The last chart command's refusal, shown over the chart. */
  error: string | null;
  busy: boolean;
  /** A click on the chart: places an order when Shift or Alt is held. */
  click(c: ChartClick): void;
  /** Moves a working order to `price` (cancel, then place there). */
  replace(o: Order, price: number): Promise<void>;
  cancelAll(): Promise<void>;
  flattenAll(): Promise<void>;
}

const message = (e: unknown) => (e instanceof Error ? e.message : String(e));

export function useChartTrading(core: SessionCore, book: Book, trading: Trading, ticket: TicketModel): ChartTrading {
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

  const moved = useMovedProtection(core, book);
  const replace = (o: Order, price: number) =>
    run(async () => {
      const brackets = core.metaRef.current.brackets[String(o.id)];
      const protective = protects(o, core.live.current.book.positions);
      await sim('Order/cancel', { accountId, orderId: o.id });
      let id: number;
      try {
        id = await trading.send(movedOrder(o, price, brackets));
        core.setFlash(`Order #${o.id} moved to ${core.fmt.price(price)} as #${id}`);
      } catch (e) {
        const back = await trading.send(movedOrder(o, (o.type === 4 ? o.stopPrice : o.limitPrice)!, brackets)).then(
          (b) => ((id = b), `; the order is back at its price as #${b}`),
          (e2) => `; it could not be placed back (${message(e2)}): order #${o.id} is canceled`,
        );
        throw new Error(`Move refused: ${message(e)}${back}`);
      } finally {
        if (protective) moved.replaced(o.id, id!);
      }
    });

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

  return { error, busy, click, replace, cancelAll, flattenAll };
}

const MOVED_KEY = (accountId: number) => `rd.desk.moved-protection.${accountId}`;

function loadMoved(accountId: number): number[] {
  try {
    const v = JSON.parse(localStorage.getItem(MOVED_KEY(accountId)) ?? '[]');
    return Array.isArray(v) ? v.filter((n) => Number.isInteger(n)) : [];
  } catch {
    return [];
  }
}

/** The protective orders this desk moved, cancelled once their position is closed (see the header). */
function useMovedProtection(core: SessionCore, book: Book): { replaced(oldId: number, newId: number | undefined): void } {
  const ids = useRef<number[]>(loadMoved(core.accountId));
  const save = (next: number[]) => {
    ids.current = next;
    try {
      localStorage.setItem(MOVED_KEY(core.accountId), JSON.stringify(next));
    } catch {
      // Not kept: guarded while this page is open.
    }
  };
  useEffect(() => {
    const gone = orphans(ids.current, book.orders, book.positions);
    if (gone.length === 0 || core.live.current.over) return;
    save(ids.current.filter((id) => !gone.some((o) => o.id === id)));
    for (const o of gone) sim('Order/cancel', { accountId: core.accountId, orderId: o.id }).catch(() => undefined);
    core.setFlash(`Order${gone.length === 1 ? '' : 's'} ${gone.map((o) => `#${o.id}`).join(', ')} canceled: the position ${gone.length === 1 ? 'it' : 'they'} protected is closed`);
  }, [book.positions, book.orders]);
  return {
    replaced: (oldId, newId) => save([...ids.current.filter((id) => id !== oldId), ...(newId === undefined ? [] : [newId])]),
  };
}
