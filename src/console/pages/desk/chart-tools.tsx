// Over the chart: the toolbar (width, indicators, drawing tools, cancel-all and flatten-all) and
// the OHLC legend of the bar under the pointer (the last bar otherwise), with the indicators'
// values on it. Layout; the state is the models' (view-model, indicators-model, drawings-model,
// chart-trading), and the click routing is useChartClicks below.

import { useEffect, useRef, useState } from 'preact/hooks';
import type { CandleRow, PriceChart } from '../../chart.ts';
import type { ChartTrading } from './chart-trading.ts';
import type { PriceFormat } from './core.ts';
import type { DrawingTools, DrawingsModel, DrawKind, DrawMode } from './drawings-model.ts';
import { INDICATORS, type IndicatorsModel } from './indicators-model.ts';
import type { ViewModel } from './view-model.ts';
import type { RiskReward } from './risk-reward.ts';
import { formatTime, zoneLabel } from '../../time-format.ts';

interface ToolbarProps {
  view: ViewModel;
  indicators: IndicatorsModel;
  drawings: DrawingsModel;
  trading: ChartTrading;
  orderCount: number;
  positionCount: number;
  blocked: boolean;
  /** The risk/reward tool; absent where the chart has none. */
  rr?: RiskReward;
}

export function ChartToolbar({ view, indicators, drawings, trading, orderCount, positionCount, blocked, rr }: ToolbarProps) {
  const bar = useToolbarHeight();
  return (
    <div class="chart-toolbar" data-testid="chart-toolbar" ref={bar}>
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
      <DrawTools drawings={drawings} />
      {rr && (
        <span class="tool-group">
          <button type="button" class={`tool ${rr.choosing === 'long' ? 'on' : ''}`} data-draw="long" onClick={() => rr.choose('long')} title="Long position (risk/reward): click the entry, then drag the stop and the target" style={{ '--tool-color': '#26a69a' }}>
            Long
          </button>
          <button type="button" class={`tool ${rr.choosing === 'short' ? 'on' : ''}`} data-draw="short" onClick={() => rr.choose('short')} title="Short position (risk/reward): click the entry, then drag the stop and the target" style={{ '--tool-color': '#ef5350' }}>
            Short
          </button>
        </span>
      )}
      {rr?.choosing ? (
        <span class="muted small hint">Click the entry price</span>
      ) : drawings.problem ? (
        <span class="error small hint" data-testid="drawings-problem">
          {drawings.problem}
        </span>
      ) : drawings.tools && drawings.tools.selected !== null ? (
        <Selection tools={drawings.tools} drawings={drawings} />
      ) : (
        <span class="muted small hint">{hintOf(drawings)}</span>
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

const DRAW_BUTTONS: readonly { mode: DrawMode; label: string; title: string }[] = [
  { mode: 'hline', label: '―', title: 'Horizontal line: click a price' },
  { mode: 'trend', label: '╱', title: 'Trend line: click its two ends' },
  { mode: 'ray', label: '→', title: 'Horizontal ray: click where it starts; it extends right' },
  { mode: 'rect', label: '▭', title: 'Rectangle: click two opposite corners' },
  { mode: 'fib', label: 'Fib', title: 'Fibonacci retracement: click the swing start (100 %), then its end (0 %)' },
  { mode: 'text', label: 'T', title: 'Note: type it, then click where it goes' },
];

const KIND_NAMES: Record<DrawKind, string> = { hline: 'Line', trend: 'Trend line', ray: 'Ray', rect: 'Rectangle', fib: 'Fibonacci retracement', text: 'Note' };

function hintOf(d: DrawingsModel): string {
  if (d.mode === 'none') return 'Click a drawing to select it · Shift+click: limit · Alt+click: stop';
  if (d.mode === 'hline' || d.mode === 'ray') return 'Click a price';
  if (d.mode === 'text') return 'Click where the note goes';
  if (d.mode === 'move') return 'Click where its first point goes';
  return d.pending ? 'Click the second point' : 'Click the first point';
}

/** The drawing tools, the note's text while the note tool is in hand, and where new drawings are kept. */
function DrawTools({ drawings }: { drawings: DrawingsModel }) {
  const tools = drawings.tools;
  const own = tools ? tools.items.filter((d) => !d.instrument).length : drawings.hlines.length + drawings.trends.length;
  return (
    <span class="tool-group">
      {DRAW_BUTTONS.filter((b) => tools || b.mode === 'hline' || b.mode === 'trend').map((b) => (
        <button type="button" key={b.mode} class={`tool ${drawings.mode === b.mode ? 'on' : ''}`} data-draw={b.mode} onClick={() => drawings.choose(b.mode)} disabled={!drawings.loaded} title={b.title}>
          {b.label}
        </button>
      ))}
      {tools && drawings.mode === 'text' && (
        <input name="noteText" class="note-text" maxLength={200} placeholder="Note text" value={tools.noteText} onInput={(e) => tools.setNoteText((e.target as HTMLInputElement).value)} />
      )}
      {tools && (
        <label class="small muted" title="Keep new drawings on every session of this instrument (yesterday's levels in today's session), not only this one">
          <input type="checkbox" name="drawForInstrument" checked={tools.forInstrument} onChange={(e) => tools.setForInstrument((e.target as HTMLInputElement).checked)} /> All sessions
        </label>
      )}
      {own > 0 && (
        <button type="button" class="tool" data-draw="clear" onClick={drawings.clear} title="Remove this session's own drawings (those kept for the instrument stay)">
          Clear
        </button>
      )}
    </span>
  );
}

/** The selected drawing: its kind, where it is kept, Move and Delete. */
function Selection({ tools, drawings }: { tools: DrawingTools; drawings: DrawingsModel }) {
  const d = tools.items[tools.selected!];
  if (!d) return null;
  return (
    <span class="tool-group small" data-testid="drawing-selected" data-kind={d.kind}>
      <span>{KIND_NAMES[d.kind]}</span>
      <label title="Kept on every session of this instrument, not only this one">
        <input type="checkbox" name="selectedForInstrument" checked={d.instrument} onChange={(e) => tools.setScope((e.target as HTMLInputElement).checked)} /> All sessions
      </label>
      <button type="button" class={`tool ${drawings.mode === 'move' ? 'on' : ''}`} data-draw="move" onClick={() => drawings.choose('move')} title="Then click where its first point goes">
        Move
      </button>
      <button type="button" class="tool" data-draw="delete" onClick={tools.remove} title="Remove it (Delete)">
        Delete <kbd>Del</kbd>
      </button>
    </span>
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

/** Routes a click on the chart: to the risk/reward tool or the drawing tool in use, else to chart trading (modified clicks). */
export function useChartClicks(chart: { current: PriceChart | null }, ready: boolean, drawings: DrawingsModel, trading: ChartTrading, rr?: RiskReward): void {
  const latest = useRef({ drawings, trading, rr });
  latest.current = { drawings, trading, rr };
  useEffect(() => {
    const c = chart.current;
    if (!c || !ready) return;
    return c.onClick((click) => {
      const l = latest.current;
      if (!l.rr?.click(click) && !l.drawings.click(click)) l.trading.click(click);
    });
  }, [chart.current, ready]);
}

/**
 * Keeps the toolbar's height in `--toolbar-h` on its chart box, so the legend and the chart start
 * under it however many rows it wraps to (a pane beside another, a narrow window).
 */
function useToolbarHeight() {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = ref.current;
    const box = el?.parentElement;
    if (!el || !box) return;
    const put = () => box.style.setProperty('--toolbar-h', `${el.offsetHeight}px`);
    put();
    const watch = new ResizeObserver(put);
    watch.observe(el);
    return () => watch.disconnect();
  }, []);
  return ref;
}
