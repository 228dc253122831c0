// The desk's state for a session over several instruments: its panes (layout-model.ts), the one the
// ticket trades (and B/S), each other instrument's last price as its pane draws it (for the ticket,
// the positions' open P&L and the account's equity between server answers), and the tables' view
// of each row's contract. A session over one instrument has one pane and `many` false: the desk is
// as it always was.

import { useMemo, useState } from 'preact/hooks';
import type { SessionCore } from './core.ts';
import { contractLabel, instrumentsOf, type Pane, panesOf } from './layout-model.ts';
import type { Contract } from './model.ts';
import { replayedContractName } from './contract-name.ts';
import { formatFor } from './pane.tsx';
import type { PerContract } from './tables.tsx';

export interface MultiDesk {
  panes: Pane[];
  many: boolean;
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

export function useMultiDesk(core: SessionCore, lastPrice: number | null, clock: string | null): MultiDesk {
  const { meta } = core;
  const panes = useMemo(() => panesOf(meta), [meta.contract.id, meta.instruments, meta.timeframe]);
  const instruments = useMemo(() => instrumentsOf(meta), [panes]);
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
  return { panes, many, active, pick: setActiveId, lastPriceOf, mark, perContract };
}
