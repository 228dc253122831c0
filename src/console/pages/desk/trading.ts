// The desk's order commands: place (the ticket, or B/S at market with the ticket's brackets),
// cancel and flatten; a placed trailing stop (or trailing stop-loss) is remembered (trailing.ts). After each,
// the tables follow the user hub's events (a read only when it is down); while paused, a status
// read gives the exact snapshot (margin, equity at the current price).

import { useState } from 'preact/hooks';
import { sim } from '../../api.ts';
import { attempt } from '../../ui.tsx';
import type { Tables } from './book.ts';
import type { SessionCore } from './core.ts';
import { type Order, type Position, sideWord, typeShort } from './model.ts';
import type { SessionFeed } from './session-feed.ts';
import type { TicketModel, TicketOrder } from './ticket-model.ts';
import { placedTrailing } from './trailing.ts';

export interface Trading {
  placing: boolean;
  canceling: number | null;
  closing: boolean;
  ticketError: string | null;
  place(o: TicketOrder): Promise<void>;
  /** A market order of the ticket's size, with the ticket's stop-loss and take-profit (B and S). */
  market(side: 0 | 1): Promise<void>;
  cancel(o: Order): Promise<void>;
  flatten(p: Position): Promise<void>;
  /** Places an order (its brackets kept as planned lines) and says so; throws the server's refusal. Its id. */
  send(o: TicketOrder): Promise<number>;
  /** The tables and the snapshot after a command (see the header). */
  afterCommand(): Promise<void>;
}

export function useTrading(core: SessionCore, tables: Tables, session: SessionFeed, ticket: TicketModel): Trading {
  const { accountId } = core;
  const [placing, setPlacing] = useState(false);
  const [canceling, setCanceling] = useState<number | null>(null);
  const [closing, setClosing] = useState(false);
  const [ticketError, setTicketError] = useState<string | null>(null);

  const afterCommand = async () => {
    if (!session.userUp()) await tables.refreshTables();
    if (!core.live.current.playing && !core.live.current.over) await session.syncStatus().catch(() => undefined);
  };

  const send = async (o: TicketOrder) => {
    const r = await sim<{ orderId: number }>('Order/place', placeBody(accountId, core.meta.contract, o));
    const m = core.metaRef.current;
    const planned = o.type !== 2 && (o.slTicks !== null || o.tpTicks !== null);
    core.updateMeta({
      brackets: planned ? { ...m.brackets, [String(r.orderId)]: { sl: o.slTicks, tp: o.tpTicks } } : m.brackets,
      trailing: placedTrailing(m.trailing, r.orderId, o),
    });
    core.setFlash(`Order #${r.orderId} placed: ${sideWord(o.side)} ${o.size} ${typeShort(o.type)}`);
    // Placed (from the ticket, a key or the chart): an earlier refusal no longer applies.
    setTicketError(null);
    return r.orderId;
  };

  const place = async (o: TicketOrder) => {
    setPlacing(true);
    await attempt((e) => setTicketError(e === null ? null : ticketWords(e)), async () => {
      await send(o);
      await afterCommand();
    });
    setPlacing(false);
  };

  const cancel = async (o: Order) => {
    setCanceling(o.id);
    await attempt(tables.setTableError, async () => {
      await sim('Order/cancel', { accountId, orderId: o.id });
      core.setFlash(`Order #${o.id} canceled`);
      await afterCommand();
    });
    setCanceling(null);
  };

  const flatten = async (p: Position) => {
    setClosing(true);
    await attempt(tables.setTableError, async () => {
      await sim('Position/closeContract', { accountId, contractId: p.contractId });
      core.setFlash(`Position flattened`);
      await afterCommand();
    });
    setClosing(false);
  };

  const market = (side: 0 | 1) => place(ticket.marketOrder(side));
  return { placing, canceling, closing, ticketError, place, market, cancel, flatten, send, afterCommand };
}

/**
 * Order/place's body; brackets only when the ticket asks for them (unsigned ticks: the console's
 * Order/place reads them as distances), a trailing stop-loss as the gateway's `{ticks, type: 5}`, a
 * Trailing stop's trail in price (ticks × tick size, printed exactly: every tick size is 1/k).
 */
function placeBody(accountId: number, contract: { id: string; tickSize: number }, o: TicketOrder): Record<string, unknown> {
  const body: Record<string, unknown> = {
    accountId,
    contractId: contract.id,
    type: o.type,
    side: o.side,
    size: o.size,
    limitPrice: o.limitPrice,
    stopPrice: o.stopPrice,
  };
  if (o.type === 5) body.trailPrice = o.trailTicks === null || o.trailTicks === undefined ? null : o.trailTicks / Math.round(1 / contract.tickSize);
  if (o.slTicks !== null) body.stopLossBracket = o.slTrailing ? { ticks: o.slTicks, type: 5 } : { ticks: o.slTicks };
  if (o.tpTicks !== null) body.takeProfitBracket = { ticks: o.tpTicks };
  return body;
}

/** The API's field names in a refusal, as the ticket labels them. */
const TICKET_WORDS: [RegExp, string][] = [
  [/\blimitPrice\b/g, 'Limit price'],
  [/\bstopPrice\b/g, 'Stop price'],
  [/\btrailPrice\b/g, 'Trail'],
  [/\bstopLossBracket\b/g, 'Stop-loss'],
  [/\btakeProfitBracket\b/g, 'Take-profit'],
];

/** A refusal in the ticket's words (`limitPrice is required` → `Limit price is required`). */
export function ticketWords(message: string): string {
  return TICKET_WORDS.reduce((m, [re, word]) => m.replace(re, word), message);
}
