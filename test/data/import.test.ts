// Bar-file import: each format's real layout parses to exact columns (UTC open times, integer ticks),
// finer bars and ticks aggregate to the stored resolution, coarser ones are refused, and every
// validation rule names its line. Fixtures: test/fixtures/import/ (one file per format, bad/ for errors).

import { describe, expect, it } from 'bun:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BarColumns } from '../../src/data/bar-columns.ts';
import { parseGenericCsv } from '../../src/data/import/generic-csv.ts';
import { parseHistData } from '../../src/data/import/histdata.ts';
import { parseBarFile } from '../../src/data/import/index.ts';
import { parseNinjaTrader } from '../../src/data/import/ninjatrader.ts';
import type { ImportOptions } from '../../src/data/import/types.ts';
import { findInstrument, type Instrument } from '../../src/domain/instrument.ts';
import { zoneByName } from '../../src/data/import/time-zone.ts';

const FIXTURES = join(import.meta.dir, '..', 'fixtures', 'import');
const fixture = (name: string) => readFileSync(join(FIXTURES, name), 'utf8');
const inst = (symbol: string) => findInstrument(symbol)!;
const NQ = inst('NQ');
const GC = inst('GC');
const EURUSD = inst('EURUSD');
/** Instruments as if stored at 1 minute, to read minute files whose real instruments refuse them. */
const NQ_1M: Instrument = { ...NQ, storedResolutionS: 60 };
const EURUSD_1M: Instrument = { ...EURUSD, storedResolutionS: 60 };

const utc = (iso: string) => Date.parse(iso) / 1000;

interface Cols { time: number[]; open: number[]; high: number[]; low: number[]; close: number[]; volume: number[] }

function cols(b: BarColumns): Cols {
  const take = (a: ArrayLike<number> & { subarray(s: number, e: number): ArrayLike<number> }) => Array.from(a.subarray(0, b.length));
  return { time: take(b.time), open: take(b.open), high: take(b.high), low: take(b.low), close: take(b.close), volume: take(b.volume) };
}

/** Rows [time, o, h, l, c, v] → columns, the shape the expectations below are written in. */
function rowsToCols(rows: number[][]): Cols {
  return {
    time: rows.map((r) => r[0]), open: rows.map((r) => r[1]), high: rows.map((r) => r[2]),
    low: rows.map((r) => r[3]), close: rows.map((r) => r[4]), volume: rows.map((r) => r[5]),
  };
}

/** Reference aggregation, written the obvious way with objects, to check the in-place one. */
function aggregateRows(rows: number[][], widthS: number): number[][] {
  const out: number[][] = [];
  for (const [t, o, h, l, c, v] of rows) {
    const start = t - (t % widthS);
    const last = out[out.length - 1];
    if (last && last[0] === start) {
      last[2] = Math.max(last[2], h);
      last[3] = Math.min(last[3], l);
      last[4] = c;
      last[5] += v;
    } else out.push([start, o, h, l, c, v]);
  }
  return out;
}

/** Reference reading of simple comma/semicolon files with String.split and Date.parse. */
function dataLines(text: string): string[] {
  return text.split(/\r?\n/).filter((l) => l.trim() !== '');
}

function mustParse(text: string, i: Instrument, opts: ImportOptions) {
  const r = parseBarFile(text, i, opts);
  if (!r.ok) throw new Error(`expected success, got line ${r.error.line}: ${r.error.message}`);
  return r.value;
}

describe('generic CSV', () => {
  it('reads ISO 8601 UTC 1 s NQ bars to exact columns (gap kept, width 1 s)', () => {
    const text = fixture('generic-nq-1s.csv');
    const expected = dataLines(text).slice(1).map((l) => {
      const [t, o, h, lo, c, v] = l.split(',');
      return [utc(t), Math.round(+o * 4), Math.round(+h * 4), Math.round(+lo * 4), Math.round(+c * 4), +v];
    });
    const r = mustParse(text, NQ, { format: 'csv' });
    expect(cols(r.bars)).toEqual(rowsToCols(expected));
    expect(r.sourceResolutionS).toBe(1);
    expect(r.barCount).toBe(30);
    expect([r.firstS, r.lastS]).toEqual([utc('2024-01-02T14:30:00Z'), utc('2024-01-02T14:30:32Z')]);
    // Spot check against the file by eye: line 2 is 16834.25 / 16835.00 / 16833.75 / 16834.50 / 41.
    expect([r.bars.open[0], r.bars.high[0], r.bars.low[0], r.bars.close[0], r.bars.volume[0]])
      .toEqual([67337, 67340, 67335, 67338, 41]);
    expect(r.bars.time[20]).toBe(utc('2024-01-02T14:30:23Z')); // the bar after the 3 s gap
  });

  it('reads naive New York times with --tz and aggregates 1 s GC bars to its 10 s bars', () => {
    const text = fixture('generic-gc-1s-new-york.csv');
    const oneSecond = dataLines(text).slice(1).map((l) => {
      const [t, o, h, lo, c, v] = l.split(',');
      return [utc(`${t.replace(' ', 'T')}-05:00`), Math.round(+o * 10), Math.round(+h * 10), Math.round(+lo * 10), Math.round(+c * 10), +v];
    });
    const r = mustParse(text, GC, { format: 'csv', tz: 'America/New_York' });
    expect(r.sourceResolutionS).toBe(1);
    expect(cols(r.bars)).toEqual(rowsToCols(aggregateRows(oneSecond, 10)));
    // 09:29:55–59 EST are the bucket 14:29:50Z: o 2073.4, h 2073.7, l 2073.2, c 2073.5, v 5+2+4+4+4.
    expect(cols(r.bars).time).toEqual([utc('2024-01-02T14:29:50Z'), utc('2024-01-02T14:30:00Z'), utc('2024-01-02T14:30:10Z')]);
    expect([r.bars.open[0], r.bars.high[0], r.bars.low[0], r.bars.close[0], r.bars.volume[0]])
      .toEqual([20734, 20737, 20732, 20735, 19]);
  });

  // Every row is the same instant, 2024-01-02T14:30:00Z, written another way.
  it.each([
    ['epoch seconds', '1704205800'],
    ['epoch milliseconds', '1704205800000'],
    ['epoch microseconds', '1704205800000000'],
    ['epoch nanoseconds', '1704205800000000000'],
    ['ISO with Z', '2024-01-02T14:30:00Z'],
    ['ISO with nanoseconds', '2024-01-02T14:30:00.000000000Z'],
    ['ISO with offset', '2024-01-02T09:30:00-05:00'],
    ['ISO with compact offset', '2024-01-02 15:30:00+0100'],
    ['naive ISO, default UTC', '2024-01-02 14:30:00'],
    ['naive ISO with T', '2024-01-02T14:30:00'],
    ['quoted', '"2024-01-02 14:30:00"'],
  ])('time as %s', (_name, stamp) => {
    const next = '2024-01-02T14:30:01Z';
    const text = `time,open,high,low,close\n${stamp},4800.25,4800.5,4800,4800.25\n${next},4800.25,4800.25,4800.25,4800.25\n`;
    const r = mustParse(text, inst('ES'), { format: 'csv' });
    expect(cols(r.bars).time).toEqual([utc('2024-01-02T14:30:00Z'), utc(next)]);
    expect(cols(r.bars).volume).toEqual([0, 0]); // no volume column
  });

  it('finds columns by name in any order and case, with ; delimiters and a BOM', () => {
    const text = '\uFEFFVolume;Close;Low;High;Open;Timestamp\n3;16834.5;16834;16835;16834.25;2024-01-02T14:30:00Z\n'
      + '4;16834.75;16834.5;16835;16834.5;2024-01-02T14:30:01Z\n';
    expect(cols(mustParse(text, NQ, { format: 'csv' }).bars)).toEqual(rowsToCols([
      [utc('2024-01-02T14:30:00Z'), 67337, 67340, 67336, 67338, 3],
      [utc('2024-01-02T14:30:01Z'), 67338, 67340, 67338, 67339, 4],
    ]));
  });
});

describe('Databento OHLCV CSV', () => {
  it('reads pretty_ts/pretty_px ohlcv-1s NQ bars (ts_event is the open)', () => {
    const text = fixture('databento-nq-ohlcv-1s.csv');
    const expected = dataLines(text).slice(1).map((l) => {
      const f = l.split(',');
      return [utc(f[0]), Math.round(+f[4] * 4), Math.round(+f[5] * 4), Math.round(+f[6] * 4), Math.round(+f[7] * 4), +f[8]];
    });
    const r = mustParse(text, NQ, { format: 'databento' });
    expect(cols(r.bars)).toEqual(rowsToCols(expected));
    expect(r.sourceResolutionS).toBe(1);
    expect([r.bars.time[0], r.bars.open[0], r.bars.close[0], r.bars.volume[0]])
      .toEqual([utc('2024-01-02T14:30:00Z'), 16840 * 4, 16840.75 * 4, 54]);
  });

  it('reads raw ns times and 1e-9 fixed-point prices, and aggregates GC 1 s to 10 s', () => {
    const text = fixture('databento-gc-ohlcv-1s-raw.csv');
    const oneSecond = dataLines(text).slice(1).map((l) => {
      const f = l.split(',');
      const ticks = (px: string) => Number(BigInt(px) / 100_000_000n); // 0.1 = 1e8 units of 1e-9
      return [Number(BigInt(f[0]) / 1_000_000_000n), ticks(f[4]), ticks(f[5]), ticks(f[6]), ticks(f[7]), +f[8]];
    });
    const r = mustParse(text, GC, { format: 'databento' });
    expect(cols(r.bars)).toEqual(rowsToCols(aggregateRows(oneSecond, 10)));
    expect(cols(r.bars).time).toEqual(
      ['14:59:50', '15:00:00', '15:00:10', '15:00:20', '15:00:30'].map((t) => utc(`2024-02-05T${t}Z`)));
    expect([r.firstS, r.lastS, r.barCount]).toEqual([utc('2024-02-05T14:59:50Z'), utc('2024-02-05T15:00:30Z'), 5]);
  });

  it('gives the same bars for the pretty and the raw encoding of one file', () => {
    const raw = fixture('databento-gc-ohlcv-1s-raw.csv');
    const pretty = dataLines(raw).map((l, i) => {
      if (i === 0) return l;
      const f = l.split(',');
      const px = (v: string) => (Number(BigInt(v) / 100_000_000n) / 10).toFixed(9);
      const iso = new Date(Number(BigInt(f[0]) / 1_000_000n)).toISOString().replace('.000Z', '.000000000Z');
      return [iso, f[1], f[2], f[3], px(f[4]), px(f[5]), px(f[6]), px(f[7]), f[8]].join(',');
    }).join('\n');
    expect(cols(mustParse(pretty, GC, { format: 'databento' }).bars)).toEqual(cols(mustParse(raw, GC, { format: 'databento' }).bars));
  });

  it('refuses ohlcv-1m for NQ (stored at 1 s) from the rtype, before reading on', () => {
    const r = parseBarFile(fixture('databento-nq-ohlcv-1m.csv'), NQ, { format: 'databento' });
    expect(r).toEqual({ ok: false, error: { line: 0, kind: 'coarser_than_stored',
      message: 'Bars are 60-second bars; NQ is stored at 1-second resolution and cannot be built from coarser bars' } });
  });

  it('passes ohlcv-1m through for an instrument stored at 1 minute', () => {
    const r = mustParse(fixture('databento-nq-ohlcv-1m.csv'), NQ_1M, { format: 'databento' });
    expect([r.sourceResolutionS, r.barCount, r.firstS, r.lastS])
      .toEqual([60, 5, utc('2024-01-02T14:30:00Z'), utc('2024-01-02T14:34:00Z')]);
  });
});

describe('NinjaTrader 8 export', () => {
  it('moves end-of-bar stamps to open times and converts New York time across the November DST change', () => {
    const text = fixture('ninjatrader-nq-minute-new-york.txt');
    const r = parseNinjaTrader(text, NQ_1M, { format: 'ninjatrader', tz: 'America/New_York' });
    if (!r.ok) throw new Error(r.error.message);
    // Friday 2024-11-01 is EDT (UTC-4): the bar stamped 15:55 opened 15:54 EDT = 19:54Z.
    // Sunday 2024-11-03 evening is EST (UTC-5): the bar stamped 18:01 opened 18:00 EST = 23:00Z.
    expect(cols(r.value.bars).time).toEqual([
      ...['19:54', '19:55', '19:56', '19:57', '19:58', '19:59'].map((t) => utc(`2024-11-01T${t}:00Z`)),
      ...['23:00', '23:01', '23:02', '23:03', '23:04', '23:05'].map((t) => utc(`2024-11-03T${t}:00Z`)),
    ]);
    expect(r.value.sourceResolutionS).toBe(60);
    const prices = dataLines(text).map((l) => l.split(';').slice(1, 5).map((p) => Math.round(+p * 4)));
    expect(cols(r.value.bars).open).toEqual(prices.map((p) => p[0]));
    expect(cols(r.value.bars).low).toEqual(prices.map((p) => p[2]));
    expect(cols(r.value.bars).volume).toEqual([166, 356, 190, 320, 66, 103, 237, 237, 226, 112, 25, 45]);
  });

  it('reads the hour repeated at fall-back in order: first pass EDT, second pass EST', () => {
    // 30-minute bars through 2024-11-03 01:00–02:00, close-stamped: the stamps 01:00 and 01:30 occur twice.
    const stamps = ['003000', '010000', '013000', '010000', '013000', '020000', '023000'];
    const text = stamps.map((s) => `20241103 ${s};1.07;1.07;1.07;1.07;1`).join('\n');
    const r = parseNinjaTrader(text, { ...EURUSD, storedResolutionS: 1800 }, { format: 'ninjatrader', tz: 'America/New_York' });
    if (!r.ok) throw new Error(r.error.message);
    expect(cols(r.value.bars).time).toEqual(
      ['04:00', '04:30', '05:00', '05:30', '06:00', '06:30', '07:00'].map((t) => utc(`2024-11-03T${t}:00Z`)));
  });

  it('defaults to UTC, the zone NinjaTrader 8 exports in', () => {
    const text = '20240102 143100;16834.25;16836;16833.75;16835.5;42\n20240102 143200;16835.5;16836;16835;16835.75;7\n';
    const r = mustParse(text, NQ_1M, { format: 'ninjatrader' });
    expect(cols(r.bars).time).toEqual([utc('2024-01-02T14:30:00Z'), utc('2024-01-02T14:31:00Z')]);
  });

  it('refuses minute bars for NQ, stored at 1 s', () => {
    const r = parseBarFile(fixture('ninjatrader-nq-minute-new-york.txt'), NQ, { format: 'ninjatrader', tz: 'America/New_York' });
    expect(r.ok ? '' : r.error.message)
      .toBe('Bars are 60-second bars; NQ is stored at 1-second resolution and cannot be built from coarser bars');
  });

  it('refuses daily bars at the first line', () => {
    const r = parseBarFile('20240102;16834.25;16936;16733.75;16835.5;420000\n', NQ, { format: 'ninjatrader' });
    expect(r.ok ? null : [r.error.line, r.error.kind]).toEqual([0, 'coarser_than_stored']);
  });

  it('aggregates a tick export (last price, 100 ns fractions) to GC 10 s bars', () => {
    const text = fixture('ninjatrader-gc-ticks.txt');
    const ticks = dataLines(text).map((l) => {
      const [stamp, last, , , v] = l.split(';');
      const d = stamp.slice(0, 15);
      const t = utc(`${d.slice(0, 4)}-${d.slice(4, 6)}-${d.slice(6, 8)}T${d.slice(9, 11)}:${d.slice(11, 13)}:${d.slice(13, 15)}Z`);
      const p = Math.round(+last * 10);
      return [t, p, p, p, p, +v];
    });
    const r = mustParse(text, GC, { format: 'ninjatrader' });
    expect(r.sourceResolutionS).toBe(0);
    expect(cols(r.bars)).toEqual(rowsToCols(aggregateRows(ticks, 10)));
    // By eye: the eleven ticks of 14:59:58–59 open 2041.2, reach 2041.5 and 2041.1, close 2041.1, 26 lots.
    expect([r.bars.time[0], r.bars.open[0], r.bars.high[0], r.bars.low[0], r.bars.close[0], r.bars.volume[0]])
      .toEqual([utc('2024-02-05T14:59:50Z'), 20412, 20415, 20411, 20411, 26]);
  });

  it('orders ticks by their sub-second part', () => {
    const text = '20240205 150000 5000000;2041.2;2041.1;2041.2;1\n20240205 150000 4000000;2041.3;2041.2;2041.3;1\n';
    expect(parseBarFile(text, GC, { format: 'ninjatrader' })).toEqual({ ok: false, error: { line: 2, kind: 'time_out_of_order',
      message: 'time 2024-02-05T15:00:00.4Z is before 2024-02-05T15:00:00.5Z on line 1' } });
  });
});

describe('wall-clock zones', () => {
  /** Wall-clock seconds of UTC instant u, read with an Intl call per instant (the slow, obvious way). */
  function wallClock(fmt: Intl.DateTimeFormat, u: number): number {
    const parts = fmt.formatToParts(new Date(u * 1000));
    const get = (t: string) => Number(parts.find((p) => p.type === t)!.value);
    return Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second')) / 1000;
  }

  // Every 10 minutes of 2024, in time order, through both DST changes (Lord Howe shifts by 30 minutes).
  it.each(['America/New_York', 'Europe/London', 'Australia/Lord_Howe', 'Asia/Tokyo'])('%s: wall clock → UTC round-trips', (tz) => {
    const zone = zoneByName(tz)!;
    const fmt = new Intl.DateTimeFormat('en-US', { timeZone: tz, hourCycle: 'h23', year: 'numeric', month: 'numeric',
      day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' });
    const wrong: string[] = [];
    let prev = -1;
    for (let u = utc('2024-01-01T00:00:00Z'); u < utc('2025-01-01T00:00:00Z'); u += 600) {
      const got = zone.toUtc(wallClock(fmt, u), prev + 1);
      if (got !== u && wrong.length < 3) wrong.push(`${new Date(u * 1000).toISOString()} → ${got}`);
      prev = u;
    }
    expect(wrong).toEqual([]);
  });

  it('has no wall time for the skipped spring hour', () => {
    expect(zoneByName('America/New_York')!.toUtc(utc('2024-03-10T02:30:00Z'), 0)).toBeNaN();
    expect(zoneByName('America/New_York')!.toUtc(utc('2024-03-10T03:00:00Z'), 0)).toBe(utc('2024-03-10T07:00:00Z'));
  });
});

describe('HistData.com Generic ASCII', () => {
  it('reads M1 bars in EST without daylight saving: July 00:00 is 05:00Z, not 04:00Z', () => {
    const text = fixture('histdata-eurusd-m1-202407.csv');
    const expected = dataLines(text).map((l) => {
      const [s, o, h, lo, c, v] = l.split(';');
      const t = Date.UTC(+s.slice(0, 4), +s.slice(4, 6) - 1, +s.slice(6, 8), +s.slice(9, 11), +s.slice(11, 13), +s.slice(13, 15)) / 1000;
      return [t + 5 * 3600, Math.round(+o * 1e5), Math.round(+h * 1e5), Math.round(+lo * 1e5), Math.round(+c * 1e5), +v];
    });
    const r = parseHistData(text, EURUSD_1M, { format: 'histdata' });
    if (!r.ok) throw new Error(r.error.message);
    expect(cols(r.value.bars)).toEqual(rowsToCols(expected));
    expect(r.value.bars.time[0]).toBe(utc('2024-07-01T05:00:00Z'));
    expect(r.value.bars.time[25]).toBe(utc('2024-07-01T05:27:00Z')); // after a 2-minute gap
    expect([r.value.bars.open[0], r.value.bars.high[0], r.value.bars.low[0], r.value.bars.close[0]])
      .toEqual([107150, 107154, 107148, 107152]);
    expect(r.value.sourceResolutionS).toBe(60);
  });

  it('refuses M1 for EURUSD, stored at 1 s', () => {
    const r = parseBarFile(fixture('histdata-eurusd-m1-202407.csv'), EURUSD, { format: 'histdata' });
    expect(r.ok ? '' : r.error.message)
      .toBe('Bars are 60-second bars; EURUSD is stored at 1-second resolution and cannot be built from coarser bars');
  });

  it('aggregates tick files (bid, ms) to EURUSD 1 s bars', () => {
    const text = fixture('histdata-eurusd-ticks-202407.csv');
    const ticks = dataLines(text).map((l) => {
      const [s, bid, , v] = l.split(',');
      const t = Date.UTC(+s.slice(0, 4), +s.slice(4, 6) - 1, +s.slice(6, 8), +s.slice(9, 11), +s.slice(11, 13), +s.slice(13, 15)) / 1000;
      const p = Math.round(+bid * 1e5);
      return [t + 5 * 3600, p, p, p, p, +v];
    });
    const r = mustParse(text, EURUSD, { format: 'histdata' });
    expect(r.sourceResolutionS).toBe(0);
    expect(cols(r.bars)).toEqual(rowsToCols(aggregateRows(ticks, 1)));
    expect([r.firstS, r.barCount]).toEqual([utc('2024-07-01T14:29:58Z'), 14]);
  });
});

describe('resolution', () => {
  const gc1s = (seconds: number[]) => 'time,open,high,low,close,volume\n'
    + seconds.map((s, i) => `${1707145200 + s},2041.${i % 10},2041.9,2040.0,2041.${(i + 3) % 10},${i + 1}`).join('\n');

  it('aggregates finer bars on the epoch grid: o first, h max, l min, c last, v sum', () => {
    const r = mustParse(gc1s([0, 1, 2, 9, 10, 13, 25]), GC, { format: 'csv' });
    expect(cols(r.bars)).toEqual(rowsToCols([
      [1707145200, 20410, 20419, 20400, 20416, 1 + 2 + 3 + 4],
      [1707145210, 20414, 20419, 20400, 20418, 5 + 6],
      [1707145220, 20416, 20419, 20400, 20419, 7],
    ]));
  });

  it('passes bars at the stored width through unchanged', () => {
    const r = mustParse(gc1s([0, 10, 30]), GC, { format: 'csv' });
    expect([r.sourceResolutionS, r.barCount]).toEqual([10, 3]);
    expect(cols(r.bars).close).toEqual([20413, 20414, 20415]);
  });

  it.each([
    ['coarser', [0, 60, 120], NQ, 'coarser_than_stored',
      'Bars are 60-second bars; NQ is stored at 1-second resolution and cannot be built from coarser bars'],
    ['not a divisor', [0, 3, 6], GC, 'width_not_divisor',
      'Bars are 3-second bars; GC is stored at 10-second resolution, which is not a whole number of 3-second bars'],
  ] as const)('refuses %s widths for the whole file', (_name, seconds, i, kind, message) => {
    const text = 'ts,open,high,low,close\n' + seconds.map((s) => `${1707145200 + s},2041,2041,2041,2041`).join('\n');
    expect(parseBarFile(text, i, { format: 'csv' })).toEqual({ ok: false, error: { line: 0, kind, message } });
  });

  it('needs two bars to tell the width', () => {
    expect(parseBarFile('ts,open,high,low,close\n1707145200,2041,2041,2041,2041\n', GC, { format: 'csv' }))
      .toEqual({ ok: false, error: { line: 2, kind: 'single_bar',
        message: 'One bar cannot tell its own width; import at least two consecutive bars' } });
  });
});

describe('validation: the first bad line, by number (header = line 1)', () => {
  it.each([
    ['field-count.csv', 4, 'field_count', NQ, 'csv', 'expected 6 fields as in the header, found 5'],
    ['bad-number.csv', 4, 'bad_number', NQ, 'csv', 'low "16835.OO" is not a number'],
    ['bad-time.csv', 3, 'bad_time', NQ, 'csv', 'unparseable time "2024-01-02T14:30:61Z"'],
    ['high-below-max.csv', 4, 'ohlc_inconsistent', NQ, 'csv', 'high 16835 is below max(open, close) 16835.25'],
    ['low-above-min.csv', 3, 'ohlc_inconsistent', NQ, 'csv', 'low 16834.75 is above min(open, close) 16834.5'],
    ['negative-volume.csv', 4, 'negative_volume', NQ, 'csv', 'volume -48 is negative'],
    ['off-grid.csv', 4, 'off_tick_grid', NQ, 'csv', 'high 16835.3 is not on the 0.25 tick grid of NQ'],
    ['duplicate-time.csv', 4, 'duplicate_time', NQ, 'csv', 'time 2024-01-02T14:30:01Z repeats line 3'],
    ['out-of-order.csv', 5, 'time_out_of_order', NQ, 'csv', 'time 2024-01-02T14:30:00Z is before 2024-01-02T14:30:02Z on line 4'],
    ['misaligned.csv', 4, 'misaligned_time', GC, 'csv', 'bar time 2024-02-05T15:00:05Z is not on the 2-second grid of this file\'s bars'],
    ['no-time-column.csv', 1, 'bad_header', NQ, 'csv', 'no time column in the header; name it one of time, timestamp, date, datetime, ts, ts_event'],
    ['date-and-time-columns.csv', 1, 'bad_header', NQ, 'csv', 'several time columns (date, time); give one column holding the whole timestamp'],
    ['databento-mixed-symbols.csv', 3, 'mixed_instruments', NQ, 'databento',
      'symbol "NQM4" differs from "NQH4" on line 2; export one instrument per file (a continuous symbol such as NQ.c.0 keeps one name across rolls)'],
    ['databento-trades.csv', 1, 'unsupported_layout', NQ, 'databento',
      'this is a Databento trades/quotes schema, not bars; download an ohlcv-1s (or finer-than-stored) schema'],
    ['ninjatrader-spring-gap.txt', 2, 'nonexistent_local_time', NQ, 'ninjatrader',
      'local time "20240310 023000" does not exist in America/New_York (clocks moved forward); check the time zone'],
    ['histdata-metatrader.csv', 1, 'unsupported_layout', EURUSD, 'histdata',
      'this is HistData\'s MetaTrader layout (DAT_MT_...); download the Generic ASCII files (DAT_ASCII_...)'],
  ] as const)('%s → line %d, %s', (file, line, kind, i, format, message) => {
    const opts: ImportOptions = format === 'ninjatrader' ? { format, tz: 'America/New_York' } : { format };
    expect(parseBarFile(fixture(join('bad', file)), i, opts)).toEqual({ ok: false, error: { line, kind, message } });
  });

  it.each([
    ['unknown zone', { format: 'csv', tz: 'Mars/Olympus' }, 'Unknown time zone "Mars/Olympus"; use an IANA name such as America/New_York'],
    ['tz for HistData', { format: 'histdata', tz: 'UTC' }, '--tz does not apply: HistData times are EST (UTC-5) all year'],
    ['tz for Databento', { format: 'databento', tz: 'America/Chicago' }, '--tz does not apply: Databento times are UTC'],
    ['unknown format', { format: 'parquet' }, 'Unknown format "parquet"; use one of csv, databento, ninjatrader, histdata'],
  ])('refuses options: %s', (_name, opts, message) => {
    expect(parseBarFile('x', NQ, opts as ImportOptions)).toEqual({ ok: false, error: { line: 0, kind: 'bad_option', message } });
  });

  it.each(['csv', 'databento', 'ninjatrader', 'histdata'] as const)('refuses an empty %s file', (format) => {
    const r = parseBarFile('\n\n', NQ, { format });
    expect(r.ok ? null : [r.error.line, r.error.kind]).toEqual([0, 'empty_file']);
  });

  it('refuses a bar time with a fraction of a second', () => {
    const r = parseBarFile('ts,open,high,low,close\n1704205800500,1,1,1,1\n1704205801000,1,1,1,1\n', NQ, { format: 'csv' });
    expect(r.ok ? null : r.error).toEqual({ line: 2, kind: 'misaligned_time', message: 'bar time 2024-01-02T14:30:00.5Z is not on a whole second' });
  });
});

describe('import runs', () => {
  it('reports progress every 65 536 lines and once at the end', () => {
    const lines = ['ts,open,high,low,close,volume'];
    for (let i = 0; i < 200_000; i++) lines.push(`${1704205800 + i},16834.25,16834.5,16834,16834.25,${i % 7}`);
    const calls: [number, number][] = [];
    const r = parseBarFile(lines.join('\n'), NQ, { format: 'csv' }, (done, total) => calls.push([done, total]));
    expect(r.ok && r.value.barCount).toBe(200_000);
    expect(calls).toEqual([[65_536, 200_001], [131_072, 200_001], [196_608, 200_001], [200_001, 200_001]]);
  });

  it('is a pure function of the text: the same file twice gives the same bars', () => {
    const text = fixture('databento-gc-ohlcv-1s-raw.csv');
    const a = mustParse(text, GC, { format: 'databento' });
    const b = mustParse(text, GC, { format: 'databento' });
    expect({ ...a, bars: cols(a.bars) }).toEqual({ ...b, bars: cols(b.bars) });
  });

  it('gives the same bars through the format parser and parseBarFile at equal width', () => {
    const text = fixture('generic-nq-1s.csv');
    const direct = parseGenericCsv(text, NQ, { format: 'csv' });
    expect(direct.ok && cols(direct.value.bars)).toEqual(cols(mustParse(text, NQ, { format: 'csv' }).bars));
  });
});
