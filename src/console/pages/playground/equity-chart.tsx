// The run's equity curve (mark-to-market at bar closes) with its drawdown from the running peak in
// a pane below: lightweight-charts LineSeries and AreaSeries, fitted to the whole run. `data-points`
// and `data-drawdown-points` give tests the series lengths; `data-last-equity` the last value drawn;
// `data-first-time` / `data-last-time` the curve's ends and `data-visible-from` / `data-visible-to`
// the edges of the view (epoch seconds).

import { AreaSeries, ColorType, createChart, type IChartApi, type ISeriesApi, LineSeries, LineStyle, type UTCTimestamp } from 'lightweight-charts';
import { useEffect, useRef } from 'preact/hooks';
import { zonedTickMark, zonedTimeOptions } from '../../chart-time.ts';

export interface EquityPoint {
  time: number; // epoch seconds
  equity: number;
}

/** Drawdown at each point: equity minus the highest equity so far (≤ 0). */
export function drawdownOf(points: readonly EquityPoint[], start: number): { time: number; value: number }[] {
  let peak = start;
  return points.map((p) => {
    peak = Math.max(peak, p.equity);
    return { time: p.time, value: Math.round((p.equity - peak) * 100) / 100 };
  });
}

const css = (name: string) => getComputedStyle(document.documentElement).getPropertyValue(name).trim();

export function chartTheme() {
  return {
    layout: {
      background: { type: ColorType.Solid, color: 'transparent' },
      textColor: css('--muted') || '#8b949e',
      fontSize: 11,
      attributionLogo: false,
      panes: { separatorColor: '#2a3140' },
    },
    grid: { vertLines: { color: 'rgba(42,49,64,.45)' }, horzLines: { color: 'rgba(42,49,64,.45)' } },
    rightPriceScale: { borderColor: '#2a3140' },
    // Times in the zone Settings chose, as the price charts (chart-time.ts).
    timeScale: { borderColor: '#2a3140', timeVisible: true, secondsVisible: false, tickMarkFormatter: zonedTickMark },
    localization: zonedTimeOptions(false).localization,
    autoSize: true,
  };
}

interface Props {
  points: readonly EquityPoint[];
  startingBalance: number;
  /** The host's data-testid (several charts on a page: the result's, a walk-forward window's). */
  testid?: string;
}

export function EquityChart({ points, startingBalance, testid = 'equity-chart' }: Props) {
  const host = useRef<HTMLDivElement>(null);
  const chart = useRef<{ chart: IChartApi; equity: ISeriesApi<'Line'>; dd: ISeriesApi<'Area'> } | null>(null);

  useEffect(() => {
    // Fitted to the whole run however many points: lightweight-charts' default minimum of 0.5 px a
    // point would show only the last ~1,000 of 2,000 in a narrow pane.
    const theme = chartTheme();
    const c = createChart(host.current!, { ...theme, timeScale: { ...theme.timeScale, minBarSpacing: 0.01 }, handleScale: { axisPressedMouseMove: false } });
    const equity = c.addSeries(LineSeries, {
      color: css('--accent') || '#4c8dff',
      lineWidth: 2,
      priceFormat: { type: 'price', precision: 2, minMove: 0.01 },
      title: 'Equity',
    });
    equity.createPriceLine({ price: startingBalance, color: '#8b949e', lineStyle: LineStyle.Dotted, lineWidth: 1, axisLabelVisible: false, title: 'start' });
    const dd = c.addSeries(
      AreaSeries,
      {
        lineColor: css('--neg') || '#ef5350',
        topColor: 'rgba(239,83,80,.05)',
        bottomColor: 'rgba(239,83,80,.35)',
        lineWidth: 1,
        invertFilledArea: true,
        priceFormat: { type: 'price', precision: 0, minMove: 1 },
        title: 'Drawdown',
      },
      1,
    );
    c.panes()[1]?.setStretchFactor(0.45);
    chart.current = { chart: c, equity, dd };
    const el = host.current!;
    const onView = () => {
      const r = c.timeScale().getVisibleRange();
      el.dataset.visibleFrom = r ? String(r.from) : '';
      el.dataset.visibleTo = r ? String(r.to) : '';
    };
    c.timeScale().subscribeVisibleTimeRangeChange(onView);
    return () => {
      c.timeScale().unsubscribeVisibleTimeRangeChange(onView);
      chart.current = null;
      c.remove();
    };
  }, [startingBalance]);

  useEffect(() => {
    const c = chart.current;
    if (!c) return;
    // Strictly increasing times (lightweight-charts requires it).
    const clean: EquityPoint[] = [];
    for (const p of points) if (!clean.length || p.time > clean[clean.length - 1]!.time) clean.push(p);
    c.equity.setData(clean.map((p) => ({ time: p.time as UTCTimestamp, value: p.equity })));
    c.dd.setData(drawdownOf(clean, startingBalance).map((p) => ({ time: p.time as UTCTimestamp, value: p.value })));
    c.chart.timeScale().fitContent();
    const el = host.current!;
    el.dataset.points = String(clean.length);
    el.dataset.drawdownPoints = String(clean.length);
    el.dataset.lastEquity = clean.length ? String(clean[clean.length - 1]!.equity) : '';
    el.dataset.firstTime = clean.length ? String(clean[0]!.time) : '';
    el.dataset.lastTime = clean.length ? String(clean[clean.length - 1]!.time) : '';
  }, [points, startingBalance]);

  return <div class="pg-chart pg-equity" ref={host} data-testid={testid} data-points="0" data-drawdown-points="0" />;
}
