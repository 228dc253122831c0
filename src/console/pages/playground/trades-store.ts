// Every trade of an execution, for the trade list and the price chart, and the trade the user picked
// in the list (the chart moves to it). An ended execution carries only its first 5,000 trades; the
// rest are read once, in pages of GET executions/:id/trades, and shared by both views.

import { useEffect, useState } from 'preact/hooks';
import { playground } from '../../api.ts';
import type { Execution, Trade } from './types.ts';

/** GET executions/:id/trades serves at most this many a page (docs/playground.md). */
const PAGE_LIMIT = 1000;

const loaded = new Map<string, Promise<Trade[]>>();

async function fetchAll(ex: Execution): Promise<Trade[]> {
  const out = ex.trades.slice();
  for (let page = 0; out.length < ex.tradesTotal; page++) {
    const r = await playground<{ trades: Trade[]; total: number }>('GET', `executions/${encodeURIComponent(ex.id)}/trades?offset=${out.length}&limit=${PAGE_LIMIT}`);
    if (r.trades.length === 0) break; // the stored list ends here (a run recorded before full storage)
    out.push(...r.trades);
    if (page > ex.tradesTotal / PAGE_LIMIT + 1) break;
  }
  return out;
}

function allTrades(ex: Execution): Promise<Trade[]> {
  let p = loaded.get(ex.id);
  if (!p) {
    p = fetchAll(ex);
    loaded.set(ex.id, p);
    p.catch(() => loaded.delete(ex.id));
  }
  return p;
}

export interface TradesState {
  trades: readonly Trade[];
  /** True while later pages are still being read. */
  loading: boolean;
  error: string | null;
}

/** The execution's trades: all of them once it has ended (paged in), the recent ones while it runs. */
export function useAllTrades(ex: Execution): TradesState {
  const complete = ex.status === 'running' || ex.tradesTotal <= ex.trades.length;
  const [state, setState] = useState<TradesState>({ trades: ex.trades, loading: !complete, error: null });
  useEffect(() => {
    setState({ trades: ex.trades, loading: !complete, error: null });
    if (complete) return;
    let live = true;
    allTrades(ex).then(
      (trades) => live && setState({ trades, loading: false, error: null }),
      (e: Error) => live && setState({ trades: ex.trades, loading: false, error: `Trades could not be loaded: ${e.message}` }),
    );
    return () => {
      live = false;
    };
  }, [ex.id, ex.status, ex.trades, ex.tradesTotal]);
  return state;
}

// ---- The picked trade ----

let focused: { executionId: string; index: number } | null = null;
const listeners = new Set<() => void>();

/** Picks trade `index` (0-based, oldest first) of an execution: the price chart moves to it. */
export function focusTrade(executionId: string, index: number): void {
  focused = { executionId, index };
  for (const f of listeners) f();
}

/** The picked trade of this execution, or null. */
export function useFocusedTrade(executionId: string): number | null {
  const [, bump] = useState(0);
  useEffect(() => {
    const f = () => bump((n) => n + 1);
    listeners.add(f);
    return () => {
      listeners.delete(f);
    };
  }, []);
  return focused !== null && focused.executionId === executionId ? focused.index : null;
}
