// Chart indicators over a whole series of bars: one value per bar, null until the indicator is
// ready. The desk draws them (src/console), and their definitions are the playground's Python ones
// (runner/python/indicators.py), which a test checks on the same bars (test/domain/indicators.test.ts):
//
// - SMA: mean of the last n values. EMA: seeded with the SMA of the first n values, then
//   alpha·x + (1 − alpha)·prev with alpha = 2/(n + 1); first value at the n-th bar.
// - RSI (Wilder): the first average gain/loss is the mean of the first n changes, then
//   avg = (avg·(n − 1) + new)/n; 100 when the average loss is 0, 50 when both are 0; n + 1 values.
// - ATR (Wilder): true range max(h − l, |h − prev c|, |l − prev c|), h − l on the first bar; the
//   first ATR is the mean of the first n true ranges, then Wilder smoothing; n bars.
// - Bollinger: SMA(n) ± k × the population standard deviation of the same n values.
// - VWAP (no Python counterpart): Σ typical price × volume / Σ volume, typical = (h + l + c)/3,
//   restarted whenever the anchor changes (the desk passes each bar's trade date: the CME day
//   starts at 17:00 Chicago). A bar without volume keeps the VWAP; none before the first volume.
//
// Sums over a sliding window are kept running and summed afresh every n bars (as the Python classes
// do), so the drift is bounded and a series costs O(bars) whatever n is.

export type Series = (number | null)[];

export interface Bands {
  mid: Series;
  upper: Series;
  lower: Series;
}

function assertPeriod(n: number): void {
  if (!Number.isInteger(n) || n < 1) throw new Error(`period must be an integer >= 1, got ${n}`);
}

export function sma(values: ArrayLike<number>, n: number): Series {
  assertPeriod(n);
  const out: Series = new Array(values.length).fill(null);
  let sum = 0;
  for (let i = 0; i < values.length; i++) {
    sum += values[i];
    if (i >= n) sum -= values[i - n];
    // Summed afresh every n bars: a running sum drifts by a rounding error per bar.
    if (i >= n && (i - n) % n === n - 1) sum = windowSum(values, i - n + 1, i + 1);
    if (i >= n - 1) out[i] = sum / n;
  }
  return out;
}

function windowSum(values: ArrayLike<number>, from: number, to: number): number {
  let s = 0;
  for (let j = from; j < to; j++) s += values[j];
  return s;
}

export function ema(values: ArrayLike<number>, n: number): Series {
  assertPeriod(n);
  const out: Series = new Array(values.length).fill(null);
  const alpha = 2 / (n + 1);
  let value = 0;
  for (let i = 0; i < values.length; i++) {
    if (i < n - 1) value += values[i];
    else if (i === n - 1) value = (value + values[i]) / n;
    else value = alpha * values[i] + (1 - alpha) * value;
    if (i >= n - 1) out[i] = value;
  }
  return out;
}

function rsiValue(gain: number, loss: number): number {
  if (loss === 0) return gain === 0 ? 50 : 100;
  return 100 - 100 / (1 + gain / loss);
}

export function rsi(values: ArrayLike<number>, n = 14): Series {
  assertPeriod(n);
  const out: Series = new Array(values.length).fill(null);
  let gain = 0;
  let loss = 0;
  for (let i = 1; i < values.length; i++) {
    const d = values[i] - values[i - 1];
    const up = d > 0 ? d : 0;
    const down = d < 0 ? -d : 0;
    if (i <= n) {
      gain += up;
      loss += down;
      if (i < n) continue;
      gain /= n;
      loss /= n;
    } else {
      gain = (gain * (n - 1) + up) / n;
      loss = (loss * (n - 1) + down) / n;
    }
    out[i] = rsiValue(gain, loss);
  }
  return out;
}

export interface Ohlcv {
  highs: ArrayLike<number>;
  lows: ArrayLike<number>;
  closes: ArrayLike<number>;
  volumes: ArrayLike<number>;
}

function trueRange(b: Ohlcv, i: number): number {
  const h = b.highs[i];
  const l = b.lows[i];
  if (i === 0) return h - l;
  const pc = b.closes[i - 1];
  return Math.max(h - l, Math.abs(h - pc), Math.abs(l - pc));
}

export function atr(bars: Ohlcv, n = 14): Series {
  assertPeriod(n);
  const count = bars.closes.length;
  const out: Series = new Array(count).fill(null);
  let value = 0;
  for (let i = 0; i < count; i++) {
    const tr = trueRange(bars, i);
    if (i < n - 1) value += tr;
    else if (i === n - 1) value = (value + tr) / n;
    else value = (value * (n - 1) + tr) / n;
    if (i >= n - 1) out[i] = value;
  }
  return out;
}

/**
 * Bands of the last n values. Deviations are summed from an anchor near the data (re-anchored on
 * the mean every n bars), since a raw sum of squares of prices near 20,000 loses every digit of a
 * spread of a few points.
 */
export function bollinger(values: ArrayLike<number>, n = 20, k = 2): Bands {
  assertPeriod(n);
  const len = values.length;
  const mid: Series = new Array(len).fill(null);
  const upper: Series = new Array(len).fill(null);
  const lower: Series = new Array(len).fill(null);
  let anchor = len ? values[0] : 0;
  let s1 = 0;
  let s2 = 0;
  for (let i = 0; i < len; i++) {
    const d = values[i] - anchor;
    s1 += d;
    s2 += d * d;
    if (i >= n) {
      const old = values[i - n] - anchor;
      s1 -= old;
      s2 -= old * old;
      if ((i - n) % n === n - 1) [anchor, s1, s2] = reanchor(values, i - n + 1, i + 1);
    }
    if (i < n - 1) continue;
    const meanD = s1 / n;
    const variance = s2 / n - meanD * meanD;
    const sd = variance > 0 ? Math.sqrt(variance) : 0;
    mid[i] = anchor + meanD;
    upper[i] = anchor + meanD + k * sd;
    lower[i] = anchor + meanD - k * sd;
  }
  return { mid, upper, lower };
}

function reanchor(values: ArrayLike<number>, from: number, to: number): [number, number, number] {
  const anchor = windowSum(values, from, to) / (to - from);
  let s1 = 0;
  let s2 = 0;
  for (let j = from; j < to; j++) {
    const d = values[j] - anchor;
    s1 += d;
    s2 += d * d;
  }
  return [anchor, s1, s2];
}

/** Volume-weighted average price, restarted where `anchors[i]` (a trade date, say) changes. */
export function vwap(bars: Ohlcv, anchors: ArrayLike<number>): Series {
  const count = bars.closes.length;
  const out: Series = new Array(count).fill(null);
  let pv = 0;
  let vol = 0;
  for (let i = 0; i < count; i++) {
    if (i > 0 && anchors[i] !== anchors[i - 1]) {
      pv = 0;
      vol = 0;
    }
    const v = bars.volumes[i];
    pv += ((bars.highs[i] + bars.lows[i] + bars.closes[i]) / 3) * v;
    vol += v;
    out[i] = vol > 0 ? pv / vol : null;
  }
  return out;
}
