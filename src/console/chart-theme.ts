// The console's chart colors, and its candlestick series in them: the desk's price chart (chart.ts)
// and the playground's trades chart (pages/playground/trades-chart.ts) draw the same candles.

import { type CandlestickSeriesPartialOptions, CandlestickSeries, type IChartApi, type ISeriesApi } from 'lightweight-charts';

export const CHART_COLORS = {
  up: '#26a69a',
  down: '#ef5350',
  upVolume: 'rgba(38,166,154,.45)',
  downVolume: 'rgba(239,83,80,.45)',
  text: '#8b949e',
  grid: 'rgba(42,49,64,.55)',
  border: '#2a3140',
  accent: '#4c8dff',
  warn: '#e3b341',
};

/** A candlestick series on `chart`, up and down in the console's colors (body, border, wick); `more`: its other options. */
export function addCandles(chart: IChartApi, more: CandlestickSeriesPartialOptions): ISeriesApi<'Candlestick'> {
  return chart.addSeries(CandlestickSeries, {
    upColor: CHART_COLORS.up,
    downColor: CHART_COLORS.down,
    borderUpColor: CHART_COLORS.up,
    borderDownColor: CHART_COLORS.down,
    wickUpColor: CHART_COLORS.up,
    wickDownColor: CHART_COLORS.down,
    ...more,
  });
}
