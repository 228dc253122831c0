// The chart's indicators (src/domain/indicators.ts) against the playground's Python ones
// (runner/python/indicators.py, run here under python3 as the harness test runs them) on the same
// bars: the streaming classes bar by bar and the sequence functions at every bar.
import { describe, expect, it } from 'bun:test';
import { join } from 'node:path';
import { atr, bollinger, ema, type Ohlcv, rsi, type Series, sma, vwap } from '../../src/domain/indicators.ts';

const ROOT = join(import.meta.dir, '..', '..');

/** 600 bars of NQ-like prices on the 0.25 grid, with a flat stretch (RSI's 50) and a rising one (its 100). */
function bars(): { opens: number[]; highs: number[]; lows: number[]; closes: number[]; volumes: number[] } {
  let seed = 7;
  const rand = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648);
  const opens: number[] = [];
  const highs: number[] = [];
  const lows: number[] = [];
  const closes: number[] = [];
  const volumes: number[] = [];
  let price = 21_000;
  for (let i = 0; i < 600; i++) {
    const flat = i >= 100 && i < 130;
    const rising = i >= 200 && i < 230;
    const move = flat ? 0 : rising ? 1.25 : Math.round((rand() - 0.5) * 40) / 4;
    const open = price;
    const close = price + move;
    const high = Math.max(open, close) + (flat ? 0 : Math.round(rand() * 12) / 4);
    const low = Math.min(open, close) - (flat ? 0 : Math.round(rand() * 12) / 4);
    opens.push(open);
    highs.push(high);
    lows.push(low);
    closes.push(close);
    volumes.push(flat ? 0 : 1 + Math.floor(rand() * 400));
    price = close;
  }
  return { opens, highs, lows, closes, volumes };
}

const PY = `
import json, sys
sys.path.insert(0, 'runner/python')
import indicators as ind
b = json.load(sys.stdin)
c, h, l = b['closes'], b['highs'], b['lows']
cls = {'sma20': ind.SMA(20), 'sma50': ind.SMA(50), 'ema9': ind.EMA(9), 'ema21': ind.EMA(21), 'rsi14': ind.RSI(14), 'atr14': ind.ATR(14), 'bb20': ind.Bollinger(20, 2.0)}
out = {k: [] for k in cls}
fn = {'sma20': [], 'ema21': [], 'rsi14': [], 'atr14': [], 'bb20': []}
for i in range(len(c)):
    for k, o in cls.items():
        v = o.update(h[i], l[i], c[i]) if k == 'atr14' else o.update(c[i])
        out[k].append(list(v) if isinstance(v, tuple) else v)
    p = c[:i + 1]
    fn['sma20'].append(ind.sma(p, 20))
    fn['ema21'].append(ind.ema(p, 21))
    fn['rsi14'].append(ind.rsi(p, 14))
    fn['atr14'].append(ind.atr(h[:i + 1], l[:i + 1], p, 14))
    bb = ind.bollinger(p, 20, 2.0)
    fn['bb20'].append(list(bb) if bb else None)
print(json.dumps({'classes': out, 'functions': fn}))
`;

function python(input: unknown): any {
  const r = Bun.spawnSync(['python3', '-c', PY], { cwd: ROOT, stdin: Buffer.from(JSON.stringify(input)), stdout: 'pipe', stderr: 'pipe' });
  if (r.exitCode !== 0) throw new Error(r.stderr.toString());
  return JSON.parse(r.stdout.toString());
}

/** Same readiness bar for bar, and values equal to a billionth (relative). */
function agree(ts: Series, py: (number | null)[], name: string): void {
  expect(ts.length).toBe(py.length);
  const bad: string[] = [];
  for (let i = 0; i < ts.length; i++) {
    const a = ts[i];
    const b = py[i];
    if (a === null || b === null) {
      if (a !== b) bad.push(`${name}[${i}]: ${a} vs ${b}`);
    } else if (Math.abs(a - b) > 1e-9 * Math.max(1, Math.abs(b))) bad.push(`${name}[${i}]: ${a} vs ${b}`);
  }
  expect(bad.slice(0, 5)).toEqual([]);
}

describe('indicators agree with the playground’s Python on the same bars', () => {
  const b = bars();
  const py = python(b);
  const bb = bollinger(b.closes, 20, 2);
  const band = (rows: (number[] | null)[], j: number) => rows.map((r) => (r ? r[j] : null));

  it('SMA, EMA, RSI, ATR and Bollinger equal the streaming classes at every bar', () => {
    agree(sma(b.closes, 20), py.classes.sma20, 'sma20');
    agree(sma(b.closes, 50), py.classes.sma50, 'sma50');
    agree(ema(b.closes, 9), py.classes.ema9, 'ema9');
    agree(ema(b.closes, 21), py.classes.ema21, 'ema21');
    agree(rsi(b.closes, 14), py.classes.rsi14, 'rsi14');
    agree(atr(b, 14), py.classes.atr14, 'atr14');
    agree(bb.mid, band(py.classes.bb20, 0), 'bb20.mid');
    agree(bb.upper, band(py.classes.bb20, 1), 'bb20.upper');
    agree(bb.lower, band(py.classes.bb20, 2), 'bb20.lower');
  });

  it('and the sequence functions at every prefix', () => {
    agree(sma(b.closes, 20), py.functions.sma20, 'sma20');
    agree(ema(b.closes, 21), py.functions.ema21, 'ema21');
    agree(rsi(b.closes, 14), py.functions.rsi14, 'rsi14');
    agree(atr(b, 14), py.functions.atr14, 'atr14');
    agree(bb.upper, band(py.functions.bb20, 1), 'bb20.upper');
  });

  it('reach the edge cases the bars hold: RSI 50 on a flat stretch, 100 on a rising one, bands closed when flat', () => {
    expect(rsi(b.closes.slice(200, 230), 14)[29]).toBe(100);
    const flat = bollinger(b.closes.slice(100, 130), 20, 2);
    expect(flat.upper[29]).toBe(flat.lower[29]);
    expect(rsi(b.closes.slice(100, 130), 14)[29]).toBe(50);
  });
});

describe('VWAP (no Python counterpart): by hand', () => {
  const ohlcv = (rows: [number, number, number, number][]): Ohlcv => ({
    highs: rows.map((r) => r[0]),
    lows: rows.map((r) => r[1]),
    closes: rows.map((r) => r[2]),
    volumes: rows.map((r) => r[3]),
  });

  it('weights each bar’s typical price by its volume and restarts with each anchor (trade date)', () => {
    const b = ohlcv([
      [12, 9, 9, 0], // no volume yet: no VWAP
      [12, 9, 9, 100], // typical 10
      [21, 18, 21, 300], // typical 20: (10·100 + 20·300) / 400 = 17.5
      [30, 30, 30, 0], // no volume: unchanged
      [6, 3, 3, 50], // a new trade date: typical 4 alone
    ]);
    expect(vwap(b, [1, 1, 1, 1, 2])).toEqual([null, 10, 17.5, 17.5, 4]);
  });

  it('refuses a period that is not a whole number of bars', () => {
    expect(() => sma([1, 2, 3], 0)).toThrow('period must be an integer >= 1');
    expect(() => ema([1, 2, 3], 2.5)).toThrow('period must be an integer >= 1');
  });
});
