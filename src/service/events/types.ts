// The events the replay service publishes for the real-time hubs, in domain units. One topic per
// audience: a trading account's user events, a user's market feed on one instrument, a session's
// played bars (the console's extension), a user's credentials. Events are plain data, so a cluster
// can carry them between nodes as JSON (bus.ts).

import type { Fill, Order } from '../../engine/types.ts';
import type { AccountView } from '../accounts.ts';

/** 0 created, 1 updated, 2 removed or closed (the gateway's `action`). */
export type EventAction = 0 | 1 | 2;

/** A bar in ticks: time is its open, epoch seconds. */
export interface TickBar {
  timeS: number;
  open: number;
  high: number;
  low: number;
  close: number;
  volume: number;
}

/** The figures of one quote (replay/tape.ts explains which are real and which synthetic). */
export interface QuoteFigures {
  /** Simulated time of the quote: the end of the bar it closes (or the session's now). */
  timeS: number;
  lastTicks: number;
  bidTicks: number;
  askTicks: number;
  /** The replayed trade date's session figures up to `timeS`. */
  openTicks: number;
  highTicks: number;
  lowTicks: number;
  volume: number;
  /** The previous trade date's last close; null when there is none in the data. */
  previousCloseTicks: number | null;
}

export type ReplayEvent =
  /**
   * An order placed or changed: `order` as the spec shows it (engine/spec-view.ts), `gatewayOrder` as
   * the engine holds it (the gateway's types 5–7 and statuses 4, 5, 8), for a profile that speaks them.
   */
  | { topic: string; kind: 'order'; accountId: number; symbol: string; order: Readonly<Order>; gatewayOrder: Readonly<Order>; action: EventAction }
  /** `closing`: the fill reduced a position (its realized P&L is reported; an opening fill has none). */
  | { topic: string; kind: 'trade'; accountId: number; symbol: string; fill: Fill; closing: boolean }
  | {
      topic: string;
      kind: 'position';
      accountId: number;
      symbol: string;
      qty: number;
      avgPriceTicks: number;
      timeS: number;
      action: EventAction;
      /** The position's opening (the fill that opened it, and when), the closed one's on a close; null when unknown. */
      opening: { openedS: number; fillId: number } | null;
    }
  | { topic: string; kind: 'account'; account: AccountView }
  /** A processed bar of the session feeding a user's market subscriptions on `symbol`. */
  | {
      topic: string;
      kind: 'tick';
      userId: number;
      symbol: string;
      sessionAccountId: number;
      quote: QuoteFigures;
      bar: TickBar | null;
      /**
       * The last tick of its call. The ticks of one call are queued together, so a subscriber's
       * coalescing keeps only the last quote and book of them: earlier ones need not be built.
       */
      last: boolean;
    }
  /** Bars a session played (the console's chart), with the cursor after them. */
  | {
    topic: string; kind: 'bars'; accountId: number; symbol: string; bars: TickBar[];
    /** A session over several instruments: every instrument's bars of the move, by symbol. */
    bySymbol?: { symbol: string; bars: TickBar[] }[];
    currentIndex: number; nowS: number; ended: boolean;
  }
  /** Credentials stopped working: a token (logout) or all of a user's (key rotation, plan, disabled). */
  | { topic: string; kind: 'auth_revoked'; userId: number; jtiHash: string | null; reason: string };

export const userTopic = (accountId: number): string => `user:${accountId}`;
export const marketTopic = (userId: number, symbol: string): string => `market:${userId}:${symbol}`;
export const barsTopic = (accountId: number): string => `bars:${accountId}`;
export const accountsTopic = (userId: number): string => `accounts:${userId}`;
export const authTopic = (userId: number): string => `auth:${userId}`;
