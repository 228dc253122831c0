// The desk's state across its panes: the layout's panes (layout-model.ts), the instrument the
// ticket trades (and B/S), each other instrument's last price as its pane draws it (for the ticket,
// the positions' open P&L and the account's equity between server answers), and the tables' view
// of each row's contract. A session over one instrument has `many` false: no Contract column, no
// Trade button. The layout (layout-model.ts: how many panes, each one's instrument and width) is the
// trader's choice, kept per session in this browser (localStorage, as the session's own description
// is: model.ts) so it survives a reload.

import { useMemo, useRef, useState } from 'preact/hooks';
import type { SessionCore } from './core.ts';
import { changePane, contractLabel, instrumentsOf, type Layout, layoutPanes, type Pane, type PaneChoice, readLayout, resizeLayout } from './layout-model.ts';
import type { Contract } from './model.ts';
import { replayedContractName } from './contract-name.ts';
import { formatFor } from './pane.tsx';
import type { PerContract } from './tables.tsx';

export interface MultiDesk {
  /** The layout's panes, first the session's own chart. */
  panes: Pane[];
  /** Several instruments: the tables name each row's contract, each pane offers the ticket. */
  many: boolean;
  /** How many panes (1 to MAX_PANES): the last dropped, or one added (layout-model.ts addedPane). */
  setCount(n: number): void;
  /** A pane's instrument or width changed (the first pane's instrument is the session's). */
  setPane(k: number, change: Partial<PaneChoice>): void;
  /** The instrument the ticket trades. */
  active: Contract;
  pick(contractId: string): void;
  /** A contract's last price: the session's own chart's for its first instrument, its pane's for the others. */
  lastPriceOf(contractId: string): number | null;
  /** A pane drew a bar: its instrument's last price. */
  mark(contractId: string, price: number | null): void;
  /** The tables' Contract column (the front month on the replayed date, as the panes name it) and per-contract prices; undefined for one instrument. */
  perContract: PerContract | undefined;
}

const layoutKey = (accountId: number) => `rd.desk.layout.${accountId}`;

/** The session's kept layout, or its default (layout-model.ts readLayout). */
function keptLayout(meta: SessionCore['meta']): Layout {
  try {
    return readLayout(meta, JSON.parse(localStorage.getItem(layoutKey(meta.accountId)) ?? 'null'));
  } catch {
    return readLayout(meta, null);
  }
}

/**
 * A pane's width or instrument is chosen in a menu (a select), which keeps the focus and with it the
 * keys (keys.ts leaves a select's keys alone: → would change the width, not step). Once chosen the
 * keys are the desk's again, as after a click on a chart (TradingView's interval menu does the same).
 */
function keysToDesk(): void {
  if (document.activeElement instanceof HTMLSelectElement) document.activeElement.blur();
}

/** The layout, kept per session in this browser. Changes apply to the newest layout, however fast they come. */
function useLayout(meta: SessionCore['meta']) {
  const [layout, setLayout] = useState<Layout>(() => keptLayout(meta));
  const newest = useRef(layout);
  const keep = (change: (l: Layout) => Layout) => {
    const next = change(newest.current);
    if (next === newest.current) return;
    newest.current = next;
    try {
      localStorage.setItem(layoutKey(meta.accountId), JSON.stringify(next));
    } catch {
      // Storage full or refused: the layout holds until the page goes.
    }
    setLayout(next);
  };
  return {
    panes: useMemo(() => layoutPanes(meta, layout), [layout, meta.contract.id, meta.instruments, meta.timeframe]),
    setCount: (n: number) => keep((l) => resizeLayout(meta, l, n)),
    setPane: (k: number, change: Partial<PaneChoice>) => {
      keep((l) => changePane(meta, l, k, change));
      keysToDesk();
    },
  };
}

export function useMultiDesk(core: SessionCore, lastPrice: number | null, clock: string | null): MultiDesk {
  const { meta } = core;
  const { panes, setCount, setPane } = useLayout(meta);
  const instruments = useMemo(() => instrumentsOf(meta), [meta.contract.id, meta.instruments]);
  const [activeId, setActiveId] = useState(meta.contract.id);
  const [marks, setMarks] = useState<Record<string, number | null>>({});
  const active = instruments.find((c) => c.id === activeId) ?? meta.contract;
  const lastPriceOf = (id: string) => (id === meta.contract.id ? lastPrice : marks[id] ?? null);

  const mark = (contractId: string, price: number | null) => {
    const c = instruments.find((x) => x.id === contractId);
    if (!c || contractId === meta.contract.id) return;
    core.live.current.marks = { ...core.live.current.marks, [contractId]: { lastPrice: price, tickSize: c.tickSize, tickValue: c.tickValue } };
    setMarks((m) => ({ ...m, [contractId]: price }));
    if (core.live.current.book.positions.some((p) => p.contractId === contractId)) core.reprice();
  };

  const many = instruments.length > 1;
  const byId = (id: string) => instruments.find((c) => c.id === id) ?? meta.contract;
  const perContract: PerContract | undefined = many
    ? {
        name: (id) => replayedContractName(id, clock) ?? contractLabel(instruments, id),
        fmt: (id) => formatFor(byId(id).tickSize),
        mark: (id) => ({ lastPrice: lastPriceOf(id), tickSize: byId(id).tickSize, tickValue: byId(id).tickValue }),
      }
    : undefined;
  return { panes, many, setCount, setPane, active, pick: setActiveId, lastPriceOf, mark, perContract };
}
