// The panes of a session over several instruments (layout-model.ts): the session's own chart (its
// first instrument, with its toolbar, drawings and chart trading, session.tsx) and, beside it, one
// chart per other instrument on the same clock: its bars (pane-bars.ts) at the widths and with the
// indicators and legend of the session's chart, its orders, position and fills on it, and its last
// price. The ticket trades the pane picked (its tab, or a click on the
// pane); the tables list every contract.

import type { ComponentChildren } from 'preact';
import { useEffect, useMemo } from 'preact/hooks';
import { decimalsOf } from '../../chart.ts';
import type { Tables } from './book.ts';
import { OrderOverlay, useChartDecorations } from './chart-orders.tsx';
import { ChartToolbar, Legend, useHoveredBar } from './chart-tools.tsx';
import { useChartTrading } from './chart-trading.ts';
import type { DrawingsModel } from './drawings-model.ts';
import { useIndicators } from './indicators-model.ts';
import type { TicketModel } from './ticket-model.ts';
import type { Trading } from './trading.ts';
import { useView } from './view-model.ts';
import { ContractName } from './contract-label.tsx';
import type { PriceFormat, SessionCore } from './core.ts';
import { bookFor, gridOf, type Pane } from './layout-model.ts';
import type { Contract } from './model.ts';
import { usePaneBars } from './pane-bars.ts';
import type { SessionFeed } from './session-feed.ts';

/** A price format at a contract's tick (the desk's own at the session's first contract: core.ts). */
export const formatFor = (tickSize: number): PriceFormat => {
  const d = decimalsOf(tickSize);
  return { price: (p) => (p === null || p === undefined ? '—' : p.toFixed(d)) };
};

/** The session's core as one contract sees it: orders placed through it name that contract, prices at its tick. */
export function paneCore(core: SessionCore, contract: Contract): SessionCore {
  if (contract.id === core.meta.contract.id) return core;
  return { ...core, meta: { ...core.meta, contract }, decimals: decimalsOf(contract.tickSize), fmt: formatFor(contract.tickSize) };
}

/** The panes side by side: two columns from two panes on, two rows from three. */
export function PaneGrid({ count, children }: { count: number; children: ComponentChildren }) {
  const { columns, rows } = gridOf(count);
  return (
    <div class={`desk-panes cols-${columns} rows-${rows}`} data-testid="desk-panes">
      {children}
    </div>
  );
}

interface HeadProps {
  contract: Contract;
  at: string | null;
  lastPrice: number | null;
  active: boolean;
  onPick: () => void;
}

/** A pane's name line: the contract (the front month on the replayed date), its last price, and whether the ticket trades it. */
export function PaneHead({ contract, at, lastPrice, active, onPick }: HeadProps) {
  return (
    <div class={`pane-head ${active ? 'active' : ''}`} data-testid="pane-head" data-contract={contract.id}>
      <span class="pane-name">
        <ContractName contract={contract} at={at} />
      </span>
      <span class="mono pane-last" data-testid="pane-last">
        {formatFor(contract.tickSize).price(lastPrice)}
      </span>
      <button type="button" class={`small ${active ? 'primary' : 'ghost'}`} aria-pressed={active} onClick={onPick} data-testid="pane-trade">
        {active ? 'Ticket' : 'Trade'}
      </button>
    </div>
  );
}

interface PaneProps {
  pane: Pane;
  core: SessionCore;
  session: SessionFeed;
  tables: Tables;
  active: boolean;
  onPick: () => void;
  /** The session's order commands (cancel from a chip; the tables and snapshot after a move). */
  trading: Trading;
  ticket: TicketModel;
  /** The pane's last price, for the ticket, the positions' P&L and the account's equity. */
  onMark: (contractId: string, price: number | null) => void;
}

/**
 * The drawings are the session's chart's (one set a session on the server): a pane has none. Its
 * toolbar hides the drawing tools and the click hint (desk-panes.css); its clicks go nowhere.
 */
const NO_DRAWINGS: DrawingsModel = { hlines: [], trends: [], mode: 'none', loaded: false, problem: null, pending: null, choose: () => undefined, click: () => false, clear: () => undefined };

/** A pane's chart models: its bars, its contract's book and lines, width, indicators, the bar under the pointer, moves of its chips. */
function usePaneChart({ pane, core, session, tables, trading, ticket, onMark }: PaneProps) {
  const bars = usePaneBars(core, session, pane);
  const { contract } = pane;
  const ready = !bars.loading;
  const fmt = useMemo(() => formatFor(contract.tickSize), [contract.tickSize]);
  const book = useMemo(() => bookFor(tables.book, contract.id), [tables.book, contract.id]);
  const at = { tickSize: contract.tickSize, tickValue: contract.tickValue, lastPrice: bars.lastPrice, fmt };
  const lines = useChartDecorations(bars.chart, book, core.meta.brackets, core.meta.trailing, at, session.progress.currentIndex);
  const view = useView(bars.chart, pane.timeframe, ready);
  const indicators = useIndicators(bars.chart, contract.id, ready);
  const hover = useHoveredBar(bars.chart, ready);
  // Its chips move at its tick; its trailing stop-loss legs are found in its book (trailing.ts).
  const chartTrading = useChartTrading(paneCore(core, contract), book, trading, ticket);
  useEffect(() => onMark(contract.id, bars.lastPrice), [bars.lastPrice]);
  return { bars, ready, fmt, book, lines, view, indicators, hover, chartTrading };
}

/** Another instrument of the session beside its own chart: its bars (width, indicators, legend), its orders (chips that cancel and move), position and fills. */
export function InstrumentPane(props: PaneProps) {
  const { pane, core, session, tables, trading, active, onPick } = props;
  const { bars, ready, fmt, book, lines, view, indicators, hover, chartTrading } = usePaneChart(props);
  const { contract } = pane;
  return (
    <div class={`pane ${active ? 'active' : ''}`} data-testid="pane" data-contract={contract.id}>
      <PaneHead contract={contract} at={session.lastTime} lastPrice={bars.lastPrice} active={active} onPick={onPick} />
      <div class="chart-wrap card pane-chart">
        {/* Cancel all and Flatten are the account's (every contract), as the C and F keys. */}
        <ChartToolbar view={view} indicators={indicators} drawings={NO_DRAWINGS} trading={chartTrading} orderCount={tables.book.orders.length} positionCount={tables.book.positions.length} blocked={!!core.over || !ready} />
        <div class="chart" ref={bars.chartEl} data-testid="pane-chart" onPointerDown={onPick} />
        <Legend chart={bars.chart.current} hover={hover} indicators={indicators} fmt={fmt} />
        <OrderOverlay chart={bars.chart} orders={book.orders} lines={lines} onCancel={trading.cancel} onMove={chartTrading.move} trailing={core.meta.trailing.orders} canceling={trading.canceling} fmt={fmt} tickSize={contract.tickSize} />
        {bars.loading && <div class="chart-loading">Loading bars…</div>}
        {chartTrading.error && <div class="chart-note error-note">{chartTrading.error}</div>}
        {bars.note && <div class="chart-note left">{bars.note}</div>}
      </div>
    </div>
  );
}
