// Trades as chart markers, readable at any zoom: one mark per entry and per exit (a reversal's exit
// and the next entry share one), and, where marks of one side would sit closer than a marker's
// width at the chart's current bar spacing, one marker standing for all of them with their count.
// Pure functions: the chart (trades-chart.ts) calls them again whenever the zoom changes.

import type { Trade } from './types.ts';

export interface TradeMark {
  /** Index of the bar holding the mark's time. */
  bar: number;
  side: 'buy' | 'sell';
  /** The trade whose entry (or exit, or reversal) this is. */
  trade: number;
  exit: boolean;
  text: string;
}

export interface DrawnMarker {
  bar: number;
  side: 'buy' | 'sell';
  /** Marks it stands for (1: a single entry or exit). */
  count: number;
  text: string;
  kind: 'entry' | 'exit' | 'group' | 'focused';
}

/** Index of the last time at or before `s` in ascending `times`; -1 if none. */
export function barAtOrBefore(times: readonly number[], s: number): number {
  let lo = 0;
  let hi = times.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (times[mid]! <= s) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}

const pnlText = (t: Trade) => `${t.pnl >= 0 ? '+' : '−'}${Math.abs(t.pnl).toFixed(0)}`;

/** Entry and exit marks of `trades` on bars at `barTimes` (epoch s, ascending), in bar order. */
export function tradeMarks(trades: readonly Trade[], barTimes: readonly number[]): TradeMark[] {
  const out: TradeMark[] = [];
  const push = (timeIso: string, side: 'buy' | 'sell', trade: number, exit: boolean, text: string) => {
    const bar = barAtOrBefore(barTimes, Date.parse(timeIso) / 1000);
    if (bar >= 0) out.push({ bar, side, trade, exit, text });
  };
  trades.forEach((t, i) => {
    const long = t.side === 'long';
    const prev = trades[i - 1];
    if (prev === undefined || prev.exitTime !== t.entryTime) push(t.entryTime, long ? 'buy' : 'sell', i, false, `${long ? 'Long' : 'Short'} ${t.size}`);
    const next = trades[i + 1];
    // A reversal: one mark in the new direction, labelled with the closed trade's P&L.
    if (next && next.entryTime === t.exitTime) push(t.exitTime, next.side === 'long' ? 'buy' : 'sell', i, false, pnlText(t));
    else push(t.exitTime, long ? 'sell' : 'buy', i, true, pnlText(t));
  });
  return out.sort((a, b) => a.bar - b.bar);
}

/**
 * The markers to draw when marks closer than `cellBars` bars would overlap: per side, a sweep from
 * the oldest mark opens a group and takes every mark less than `cellBars` bars after the group's
 * first, so drawn markers of a side are at least `cellBars` apart (stable while scrolling: only the
 * zoom changes the groups). The focused trade's marks are drawn on their own. Single marks carry
 * their text when `labelled`.
 */
export function groupMarks(marks: readonly TradeMark[], cellBars: number, focused: number | null, labelled: boolean): DrawnMarker[] {
  const out: DrawnMarker[] = [];
  for (const side of ['buy', 'sell'] as const) {
    let group: DrawnMarker | null = null;
    for (const m of marks) {
      if (m.side !== side) continue;
      if (m.trade === focused) {
        out.push({ bar: m.bar, side, count: 1, text: m.text, kind: 'focused' });
        continue;
      }
      if (group !== null && m.bar < group.bar + cellBars) {
        group.count++;
        group.kind = 'group';
        group.text = `${group.count}`;
        continue;
      }
      group = { bar: m.bar, side, count: 1, text: labelled ? m.text : '', kind: m.exit ? 'exit' : 'entry' };
      out.push(group);
    }
  }
  return out.sort((a, b) => a.bar - b.bar);
}
