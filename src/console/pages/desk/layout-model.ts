// The desk's layout: the panes a session shows side by side, each one instrument at one timeframe.
// A session over one instrument has one pane; a session over several (issue 34) one pane per
// instrument, in the order the session lists them (its first is the spec's `instrument`). Two
// timeframes of one instrument (issue 30) are panes of the same instrument at different timeframes:
// the model keeps the pair, so nothing here assumes one pane per instrument.
//
// Also the per-contract views the panes and the tables share: a book cut to one contract, and a
// contract's short name for the tables' Contract column.

import type { Static } from '@sinclair/typebox';
import type { SessionContract } from '../../../http/web/shapes.ts';
import type { Book } from './live.ts';

/** A contract as the desk describes a session's (model.ts's Contract; this module stays free of the page's imports). */
type Contract = Static<typeof SessionContract>;

/** What the layout reads of a session's description (model.ts's SessionMeta). */
interface Described {
  contract: Contract;
  instruments?: Contract[];
  timeframe: string;
}

export interface Pane {
  /** Stable within a session: the contract and the timeframe. */
  key: string;
  contract: Contract;
  timeframe: string;
  /** The session's first instrument at the session's timeframe: the pane the desk's clock, history and drawings follow. */
  primary: boolean;
}

/** Most panes side by side: the session's instruments (Replay/start takes at most 4). */
export const MAX_PANES = 4;

/** The session's instruments, first the spec's `instrument`. */
export function instrumentsOf(meta: Pick<Described, 'contract' | 'instruments'>): Contract[] {
  const rest = (meta.instruments ?? []).filter((c) => c.id !== meta.contract.id);
  return [meta.contract, ...rest].slice(0, MAX_PANES);
}

/** One pane per instrument at the session's timeframe. */
export function panesOf(meta: Described): Pane[] {
  return instrumentsOf(meta).map((contract, k) => ({ key: `${contract.id}@${meta.timeframe}`, contract, timeframe: meta.timeframe, primary: k === 0 }));
}

/**
 * The grid the panes take: one column for one pane, two side by side for two, and two rows of two
 * for three or four (a third chart beside two others would be too narrow to read at 1280 px).
 */
export function gridOf(count: number): { columns: number; rows: number } {
  if (count <= 1) return { columns: 1, rows: 1 };
  if (count === 2) return { columns: 2, rows: 1 };
  return { columns: 2, rows: 2 };
}

/** The orders, positions and fills of one contract. */
export function bookFor(b: Book, contractId: string): Book {
  return {
    orders: b.orders.filter((o) => o.contractId === contractId),
    positions: b.positions.filter((p) => p.contractId === contractId),
    fills: b.fills.filter((t) => t.contractId === contractId),
  };
}

/** A contract's API name (its ID when not one of the session's): the tables' Contract column when no front month is named on the replayed date. */
export function contractLabel(instruments: readonly Contract[], contractId: string): string {
  return instruments.find((c) => c.id === contractId)?.name ?? contractId;
}
