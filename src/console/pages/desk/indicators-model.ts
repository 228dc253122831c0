// The chart's indicators: which are shown (a preference of this browser, for every session), and
// their lines, computed by the shared module (src/domain/indicators.ts, the playground's
// definitions) over the bars as drawn, again whenever they change (a step, a jump, another width).
// SMA, EMA, VWAP and Bollinger sit on the candles; RSI or ATR in the pane under them, one at a time.

import { useEffect, useRef, useState } from 'preact/hooks';
import type { PriceChart } from '../../chart.ts';
import { CHART_COLORS } from '../../chart-theme.ts';
import { atr, bollinger, ema, rsi, type Series, sma, vwap } from '../../../domain/indicators.ts';
import { instrumentForContractId } from '../../../domain/contract-id.ts';
import { tradeDate } from '../../../domain/trading-hours.ts';

export const INDICATORS = [
  { key: 'sma20', label: 'SMA 20', color: '#e3b341', pane: 0 },
  { key: 'ema9', label: 'EMA 9', color: '#c678dd', pane: 0 },
  { key: 'vwap', label: 'VWAP', color: '#56b6c2', pane: 0 },
  { key: 'bb20', label: 'BB 20,2', color: 'rgba(139,148,158,.9)', pane: 0 },
  { key: 'rsi14', label: 'RSI 14', color: '#4c8dff', pane: 1 },
  { key: 'atr14', label: 'ATR 14', color: '#f0883e', pane: 1 },
] as const;

export type IndicatorKey = (typeof INDICATORS)[number]['key'];

/** The lines an indicator draws (Bollinger: three), by line key. */
type Lines = Record<string, Series>;

export interface IndicatorsModel {
  shown: ReadonlySet<IndicatorKey>;
  /** Shows or hides one; RSI and ATR share the pane, so showing one hides the other. */
  toggle(key: IndicatorKey): void;
  /** Each shown line's value on the drawn bar at `timeS` (the legend), in INDICATORS' order. */
  valuesAt(timeS: number): { key: string; label: string; color: string; value: number | null }[];
}

const STORE_KEY = 'rd.desk.indicators';

function loadShown(): Set<IndicatorKey> {
  try {
    const v = JSON.parse(localStorage.getItem(STORE_KEY) ?? '[]');
    return new Set((Array.isArray(v) ? v : []).filter((k) => INDICATORS.some((i) => i.key === k)));
  } catch {
    return new Set();
  }
}

/** Every line of the shown indicators over the drawn bars. */
function compute(chart: PriceChart, shown: ReadonlySet<IndicatorKey>, contractId: string): Lines {
  const rows = chart.drawnBars();
  const vols = chart.drawnVolumes();
  const closes = rows.map((r) => r.close);
  const bars = { highs: rows.map((r) => r.high), lows: rows.map((r) => r.low), closes, volumes: vols.map((v) => v.value) };
  const session = instrumentForContractId(contractId)?.session ?? 'cme_globex';
  const out: Lines = {};
  if (shown.has('sma20')) out.sma20 = sma(closes, 20);
  if (shown.has('ema9')) out.ema9 = ema(closes, 9);
  if (shown.has('vwap')) out.vwap = vwap(bars, rows.map((r) => tradeDate(session, r.time)));
  if (shown.has('bb20')) {
    const b = bollinger(closes, 20, 2);
    Object.assign(out, { 'bb20.upper': b.upper, 'bb20.mid': b.mid, 'bb20.lower': b.lower });
  }
  if (shown.has('rsi14')) out.rsi14 = rsi(closes, 14);
  if (shown.has('atr14')) out.atr14 = atr(bars, 14);
  return out;
}

const specOf = (lineKey: string) => INDICATORS.find((i) => i.key === lineKey.split('.')[0])!;

export function useIndicators(chart: { current: PriceChart | null }, contractId: string, ready: boolean): IndicatorsModel {
  const [shown, setShown] = useState<ReadonlySet<IndicatorKey>>(loadShown);
  const lines = useRef<Lines>({});
  const times = useRef<number[]>([]);
  const [, bump] = useState(0);
  useEffect(() => {
    const c = chart.current;
    if (!c || !ready) return;
    let frame = 0;
    const draw = () => {
      frame = 0;
      const next = compute(c, shown, contractId);
      const t = c.drawnBars().map((r) => r.time as number);
      for (const key of Object.keys(lines.current)) if (!(key in next)) c.removeLine(key);
      for (const [key, values] of Object.entries(next)) {
        const spec = specOf(key);
        c.setLine(key, t.map((time, i) => ({ time, value: values[i] })), { color: spec.color, pane: spec.pane as 0 | 1, title: key.includes('.') ? '' : spec.label });
      }
      lines.current = next;
      times.current = t;
      bump((n) => n + 1);
    };
    // Bars arrive in bursts while playing: one computation a frame.
    const later = () => {
      if (!frame) frame = requestAnimationFrame(draw);
    };
    draw();
    const off = c.onBarsChange(later);
    return () => {
      off();
      if (frame) cancelAnimationFrame(frame);
    };
  }, [chart.current, shown, ready]);

  const toggle = (key: IndicatorKey) => {
    const next = new Set(shown);
    if (next.has(key)) next.delete(key);
    else {
      next.add(key);
      if (key === 'rsi14') next.delete('atr14');
      if (key === 'atr14') next.delete('rsi14');
    }
    setShown(next);
    try {
      localStorage.setItem(STORE_KEY, JSON.stringify([...next]));
    } catch {
      // Not kept: shown for this page only.
    }
  };

  const valuesAt = (timeS: number) => {
    const i = times.current.indexOf(timeS);
    return Object.entries(lines.current).map(([key, values]) => {
      const spec = specOf(key);
      return { key, label: key.includes('.') ? `BB ${key.split('.')[1]}` : spec.label, color: spec.color, value: i < 0 ? null : values[i] };
    });
  };
  return { shown, toggle, valuesAt };
}
