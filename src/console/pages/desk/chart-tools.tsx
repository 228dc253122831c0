// Over the chart: the toolbar (width, indicators, drawing tools, cancel-all and flatten-all) and
// the OHLC legend of the bar under the pointer (the last bar otherwise), with the indicators'
// values on it. Layout; the state is the models' (view-model, indicators-model, drawings-model,
// chart-trading), and the click routing is useChartClicks below.

import { useEffect, useRef, useState } from 'preact/hooks';
import type { CandleRow, PriceChart } from '../../chart.ts';
import type { ChartTrading } from './chart-trading.ts';
import type { PriceFormat } from './core.ts';
import type { DrawingsModel } from './drawings-model.ts';
import { INDICATORS, type IndicatorsModel } from './indicators-model.ts';
import type { ViewModel } from './view-model.ts';
import { formatTime, zoneLabel } from '../../time-format.ts';

interface ToolbarProps {
  view: ViewModel;
  indicators: IndicatorsModel;
  drawings: DrawingsModel;
  trading: ChartTrading;
  orderCount: number;
  positionCount: number;
  blocked: boolean;
}

export function ChartToolbar({ view, indicators, drawings, trading, orderCount, positionCount, blocked }: ToolbarProps) {
  return (
    <div class="chart-toolbar" data-testid="chart-toolbar">
      <select name="viewWidth" value={view.width} onChange={(e) => view.setWidth((e.target as HTMLSelectElement).value)} title="Show the session's bars at another width (up to the clock)">
        {view.options.map((w) => (
          <option value={w} key={w}>
            {w}
          </option>
        ))}
      </select>
      <span class="tool-group">
        {INDICATORS.map((i) => (
          <button type="button" key={i.key} class={`tool ${indicators.shown.has(i.key) ? 'on' : ''}`} data-indicator={i.key} onClick={() => indicators.toggle(i.key)} style={{ '--tool-color': i.color }}>
            {i.label}
          </button>
        ))}
      </span>
      <span class="tool-group">
        <button type="button" class={`tool ${drawings.mode === 'hline' ? 'on' : ''}`} data-draw="hline" onClick={() => drawings.choose('hline')} disabled={!drawings.loaded} title="Horizontal line: click a price">
          ― Line
        </button>
        <button type="button" class={`tool ${drawings.mode === 'trend' ? 'on' : ''}`} data-draw="trend" onClick={() => drawings.choose('trend')} disabled={!drawings.loaded} title="Trend line: click its two ends">
          ╱ Trend
        </button>
        {drawings.hlines.length + drawings.trends.length > 0 && (
          <button type="button" class="tool" data-draw="clear" onClick={drawings.clear} title="Remove this session's drawings">
            Clear
          </button>
        )}
      </span>
      {drawings.problem ? (
        <span class="error small hint" data-testid="drawings-problem">
          {drawings.problem}
        </span>
      ) : (
        <span class="muted small hint">{drawings.mode === 'trend' ? (drawings.pending ? 'Click the second end' : 'Click the first end') : drawings.mode === 'hline' ? 'Click a price' : 'Shift+click: limit · Alt+click: stop'}</span>
      )}
      <span class="tool-group right">
        <button type="button" class="tool" data-testid="cancel-all" onClick={trading.cancelAll} disabled={blocked || trading.busy || orderCount === 0} title="Cancel every working order (C)">
          Cancel all <kbd>C</kbd>
        </button>
        <button type="button" class="tool flat" data-testid="flatten-all" onClick={trading.flattenAll} disabled={blocked || trading.busy || positionCount === 0} title="Close every position at market (F)">
          Flatten <kbd>F</kbd>
        </button>
      </span>
    </div>
  );
}

/** The bar under the pointer, or null when the pointer is off the bars. */
export function useHoveredBar(chart: { current: PriceChart | null }, ready: boolean): { row: CandleRow | null; volume: number | null } {
  const [hover, setHover] = useState<{ row: CandleRow | null; volume: number | null }>({ row: null, volume: null });
  useEffect(() => {
    const c = chart.current;
    if (!c || !ready) return;
    return c.onHover((row, volume) => setHover({ row, volume }));
  }, [chart.current, ready]);
  return hover;
}

export function Legend({ chart, hover, indicators, fmt }: { chart: PriceChart | null; hover: { row: CandleRow | null; volume: number | null }; indicators: IndicatorsModel; fmt: PriceFormat }) {
  const rows = chart?.drawnBars() ?? [];
  const row = hover.row ?? rows[rows.length - 1] ?? null;
  if (!row) return null;
  const volume = hover.row ? hover.volume : (chart?.drawnVolumes()[rows.length - 1]?.value ?? null);
  const cls = row.close >= row.open ? 'pos' : 'neg';
  return (
    <div class="chart-legend mono" data-testid="legend" data-time={row.time}>
      <span class="muted" data-testid="legend-time">
        {formatTime(row.time * 1000).slice(0, 16)} {zoneLabel()}
      </span>
      {(['open', 'high', 'low', 'close'] as const).map((k) => (
        <span key={k}>
          <span class="muted">{k[0].toUpperCase()}</span> <span class={cls} data-testid={`legend-${k}`}>{fmt.price(row[k])}</span>
        </span>
      ))}
      <span>
        <span class="muted">V</span> <span data-testid="legend-volume">{volume ?? '—'}</span>
      </span>
      {indicators.valuesAt(row.time).map((v) => (
        <span key={v.key} style={{ color: v.color }} data-testid={`legend-${v.key}`}>
          {v.label} {v.value === null ? '—' : v.key === 'rsi14' ? v.value.toFixed(1) : fmt.price(v.value)}
        </span>
      ))}
    </div>
  );
}

/** Routes a click on the chart: to the drawing tool in use, else to chart trading (modified clicks). */
export function useChartClicks(chart: { current: PriceChart | null }, ready: boolean, drawings: DrawingsModel, trading: ChartTrading): void {
  const latest = useRef({ drawings, trading });
  latest.current = { drawings, trading };
  useEffect(() => {
    const c = chart.current;
    if (!c || !ready) return;
    return c.onClick((click) => {
      if (!latest.current.drawings.click(click)) latest.current.trading.click(click);
    });
  }, [chart.current, ready]);
}
