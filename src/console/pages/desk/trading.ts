// The desk's order commands: place (the ticket, or B/S at market with the ticket's brackets, both
// sized by the ticket's dollar risk when it has one: risk-size.ts), cancel, flatten and reverse (one
// market order of twice the position on the other side, with the ticket's brackets); a placed
// trailing stop (or trailing stop-loss) is remembered (trailing.ts), and so is an OCO link the
// ticket asked for (oco-links.ts). After each,
// the tables follow the user hub's events (a read only when it is down); while paused, a status
// read gives the exact snapshot (margin, equity at the current price).

import { useState } from 'preact/hooks';
import { instrumentForContractId } from '../../../domain/contract-id.ts';
import { sim } from '../../api.ts';
import { attempt } from '../../ui.tsx';
import type { Tables } from './book.ts';
import type { SessionCore } from './core.ts';
import { type Order, type Position, sideWord, typeShort } from './model.ts';
import type { SessionFeed } from './session-feed.ts';
import type { RiskContext, TicketModel, TicketOrder, TicketPlace } from './ticket-model.ts';
import { placedTrailing } from './trailing.ts';

export interface Trading {
  placing: boolean;
  canceling: number | null;
  closing: boolean;
  ticketError: string | null;
  place(o: TicketOrder): Promise<void>;
  /** The ticket's order on one side (its Buy and Sell buttons), sized by its risk when it has one. */
  placeTicket(side: 0 | 1): Promise<void>;
  /** A market order of the ticket's size (or its risk's), with the ticket's stop-loss and take-profit (B and S). */
  market(side: 0 | 1): Promise<void>;
  /** Flattens `p` and opens the other way in one market order of twice its size, with the ticket's brackets. */
  reverse(p: Position): Promise<void>;
  /** R: reverses the position in the ticket's contract, if any. */
  reverseTicket(): Promise<void>;
  /** What sizing by risk knows of the ticket's contract now. */
  riskContext(): RiskContext;
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
  const [ticketError, setTicketError] = useState<string | null>(null);

  const afterCommand = async () => {
    if (!session.userUp()) await tables.refreshTables();
    if (!core.live.current.playing && !core.live.current.over) await session.syncStatus().catch(() => undefined);
  };

  const send = async (o: TicketPlace) => {
    const r = await sim<{ orderId: number }>('Order/place', placeBody(accountId, core.meta.contract, o));
    const m = core.metaRef.current;
    const planned = o.type !== 2 && (o.slTicks !== null || o.tpTicks !== null);
    core.updateMeta({
      brackets: planned ? { ...m.brackets, [String(r.orderId)]: { sl: o.slTicks, tp: o.tpTicks } } : m.brackets,
      trailing: placedTrailing(m.trailing, r.orderId, o),
    });
    if (o.linkedOrderId !== undefined) rememberLink(ticket, core, r.orderId, o.linkedOrderId);
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

  const placeSized = async (o: TicketPlace) => {
    const s = sizedByRisk(ticket, riskContextOf(core), o);
    // A risk that buys nothing places nothing: the ticket's risk note says why while it holds; the
    // flash says it at the click or key, and goes (no refusal left standing once the risk changes).
    if (typeof s === 'string') core.setFlash(`Nothing placed: ${s}`);
    else await place(s);
  };

  const market = (side: 0 | 1) => placeSized(ticket.marketOrder(side));
  const placeTicket = (side: 0 | 1) => placeSized(ticket.order(side));
  const positions = usePositionCommands(core, tables, ticket, afterCommand);
  return { placing, canceling, ticketError, place, placeTicket, market, ...positions, riskContext: () => riskContextOf(core), cancel, send, afterCommand };
}

/** Flatten and Reverse of a position (the positions table; R reverses the ticket contract's). */
function usePositionCommands(core: SessionCore, tables: Tables, ticket: TicketModel, afterCommand: () => Promise<void>) {
  const { accountId } = core;
  const [closing, setClosing] = useState(false);
  const flatten = async (p: Position) => {
    setClosing(true);
    await attempt(tables.setTableError, async () => {
      await sim('Position/closeContract', { accountId, contractId: p.contractId });
      core.setFlash(`Position flattened`);
      await afterCommand();
    });
    setClosing(false);
  };

  const reverse = async (p: Position) => {
    setClosing(true);
    await attempt(tables.setTableError, async () => {
      core.setFlash(await reverseOrder(accountId, core, ticket, p));
      await afterCommand();
    });
    setClosing(false);
  };
  const reverseTicket = async () => {
    const p = tables.book.positions.find((x) => x.contractId === core.meta.contract.id);
    if (p) await reverse(p);
    else core.setFlash('No position to reverse');
  };

  return { closing, flatten, reverse, reverseTicket };
}

/** `orderId` was placed one-cancels-other with `withId`: the desk shows them linked; the ticket links only its next order. */
function rememberLink(ticket: TicketModel, core: SessionCore, orderId: number, withId: number): void {
  // Links of orders no longer working leave with them (the store stays the size of the book).
  ticket.oco.keep(core.live.current.book.orders.map((x) => x.id));
  ticket.oco.link(orderId, withId);
  ticket.oco.setWithId(null);
}

/** What sizing by risk knows of the core's contract now: its last price, tick, and the plan's limit. */
function riskContextOf(core: SessionCore): RiskContext {
  const c = core.meta.contract;
  const L = core.live.current;
  const lastPrice = c.id === core.metaRef.current.contract.id ? L.lastPrice : (L.marks[c.id]?.lastPrice ?? null);
  const isMicro = instrumentForContractId(c.id, 'all')?.isMicro ?? false;
  return { lastPrice, tickSize: c.tickSize, tickValue: c.tickValue, maxContracts: core.challenge.detail?.maxContracts ?? null, isMicro };
}

/** `o` at the size the ticket's risk buys (itself without a risk); the reason when the risk buys none. */
function sizedByRisk(ticket: TicketModel, at: RiskContext, o: TicketPlace): TicketPlace | string {
  const s = ticket.sizing(at);
  if (s === null) return o;
  return s.size === null ? (s.note ?? 'The risk sizes no contract') : { ...o, size: s.size };
}

/**
 * Reverses `p`: one market order of twice its size on the other side, with the ticket's brackets
 * (a template's legs attach to the new position, covering what it opened; the old position's legs
 * are canceled by the engine when it flips). The flash line that says so.
 */
async function reverseOrder(accountId: number, core: SessionCore, ticket: TicketModel, p: Position): Promise<string> {
  const side = p.type === 1 ? 1 : 0;
  const o = { ...ticket.marketOrder(side), size: 2 * p.size };
  const r = await sim<{ orderId: number }>('Order/place', placeBody(accountId, { id: p.contractId, tickSize: core.meta.contract.tickSize }, o));
  return `Order #${r.orderId} reversed the position: ${sideWord(side)} ${o.size} MKT, now ${p.type === 1 ? 'short' : 'long'} ${p.size}`;
}

/**
 * Order/place's body; brackets only when the ticket asks for them (unsigned ticks: the console's
 * Order/place reads them as distances), a trailing stop-loss as the gateway's `{ticks, type: 5}`, a
 * Trailing stop's trail in price (ticks × tick size, printed exactly: every tick size is 1/k).
 */
function placeBody(accountId: number, contract: { id: string; tickSize: number }, o: TicketPlace): Record<string, unknown> {
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
  if (o.linkedOrderId !== undefined) body.linkedOrderId = o.linkedOrderId;
  return body;
}

/** The API's field names in a refusal, as the ticket labels them. */
const TICKET_WORDS: [RegExp, string][] = [
  [/\blimitPrice\b/g, 'Limit price'],
  [/\bstopPrice\b/g, 'Stop price'],
  [/\btrailPrice\b/g, 'Trail'],
  [/\bstopLossBracket\b/g, 'Stop-loss'],
  [/\btakeProfitBracket\b/g, 'Take-profit'],
  [/\blinkedOrderId\b/g, 'OCO order'],
];

/** A refusal in the ticket's words (`limitPrice is required` → `Limit price is required`). */
export function ticketWords(message: string): string {
  return TICKET_WORDS.reduce((m, [re, word]) => m.replace(re, word), message);
}
