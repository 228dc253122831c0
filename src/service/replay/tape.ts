// The market figures of a replay session's quotes: the last price, a synthetic best bid and ask, and
// the replayed trade date's open, high, low, volume and the previous trade date's close
// (docs/realtime.md). The session figures are real: read down the resolution ladder from the stored bars
// (data/ladder-read.ts) and then carried forward bar by bar while the session stays in one trade date,
// so a quote per played bar costs a few comparisons, not a read.

import type { BarColumns } from '../../data/bar-columns.ts';
import type { BarSource } from '../../data/bar-source.ts';
import { pushRange } from '../../data/ladder-read.ts';
import type { Instrument } from '../../domain/instrument.ts';
import { previousTradeDay, tradeDate, tradeDateStartS } from '../../domain/trading-hours.ts';
import type { QuoteFigures } from '../events/types.ts';

const MINUTE_S = 60;
const HOUR_S = 3_600;

/** Session figures of one trade date through `throughS` (exclusive). */
interface DayFigures {
  tradeDay: number;
  throughS: number;
  openTicks: number | null;
  highTicks: number;
  lowTicks: number;
  volume: number;
  previousCloseTicks: number | null;
}

/** Folds bars pushed in time order into open, high, low, volume and the last close. */
class FoldSink {
  open: number | null = null;
  high = -Infinity;
  low = Infinity;
  volume = 0;
  close: number | null = null;

  push(bars: BarColumns, from: number, to: number): void {
    for (let i = from; i < to; i++) {
      if (this.open === null) this.open = bars.open[i];
      if (bars.high[i] > this.high) this.high = bars.high[i];
      if (bars.low[i] < this.low) this.low = bars.low[i];
      this.volume += bars.volume[i];
      this.close = bars.close[i];
    }
  }
}

export class SessionTape {
  private day: DayFigures | null = null;

  constructor(
    private readonly inst: Instrument,
    private readonly source: BarSource,
  ) {}

  /**
   * The quote at `timeS` with last price `lastTicks`, after the bar [barStartS, timeS) with its high,
   * low and volume when one was just played (null after a jump or on a first quote: then read).
   */
  quote(timeS: number, lastTicks: number, bar: { startS: number; high: number; low: number; volume: number } | null): QuoteFigures {
    const d = this.figuresThrough(timeS, bar);
    return {
      timeS,
      lastTicks,
      bidTicks: lastTicks,
      askTicks: lastTicks + 1,
      openTicks: d.openTicks ?? lastTicks,
      highTicks: Number.isFinite(d.highTicks) ? d.highTicks : lastTicks,
      lowTicks: Number.isFinite(d.lowTicks) ? d.lowTicks : lastTicks,
      volume: d.volume,
      previousCloseTicks: d.previousCloseTicks,
    };
  }

  private figuresThrough(timeS: number, bar: { startS: number; high: number; low: number; volume: number } | null): DayFigures {
    // The figures belong to the trade date of the last second before timeS.
    const day = tradeDate(this.inst.session, timeS - 1);
    const d = this.day;
    const extends_ =
      d !== null && bar !== null && d.tradeDay === day && d.openTicks !== null && bar.startS >= d.throughS &&
      tradeDate(this.inst.session, bar.startS) === day;
    if (!extends_) return (this.day = this.read(day, timeS));
    d.highTicks = Math.max(d.highTicks, bar.high);
    d.lowTicks = Math.min(d.lowTicks, bar.low);
    d.volume += bar.volume;
    d.throughS = timeS;
    return d;
  }

  /** Reads the trade date's figures through `timeS`, and the previous trade date's close. */
  private read(day: number, timeS: number): DayFigures {
    const startS = tradeDateStartS(this.inst.session, day);
    const fold = new FoldSink();
    pushRange(this.source, this.inst, fold, startS, timeS, MINUTE_S);
    const prev = new FoldSink();
    const prevDay = previousTradeDay(day);
    pushRange(this.source, this.inst, prev, tradeDateStartS(this.inst.session, prevDay), startS, HOUR_S);
    return {
      tradeDay: day,
      throughS: timeS,
      openTicks: fold.open,
      highTicks: fold.high,
      lowTicks: fold.low,
      volume: fold.volume,
      previousCloseTicks: prev.close,
    };
  }
}
