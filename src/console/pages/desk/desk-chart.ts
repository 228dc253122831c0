// The chart's models together: its decorations (order and position lines, fill markers), the width
// it shows, the indicators, the drawings, trading from the chart, the bar under the pointer and
// where a click goes. session.tsx lays them out (chart-tools.tsx, chart-orders.tsx). The width is the
// first pane's in the desk's layout (multi-desk.ts), kept per session.

import type { CandleRow } from '../../chart.ts';
import { useMemo } from 'preact/hooks';
import type { Tables } from './book.ts';
import { bookFor } from './layout-model.ts';
import type { Book } from './live.ts';
import { type OrderLine, useChartDecorations } from './chart-orders.tsx';
import { useChartClicks, useHoveredBar } from './chart-tools.tsx';
import { type ChartTrading, useChartTrading } from './chart-trading.ts';
import type { SessionCore } from './core.ts';
import { type DrawingsModel, useDrawings } from './drawings-model.ts';
import { type IndicatorsModel, useIndicators } from './indicators-model.ts';
import type { SessionFeed } from './session-feed.ts';
import type { TicketModel } from './ticket-model.ts';
import type { Trading } from './trading.ts';
import { useView, type ViewModel } from './view-model.ts';
import { type RiskReward, useRiskReward } from './risk-reward.ts';
import { money } from '../../ui.tsx';

export interface DeskChart {
  /** The tables' book cut to the chart's contract (a session over several instruments lists them all). */
  book: Book;
  lines: OrderLine[];
  view: ViewModel;
  indicators: IndicatorsModel;
  drawings: DrawingsModel;
  trading: ChartTrading;
  /** The risk/reward (long/short position) tool. */
  rr: RiskReward;
  hover: { row: CandleRow | null; volume: number | null };
}

/** The width the chart is drawn at, and its change (the layout's first pane). */
export interface ChartWidth {
  width: string;
  setWidth(tf: string): void;
}

export function useDeskChart(core: SessionCore, session: SessionFeed, tables: Tables, trading: Trading, ticket: TicketModel, width: ChartWidth): DeskChart {
  const { meta, fmt } = core;
  const { chart, loading, lastPrice, progress } = session;
  const ready = !loading;
  const at = { tickSize: meta.contract.tickSize, tickValue: meta.contract.tickValue, lastPrice, fmt };
  const book = useMemo(() => bookFor(tables.book, meta.contract.id), [tables.book, meta.contract.id]);
  const lines = useChartDecorations(chart, book, meta.brackets, meta.trailing, at, progress.currentIndex);
  const view = useView(chart, meta.timeframe, width.width, width.setWidth, ready);
  const indicators = useIndicators(chart, meta.contract.id, ready);
  const drawings = useDrawings(chart, meta.accountId, ready, meta.contract.tickSize, session.chartEl);
  const chartTrading = useChartTrading(core, book, trading, ticket);
  const rr = useRiskReward(chart, ready, meta.contract, { size: ticket.size, lastPrice, money }, trading);
  const hover = useHoveredBar(chart, ready);
  useChartClicks(chart, ready, drawings, chartTrading, rr);
  return { book, lines, view, indicators, drawings, trading: chartTrading, rr, hover };
}
