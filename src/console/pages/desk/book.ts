// The desk's tables (working orders, positions, fills): the user hub's events folded in as they
// arrive (live.ts), reconciled through the REST reads. Events heard while a read is in flight are
// replayed over its answer, so a read never undoes an event.

import { useRef, useState } from 'preact/hooks';
import { sim } from '../../api.ts';
import { attempt } from '../../ui.tsx';
import type { SessionCore } from './core.ts';
import { applyToBook, type Book, EMPTY_BOOK, type UserEvent } from './live.ts';
import type { Order, Position, Trade } from './model.ts';

export interface Tables {
  book: Book;
  setBook(b: Book): void;
  tableError: string | null;
  setTableError(e: string | null): void;
  /** Reads the three tables again (after a reconnect, or without the user hub). */
  refreshTables(): Promise<void>;
  /** One user-hub event: the tables, the balance, a fill's flash and the challenge figures follow it. */
  onUser(e: UserEvent): void;
}

export function useTables(core: SessionCore): Tables {
  const { accountId, live } = core;
  const [book, setBookState] = useState<Book>(EMPTY_BOOK);
  const [tableError, setTableError] = useState<string | null>(null);
  /** Events heard while REST reads are in flight, replayed over their answers (see live.ts). */
  const heard = useRef(new Set<UserEvent[]>());

  const setBook = (b: Book) => {
    live.current.book = b;
    setBookState(b);
  };

  const refreshTables = async () => {
    const buf: UserEvent[] = [];
    heard.current.add(buf);
    try {
      await attempt(setTableError, async () => {
        const [p, o, t] = await Promise.all([
          sim<{ positions: Position[] }>('Position/searchOpen', { accountId }),
          sim<{ orders: Order[] }>('Order/searchOpen', { accountId }),
          sim<{ trades: Trade[] }>('Trade/search', { accountId }),
        ]);
        let b: Book = { positions: p.positions, orders: o.orders, fills: t.trades };
        for (const e of buf) b = applyToBook(b, e);
        setBook(b);
      });
    } finally {
      heard.current.delete(buf);
    }
  };

  const onUser = (e: UserEvent) => {
    for (const buf of heard.current) buf.push(e);
    if (e.kind === 'account') {
      const s = live.current.snap;
      if (e.id === accountId && s) core.setSnap({ ...s, balance: e.balance, equity: Math.round((e.balance + s.unrealizedPnl) * 100) / 100 });
      core.refreshChallenge();
      return;
    }
    const next = applyToBook(live.current.book, e);
    if (next === live.current.book) return;
    setBook(next);
    if (e.kind === 'trade') core.setFlash(`#${e.trade.orderId} filled ${e.trade.size} @ ${core.fmt.price(e.trade.price)}`);
    if (e.kind !== 'order') core.reprice();
    core.refreshChallenge();
  };

  return { book, setBook, tableError, setTableError, refreshTables, onUser };
}
