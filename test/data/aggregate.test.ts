import { describe, expect, it } from 'bun:test';
import { Aggregator, aggregateBars } from '../../src/data/aggregate.ts';
import { allocBars, type BarColumns } from '../../src/data/bar-columns.ts';
import { bucketStart, parseTimeframe, type Timeframe } from '../../src/domain/timeframe.ts';
import { AssertionError } from '../../src/lib/assert.ts';

type Row = [time: string | number, o: number, h: number, l: number, c: number, v: number];

const at = (iso: string): number => Date.parse(iso) / 1000;

function tf(text: string): Timeframe {
  const r = parseTimeframe(text, { customEnabled: true, storedResolutionS: 1 });
  if (!r.ok) throw new Error(`test timeframe ${text}: ${r.error.kind}`);
  return r.value;
}

function bars(rows: Row[], spare = 0): BarColumns {
  const b = allocBars(rows.length + spare);
  rows.forEach(([t, o, h, l, c, v], i) => {
    b.time[i] = typeof t === 'string' ? at(t) : t;
    b.open[i] = o;
    b.high[i] = h;
    b.low[i] = l;
    b.close[i] = c;
    b.volume[i] = v;
  });
  b.length = rows.length;
  return b;
}

/** Bars [from, to) of `b` as rows with ISO times, for readable expectations. */
function rows(b: BarColumns, from = 0, to = b.length): Row[] {
  const r: Row[] = [];
  for (let i = from; i < to; i++) {
    const iso = new Date(b.time[i] * 1000).toISOString().replace('.000Z', 'Z');
    r.push([iso, b.open[i], b.high[i], b.low[i], b.close[i], b.volume[i]]);
  }
  return r;
}

function oneShot(src: BarColumns, t: Timeframe, capacity = src.length): Row[] {
  const out = allocBars(capacity);
  out.length = aggregateBars(src, 0, src.length, t, out, 0);
  return rows(out);
}

describe('aggregateBars', () => {
  it('folds 1 s bars into minutes: open first, high max, low min, close last, volume sum', () => {
    const src = bars([
      ['2024-03-05T14:00:00Z', 100, 102, 99, 101, 3],
      ['2024-03-05T14:00:30Z', 101, 105, 100, 104, 2],
      ['2024-03-05T14:00:59Z', 104, 104, 97, 98, 5],
      ['2024-03-05T14:01:00Z', 98, 99, 98, 99, 1],
    ]);
    expect(oneShot(src, tf('1m'))).toEqual([
      ['2024-03-05T14:00:00Z', 100, 105, 97, 98, 10],
      ['2024-03-05T14:01:00Z', 98, 99, 98, 99, 1],
    ]);
  });

  it('leaves gaps as gaps and includes the trailing partial bar', () => {
    const src = bars([
      ['2024-03-05T14:00:10Z', 100, 101, 100, 101, 1],
      ['2024-03-05T14:03:10Z', 110, 112, 109, 111, 2],
      ['2024-03-05T14:03:20Z', 111, 111, 108, 108, 4],
      ['2024-03-05T14:05:40Z', 120, 121, 119, 120, 7],
    ]);
    expect(oneShot(src, tf('1m'))).toEqual([
      ['2024-03-05T14:00:00Z', 100, 101, 100, 101, 1],
      ['2024-03-05T14:03:00Z', 110, 112, 108, 108, 6],
      ['2024-03-05T14:05:00Z', 120, 121, 119, 120, 7],
    ]);
  });

  it('buckets 4h on the UTC epoch grid', () => {
    const src = bars([
      ['2024-03-05T03:59:59Z', 1, 2, 1, 2, 1],
      ['2024-03-05T04:00:00Z', 2, 3, 2, 3, 1],
      ['2024-03-05T07:30:00Z', 3, 9, 1, 4, 1],
      ['2024-03-05T08:00:00Z', 4, 4, 4, 4, 1],
    ]);
    expect(oneShot(src, tf('4h'))).toEqual([
      ['2024-03-05T00:00:00Z', 1, 2, 1, 2, 1],
      ['2024-03-05T04:00:00Z', 2, 9, 1, 4, 2],
      ['2024-03-05T08:00:00Z', 4, 4, 4, 4, 1],
    ]);
  });

  it('buckets ISO weeks across a month and year end', () => {
    const src = bars([
      ['2025-12-26T10:00:00Z', 10, 12, 9, 11, 1], // Friday
      ['2025-12-28T23:59:59Z', 11, 11, 8, 8, 1], // Sunday
      ['2025-12-29T00:00:00Z', 8, 9, 7, 9, 2], // Monday
      ['2025-12-31T12:00:00Z', 9, 15, 9, 14, 2],
      ['2026-01-02T12:00:00Z', 14, 14, 12, 13, 2],
      ['2026-01-05T00:00:00Z', 13, 13, 13, 13, 5], // Monday, partial week
    ]);
    expect(oneShot(src, tf('1w'))).toEqual([
      ['2025-12-22T00:00:00Z', 10, 12, 8, 8, 2],
      ['2025-12-29T00:00:00Z', 8, 15, 7, 13, 6],
      ['2026-01-05T00:00:00Z', 13, 13, 13, 13, 5],
    ]);
  });

  it('buckets UTC months, quarters and years', () => {
    const src = bars([
      ['2024-01-31T23:59:59Z', 1, 5, 1, 5, 1],
      ['2024-02-01T00:00:00Z', 5, 6, 4, 6, 1],
      ['2024-02-29T12:00:00Z', 6, 8, 3, 7, 1],
      ['2024-04-01T00:00:00Z', 7, 7, 7, 7, 1],
      ['2024-12-31T23:59:59Z', 7, 9, 6, 8, 1],
      ['2025-01-01T00:00:00Z', 8, 8, 2, 2, 1],
    ]);
    expect(oneShot(src, tf('1M'))).toEqual([
      ['2024-01-01T00:00:00Z', 1, 5, 1, 5, 1],
      ['2024-02-01T00:00:00Z', 5, 8, 3, 7, 2],
      ['2024-04-01T00:00:00Z', 7, 7, 7, 7, 1],
      ['2024-12-01T00:00:00Z', 7, 9, 6, 8, 1],
      ['2025-01-01T00:00:00Z', 8, 8, 2, 2, 1],
    ]);
    expect(oneShot(src, tf('3M'))).toEqual([
      ['2024-01-01T00:00:00Z', 1, 8, 1, 7, 3],
      ['2024-04-01T00:00:00Z', 7, 7, 7, 7, 1],
      ['2024-10-01T00:00:00Z', 7, 9, 6, 8, 1],
      ['2025-01-01T00:00:00Z', 8, 8, 2, 2, 1],
    ]);
    expect(oneShot(src, tf('1y'))).toEqual([
      ['2024-01-01T00:00:00Z', 1, 9, 1, 8, 5],
      ['2025-01-01T00:00:00Z', 8, 8, 2, 2, 1],
    ]);
  });

  it('writes at outStart, honours [from, to), and leaves out.length to the caller', () => {
    const src = bars([
      [60, 1, 1, 1, 1, 1],
      [120, 2, 2, 2, 2, 1],
      [180, 3, 3, 3, 3, 1],
      [240, 4, 4, 4, 4, 1],
    ]);
    const out = bars([[7, 7, 7, 7, 7, 7]], 4);
    expect(aggregateBars(src, 0, 3, tf('2m'), out, 1)).toBe(2);
    expect(out.length).toBe(1);
    expect(rows(out, 0, 4)).toEqual([
      ['1970-01-01T00:00:07Z', 7, 7, 7, 7, 7],
      ['1970-01-01T00:00:00Z', 1, 1, 1, 1, 1],
      ['1970-01-01T00:02:00Z', 2, 3, 2, 3, 2],
      ['1970-01-01T00:00:00Z', 0, 0, 0, 0, 0],
    ]);
  });

  it('stops at barsMax, and at the room left in out by default', () => {
    const src = bars([0, 60, 120, 180].map((t): Row => [t, t, t, t, t, 1]));
    const out = allocBars(3);
    expect(aggregateBars(src, 0, 4, tf('1m'), out, 0, 2)).toBe(2);
    expect(aggregateBars(src, 0, 4, tf('1m'), out, 1)).toBe(2);
    expect(aggregateBars(src, 0, 4, tf('1m'), out, 0, 0)).toBe(0);
    expect(aggregateBars(src, 2, 2, tf('1m'), out, 0)).toBe(0);
    expect(() => aggregateBars(src, 0, 4, tf('1m'), out, 0, 4)).toThrow(AssertionError);
  });

  it('saturates volume at 2^32 - 1', () => {
    const src = bars([
      [0, 1, 1, 1, 1, 0xffff_ffff],
      [1, 1, 1, 1, 1, 5],
    ]);
    expect(oneShot(src, tf('1m'))[0][5]).toBe(0xffff_ffff);
  });
});

describe('Aggregator (streaming)', () => {
  it('emits a bar when a later bucket begins, and the partial bar on flush', () => {
    const out = allocBars(8);
    const agg = new Aggregator(tf('1m'), out);
    expect(agg.push(bars([[0, 5, 6, 4, 5, 1], [30, 5, 9, 5, 8, 1]]))).toBe(2);
    expect(out.length).toBe(0);
    expect(agg.push(bars([[59, 8, 8, 2, 3, 1], [61, 3, 3, 3, 3, 1]]))).toBe(2);
    expect(rows(out)).toEqual([['1970-01-01T00:00:00Z', 5, 9, 2, 3, 3]]);
    agg.flush();
    expect(rows(out)).toEqual([
      ['1970-01-01T00:00:00Z', 5, 9, 2, 3, 3],
      ['1970-01-01T00:01:00Z', 3, 3, 3, 3, 1],
    ]);
    agg.flush();
    expect(out.length).toBe(2);
  });

  it('stops consuming at barsMax and reports the first bar left out', () => {
    const out = allocBars(10);
    const agg = new Aggregator(tf('1m'), out, 2);
    const src = bars([0, 10, 60, 70, 120, 130, 180].map((t): Row => [t, t, t, t, t, 1]));
    expect(agg.push(src, 0, 3)).toBe(3);
    expect(agg.full).toBe(false);
    expect(agg.push(src, 3, 7)).toBe(4);
    expect(agg.full).toBe(true);
    expect(agg.push(src, 4, 7)).toBe(4);
    agg.flush();
    expect(rows(out)).toEqual([
      ['1970-01-01T00:00:00Z', 0, 10, 0, 10, 2],
      ['1970-01-01T00:01:00Z', 60, 70, 60, 70, 2],
    ]);
  });

  it('appends after bars already in out', () => {
    const out = bars([[1, 1, 1, 1, 1, 1]], 2);
    const agg = new Aggregator(tf('1m'), out);
    agg.push(bars([[60, 2, 2, 2, 2, 2]]));
    agg.flush();
    expect(rows(out).map((r) => r[0])).toEqual(['1970-01-01T00:00:01Z', '1970-01-01T00:01:00Z']);
  });

  it('refuses chunks out of order and reopening a flushed bucket', () => {
    const agg = new Aggregator(tf('1m'), allocBars(4));
    agg.push(bars([[100, 1, 1, 1, 1, 1]]));
    expect(() => agg.push(bars([[100, 1, 1, 1, 1, 1]]))).toThrow(AssertionError);
    agg.flush();
    expect(() => agg.push(bars([[110, 1, 1, 1, 1, 1]]))).toThrow(AssertionError);
    expect(agg.push(bars([[120, 1, 1, 1, 1, 1]]))).toBe(1);
  });

  it('refuses a barsMax beyond the capacity of out', () => {
    expect(() => new Aggregator(tf('1m'), allocBars(2), 3)).toThrow(AssertionError);
    expect(() => new Aggregator(tf('1m'), allocBars(2), -1)).toThrow(AssertionError);
  });
});

describe('chunked == one-shot == reference, on random data', () => {
  /** mulberry32: a seeded PRNG so the data (and any failure) is reproducible. */
  function prng(seed: number): () => number {
    let a = seed >>> 0;
    return () => {
      a = (a + 0x6d2b79f5) >>> 0;
      let t = a;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
    };
  }

  /** Bars on a `stepS` grid with random gaps (up to 900,000 steps), prices a random walk. */
  function randomBars(rand: () => number, n: number, stepS: number): BarColumns {
    const b = allocBars(n);
    let t = at('2023-12-20T00:00:00Z');
    let p = 10_000;
    for (let i = 0; i < n; i++) {
      const r = rand();
      const gap = r < 0.97 ? 1 : r < 0.997 ? 1 + Math.floor(rand() * 500) : 1 + Math.floor(rand() * 900_000);
      t += gap * stepS;
      const o = p;
      p += Math.floor(rand() * 9) - 4;
      b.time[i] = t;
      b.open[i] = o;
      b.close[i] = p;
      b.high[i] = Math.max(o, p) + Math.floor(rand() * 3);
      b.low[i] = Math.min(o, p) - Math.floor(rand() * 3);
      b.volume[i] = Math.floor(rand() * 50);
    }
    b.length = n;
    return b;
  }

  /** The obvious per-bar implementation: one bucketStart per bar. */
  function reference(src: BarColumns, t: Timeframe): Row[] {
    const out: Row[] = [];
    let last = -1;
    for (let i = 0; i < src.length; i++) {
      const s = bucketStart(t, src.time[i]);
      if (s !== last) {
        out.push([s, src.open[i], src.high[i], src.low[i], src.close[i], src.volume[i]]);
        last = s;
      } else {
        const r = out[out.length - 1];
        r[2] = Math.max(r[2], src.high[i]);
        r[3] = Math.min(r[3], src.low[i]);
        r[4] = src.close[i];
        r[5] += src.volume[i];
      }
    }
    const iso = (s: number) => new Date(s * 1000).toISOString().replace('.000Z', 'Z');
    return out.map(([s, o, h, l, c, v]) => [iso(s as number), o, h, l, c, v]);
  }

  function chunked(src: BarColumns, t: Timeframe, rand: () => number): Row[] {
    const out = allocBars(src.length);
    const agg = new Aggregator(t, out);
    let i = 0;
    while (i < src.length) {
      const to = Math.min(src.length, i + Math.floor(rand() * 400));
      expect(agg.push(src, i, to)).toBe(to);
      i = to;
    }
    agg.flush();
    return rows(out);
  }

  const timeframes = [
    '1s', '5s', '10s', '30s', '90s', '1m', '7m', '1h', '4h', '25h', '1d', '7d', '1w', '2w', '1M', '3M', '5M', '1y',
  ];
  for (const stepS of [1, 10]) {
    it.each(timeframes)(`%s over ${stepS} s bars`, (text) => {
      const rand = prng(stepS * 1000 + text.length * 31 + text.charCodeAt(text.length - 1));
      const src = randomBars(rand, 20_000, stepS);
      const expected = reference(src, tf(text));
      expect(expected.length).toBeGreaterThan(1);
      expect(oneShot(src, tf(text))).toEqual(expected);
      expect(chunked(src, tf(text), rand)).toEqual(expected);
    });
  }

  it('with a bar limit, chunked keeps exactly the first barsMax bars of one-shot', () => {
    const rand = prng(7);
    const src = randomBars(rand, 5_000, 1);
    const full = oneShot(src, tf('1m'));
    for (const barsMax of [1, 2, 17, full.length - 1, full.length, full.length + 5]) {
      const out = allocBars(full.length + 5);
      const agg = new Aggregator(tf('1m'), out, barsMax);
      let i = 0;
      let stoppedAt = -1;
      while (i < src.length && !agg.full) {
        const to = Math.min(src.length, i + 1 + Math.floor(rand() * 300));
        const next = agg.push(src, i, to);
        if (next < to) stoppedAt = next;
        i = to;
      }
      agg.flush();
      expect(rows(out)).toEqual(full.slice(0, barsMax));
      if (barsMax < full.length) {
        // The first bar left out starts the bucket after the last one written.
        expect(bucketStart(tf('1m'), src.time[stoppedAt])).toBe(at(full[barsMax][0] as string));
      }
    }
  });
});
