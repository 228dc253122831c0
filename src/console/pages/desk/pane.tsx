// The panes of the desk's layout (layout-model.ts): the session's own chart (its first instrument,
// with its toolbar, drawings and chart trading, session.tsx) and, beside it, the other panes on the
// same clock: another instrument, or the first at another width (1 m beside 15 m). Each has its bars
// (pane-bars.ts) at its width, with the indicators and legend of the session's chart, its
// instrument's orders, position and fills, its last price and the time its bars reach; a pane of
// the session's first instrument shows the session's drawings too. The ticket trades the pane picked
// (its tab, or a click on the pane); the tables list every contract.

import type { ComponentChildren } from 'preact';
import { useEffect, useMemo } from 'preact/hooks';
import { decimalsOf, type PriceChart } from '../../chart.ts';
import { formatTime } from '../../time-format.ts';
import type { Tables } from './book.ts';
import { OrderOverlay, useChartDecorations } from './chart-orders.tsx';
import { ChartToolbar, Legend, useChartClicks, useHoveredBar } from './chart-tools.tsx';
import { useChartTrading } from './chart-trading.ts';
import { type Drawing, type DrawingsModel, useDrawn } from './drawings-model.ts';
import { useIndicators } from './indicators-model.ts';
import type { TicketModel } from './ticket-model.ts';
import type { Trading } from './trading.ts';
import { ContractName } from './contract-label.tsx';
import { MoveConfirm } from './move-confirm.tsx';
import { replayedContractName } from './contract-name.ts';
import type { PriceFormat, SessionCore } from './core.ts';
import { bookFor, gridOf, MAX_PANES, type Pane } from './layout-model.ts';
import type { Contract } from './model.ts';
import { usePaneBars } from './pane-bars.ts';
import { useView } from './view-model.ts';
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
  /** The close of the pane's last bar (ISO): the session's clock when in step. */
  through: string | null;
  active: boolean;
  onPick: () => void;
  /** The Trade button: a session over several instruments only (one instrument: the ticket trades it). */
  tradable: boolean;
  /** The layout's choice (the first pane) or the pane's instrument (the others, several instruments). */
  children?: ComponentChildren;
}

/** A pane's name line: the contract (the front month on the replayed date), the time its bars reach, its last price, and whether the ticket trades it. */
export function PaneHead({ contract, at, lastPrice, through, active, onPick, tradable, children }: HeadProps) {
  return (
    <div class={`pane-head ${active ? 'active' : ''}`} data-testid="pane-head" data-contract={contract.id}>
      <span class="pane-name">
        <ContractName contract={contract} at={at} />
      </span>
      {children}
      <span class="mono muted small pane-clock" data-testid="pane-clock" data-time={through ?? ''} title="The time this pane's bars reach">
        {through ? formatTime(through).slice(11, 19) : '—'}
      </span>
      <span class="mono pane-last" data-testid="pane-last">
        {formatFor(contract.tickSize).price(lastPrice)}
      </span>
      {tradable && (
        <button type="button" class={`small ${active ? 'primary' : 'ghost'}`} aria-pressed={active} onClick={onPick} data-testid="pane-trade">
          {active ? 'Ticket' : 'Trade'}
        </button>
      )}
    </div>
  );
}

const LAYOUT_TITLES = ['One chart', 'Two side by side', 'Three: two rows', 'Four: two rows of two'];

/** How many panes the desk shows (the first pane's head). */
export function LayoutPicker({ count, onCount }: { count: number; onCount: (n: number) => void }) {
  return (
    <span class="layout-pick" role="group" aria-label="Charts side by side" data-testid="layout-pick">
      {Array.from({ length: MAX_PANES }, (_, k) => k + 1).map((n) => (
        <button type="button" key={n} class={n === count ? 'on' : ''} aria-pressed={n === count} title={LAYOUT_TITLES[n - 1]} onClick={() => onCount(n)} data-testid="layout-count" data-count={n}>
          {n}
        </button>
      ))}
    </span>
  );
}

/** A pane's instrument, any of the session's (a pane after the first, several instruments). */
export function InstrumentPick({ instruments, value, at, onChange }: { instruments: Contract[]; value: string; at: string | null; onChange: (id: string) => void }) {
  return (
    <select class="pane-pick" name="paneInstrument" value={value} onChange={(e) => onChange((e.target as HTMLSelectElement).value)} title="This pane's instrument" data-testid="pane-instrument">
      {instruments.map((c) => (
        <option value={c.id} key={c.id}>
          {replayedContractName(c.id, at) ?? c.name}
        </option>
      ))}
    </select>
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
  /** The session's instruments: several offer the Trade button and a choice of instrument. */
  instruments: Contract[];
  /** The session's drawings (its own chart's), shown on a pane of its first instrument. */
  drawings: DrawingsModel;
  /** The pane's width or instrument chosen (the layout's, kept per session). */
  onWidth: (tf: string) => void;
  onInstrument: (contractId: string) => void;
}

/**
 * The drawings are the session's chart's (one set a session on the server), drawn and changed there:
 * a pane of the same instrument shows them (drawings-model.ts useDrawn), a pane of another shows none. A
 * pane's toolbar hides the drawing tools and the click hint (desk-panes.css); its plain clicks draw
 * nothing, and its Shift/Alt+clicks place orders on a pane of the session's first instrument only.
 */
const NO_DRAWINGS: DrawingsModel = { hlines: [], trends: [], mode: 'none', loaded: false, problem: null, pending: null, choose: () => undefined, click: () => false, clear: () => undefined };

/** A pane's chart models: its bars, its contract's book and lines, width, indicators, the bar under the pointer, moves of its chips. */
function usePaneChart({ pane, core, session, tables, trading, ticket, onMark, drawings, onWidth }: PaneProps) {
  const bars = usePaneBars(core, session, pane);
  const { contract } = pane;
  const ready = !bars.loading;
  const fmt = useMemo(() => formatFor(contract.tickSize), [contract.tickSize]);
  const book = useMemo(() => bookFor(tables.book, contract.id), [tables.book, contract.id]);
  const at = { tickSize: contract.tickSize, tickValue: contract.tickValue, lastPrice: bars.lastPrice, fmt };
  const lines = useChartDecorations(bars.chart, book, core.meta.brackets, core.meta.trailing, at, session.progress.currentIndex);
  const view = useView(bars.chart, core.meta.timeframe, pane.timeframe, onWidth, ready);
  // Every kind, drawn as the session's chart draws it (drawings-shapes.ts), none selected: read-only here.
  useDrawn(bars.chart, contract.id === core.meta.contract.id ? (drawings.tools?.items ?? NO_ITEMS) : NO_ITEMS, null, ready, contract.tickSize);
  const indicators = useIndicators(bars.chart, contract.id, ready);
  const hover = useHoveredBar(bars.chart, ready);
  // Its chips move at its tick; its trailing stop-loss legs are found in its book (trailing.ts).
  const chartTrading = useChartTrading(paneCore(core, contract), book, trading, ticket);
  // Shift/Alt+click orders read the session's last price (core.ts): the first instrument's panes only.
  useChartClicks(bars.chart, ready && contract.id === core.meta.contract.id, NO_DRAWINGS, chartTrading);
  useEffect(() => onMark(contract.id, bars.lastPrice), [bars.lastPrice]);
  return { bars, ready, fmt, book, lines, view, indicators, hover, chartTrading };
}

/** A pane beside the session's own chart: an instrument at a width, its bars (indicators, legend), its orders (chips that cancel and move), position and fills. */
export function InstrumentPane(props: PaneProps) {
  const { pane, core, session, tables, trading, active, onPick, instruments } = props;
  const { bars, ready, fmt, book, lines, view, indicators, hover, chartTrading } = usePaneChart(props);
  const { contract } = pane;
  const many = instruments.length > 1;
  return (
    <div class={`pane ${active ? 'active' : ''}`} data-testid="pane" data-contract={contract.id} data-timeframe={pane.timeframe}>
      <PaneHead contract={contract} at={session.lastTime} lastPrice={bars.lastPrice} through={bars.through} active={active} onPick={onPick} tradable={many}>
        {many && <InstrumentPick instruments={instruments} value={contract.id} at={session.lastTime} onChange={props.onInstrument} />}
      </PaneHead>
      <div class="chart-wrap card pane-chart">
        {/* Cancel all and Flatten are the account's (every contract), as the C and F keys. */}
        <ChartToolbar view={view} indicators={indicators} drawings={NO_DRAWINGS} trading={chartTrading} orderCount={tables.book.orders.length} positionCount={tables.book.positions.length} blocked={!!core.over || !ready} />
        <div class="chart" ref={bars.chartEl} data-testid="pane-chart" onPointerDown={onPick} />
        <Legend chart={bars.chart.current} hover={hover} indicators={indicators} fmt={fmt} />
        <OrderOverlay chart={bars.chart} orders={book.orders} lines={lines} onCancel={trading.cancel} onMove={chartTrading.move} trailing={core.meta.trailing.orders} canceling={trading.canceling} fmt={fmt} tickSize={contract.tickSize} />
        {bars.loading && <div class="chart-loading">Loading bars…</div>}
        {chartTrading.error && <div class="chart-note error-note">{chartTrading.error}</div>}
        {chartTrading.pendingMove && <MoveConfirm trading={chartTrading} fmt={fmt} />}
        {bars.note && <div class="chart-note left">{bars.note}</div>}
      </div>
    </div>
  );
}

const NO_ITEMS: readonly Drawing[] = [];
