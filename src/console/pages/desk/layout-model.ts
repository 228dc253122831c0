// The desk's layout: the panes a session shows side by side, each one instrument at one timeframe.
// By default a session over one instrument has one pane; a session over several (issue 34) one pane
// per instrument, in the order the session lists them (its first is the spec's `instrument`). The
// trader may choose another layout (issue 30, "Two timeframes of one session side by side"): one to
// four panes, each any of the session's instruments at its timeframe or a wider one it divides (a
// 1 m session beside its 15 m context). The first pane is always the session's own chart (its first
// instrument, its drawings and clicks); its timeframe is its view width. A layout is kept per session.
//
// Also the per-contract views the panes and the tables share: a book cut to one contract, and a
// contract's short name for the tables' Contract column.

import type { Static } from '@sinclair/typebox';
import type { SessionContract } from '../../../http/web/shapes.ts';
import { PRESET_TIMEFRAMES } from '../../../domain/timeframe.ts';
import { viewWidths } from './chart-rules.ts';
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
  /** The first pane: the session's own chart (its first instrument), which the desk's clock, history and drawings follow. */
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

/** What the trader chose for one pane: an instrument of the session and the width its bars are drawn at. */
export interface PaneChoice {
  contractId: string;
  timeframe: string;
}

/** The panes chosen, first the session's own chart (its first instrument). */
export type Layout = PaneChoice[];

/** The default: one pane per instrument at the session's timeframe (panesOf). */
export function defaultLayout(meta: Described): Layout {
  return instrumentsOf(meta).map((c) => ({ contractId: c.id, timeframe: meta.timeframe }));
}

/**
 * The panes of a layout. `key` names contract and timeframe as panesOf's; the page keeps a pane by
 * its place in the layout, so a change of its timeframe redraws it in place (no new read).
 */
export function layoutPanes(meta: Described, layout: Layout): Pane[] {
  const instruments = instrumentsOf(meta);
  return layout.map((p, k) => {
    const contract = instruments.find((c) => c.id === p.contractId) ?? meta.contract;
    return { key: `${contract.id}@${p.timeframe}`, contract, timeframe: p.timeframe, primary: k === 0 };
  });
}

/** Whether a pane's choice fits the session: one of its instruments, at a width its bars can be drawn at. */
function fits(meta: Described, p: unknown): p is PaneChoice {
  if (typeof p !== 'object' || p === null) return false;
  const { contractId, timeframe } = p as PaneChoice;
  return instrumentsOf(meta).some((c) => c.id === contractId) && viewWidths(meta.timeframe).includes(timeframe);
}

/** A kept layout (from localStorage: anything) if it still fits the session, its first pane the session's first instrument; else the default. */
export function readLayout(meta: Described, kept: unknown): Layout {
  if (!Array.isArray(kept) || kept.length < 1 || kept.length > MAX_PANES || !kept.every((p) => fits(meta, p))) return defaultLayout(meta);
  if (kept[0].contractId !== meta.contract.id) return defaultLayout(meta);
  return kept.map((p: PaneChoice) => ({ contractId: p.contractId, timeframe: p.timeframe }));
}

/** How much wider than the session's bars a context pane is at least: 1 m → 15 m, 5 m → 1 h, 1 h → 1 d. */
const CONTEXT_WIDTH_RATIO = 12;

/** A preset's width in seconds (viewWidths offers presets only, past the session's own). */
const widthOf = (tf: string): number => PRESET_TIMEFRAMES.find((t) => t.text === tf)?.widthS ?? 0;

/**
 * The pane added to a layout: an instrument not shown yet at the session's timeframe, else the
 * session's first instrument at a width not shown yet (the first at least 12 times the session's,
 * else the widest left), else at the session's timeframe.
 */
export function addedPane(meta: Described, layout: Layout): PaneChoice {
  const unseen = instrumentsOf(meta).find((c) => !layout.some((p) => p.contractId === c.id));
  if (unseen) return { contractId: unseen.id, timeframe: meta.timeframe };
  const id = meta.contract.id;
  const shown = new Set(layout.filter((p) => p.contractId === id).map((p) => p.timeframe));
  const wider = viewWidths(meta.timeframe).slice(1).filter((w) => !shown.has(w));
  const context = wider.find((w) => widthOf(w) >= CONTEXT_WIDTH_RATIO * widthOf(meta.timeframe)) ?? wider[wider.length - 1];
  return { contractId: id, timeframe: context ?? meta.timeframe };
}

/** The layout with `count` panes (1 to MAX_PANES): the last ones dropped, or panes added (addedPane). */
export function resizeLayout(meta: Described, layout: Layout, count: number): Layout {
  const n = Math.max(1, Math.min(MAX_PANES, Math.floor(count)));
  const out = layout.slice(0, n);
  while (out.length < n) out.push(addedPane(meta, out));
  return out;
}

/** The layout with pane `k` changed, if the change fits the session (the first pane keeps the session's first instrument). */
export function changePane(meta: Described, layout: Layout, k: number, change: Partial<PaneChoice>): Layout {
  if (k < 0 || k >= layout.length) return layout;
  const p = { ...layout[k], ...change };
  if ((k === 0 && p.contractId !== meta.contract.id) || !fits(meta, p)) return layout;
  return layout.map((q, i) => (i === k ? p : q));
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
