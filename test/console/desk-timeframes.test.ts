// Two timeframes of one session side by side (issue 30): the desk's layout model
// (src/console/pages/desk/layout-model.ts: the panes chosen, each an instrument at a width, kept per
// session and read back only if it still fits) and the partial bar a wider pane draws (the chart's
// rows, src/console/chart-rows.ts: a 15 m bucket is the fold of the 1 m bars played in it, never a
// bar past the clock).
import { describe, expect, it } from 'bun:test';
import type { Static } from '@sinclair/typebox';
import { ChartRows } from '../../src/console/chart-rows.ts';
import { bucketOfWidth } from '../../src/console/pages/desk/chart-rules.ts';
import { addedPane, changePane, defaultLayout, type Layout, layoutPanes, readLayout, resizeLayout } from '../../src/console/pages/desk/layout-model.ts';
import type { SessionContract } from '../../src/http/web/shapes.ts';

type Contract = Static<typeof SessionContract>;

const NQ: Contract = { id: 'CON.F.US.ENQ.Z26', name: 'NQZ6', description: 'E-mini NASDAQ-100', tickSize: 0.25, tickValue: 5, symbolId: 'F.US.ENQ' };
const ES: Contract = { id: 'CON.F.US.EP.Z26', name: 'ESZ6', description: 'E-mini S&P 500', tickSize: 0.25, tickValue: 12.5, symbolId: 'F.US.EP' };

const one = { contract: NQ, timeframe: '1m' };
const two = { contract: NQ, instruments: [NQ, ES], timeframe: '1m' };

describe('desk layout: timeframes side by side', () => {
  it('by default one pane per instrument at the session timeframe; a second pane of one instrument is its 15 m context', () => {
    expect(defaultLayout(one)).toEqual([{ contractId: NQ.id, timeframe: '1m' }]);
    expect(defaultLayout(two)).toEqual([{ contractId: NQ.id, timeframe: '1m' }, { contractId: ES.id, timeframe: '1m' }]);
    const pair = resizeLayout(one, defaultLayout(one), 2);
    expect(pair).toEqual([{ contractId: NQ.id, timeframe: '1m' }, { contractId: NQ.id, timeframe: '15m' }]);
    expect(layoutPanes(one, pair)).toEqual([
      { key: `${NQ.id}@1m`, contract: NQ, timeframe: '1m', primary: true },
      { key: `${NQ.id}@15m`, contract: NQ, timeframe: '15m', primary: false },
    ]);
    // More panes: the next context widths not shown; then fewer, the last dropped; never under one or over four.
    expect(resizeLayout(one, pair, 4).map((p) => p.timeframe)).toEqual(['1m', '15m', '30m', '1h']);
    expect(resizeLayout(one, resizeLayout(one, pair, 4), 1)).toEqual([{ contractId: NQ.id, timeframe: '1m' }]);
    expect(resizeLayout(one, pair, 0).length).toBe(1);
    expect(resizeLayout(one, pair, 9).length).toBe(4);
    // Context widths from other sessions' bars: 5 m → 1 h, 1 h → 1 d; the widest when none is 12 times as wide.
    expect(addedPane({ contract: NQ, timeframe: '5m' }, [{ contractId: NQ.id, timeframe: '5m' }]).timeframe).toBe('1h');
    expect(addedPane({ contract: NQ, timeframe: '1h' }, [{ contractId: NQ.id, timeframe: '1h' }]).timeframe).toBe('1d');
    expect(addedPane({ contract: NQ, timeframe: '1h' }, [{ contractId: NQ.id, timeframe: '1h' }, { contractId: NQ.id, timeframe: '1d' }]).timeframe).toBe('4h');
    // Several instruments: an instrument not shown comes first, then the first at a context width.
    expect(addedPane(two, [{ contractId: NQ.id, timeframe: '1m' }])).toEqual({ contractId: ES.id, timeframe: '1m' });
    expect(addedPane(two, defaultLayout(two))).toEqual({ contractId: NQ.id, timeframe: '15m' });
  });

  it('a pane changes its width or instrument only to what the session can draw; the first pane keeps the first instrument', () => {
    const pair = resizeLayout(two, [{ contractId: NQ.id, timeframe: '1m' }], 2);
    expect(changePane(two, pair, 1, { timeframe: '1h' })).toEqual([{ contractId: NQ.id, timeframe: '1m' }, { contractId: ES.id, timeframe: '1h' }]);
    expect(changePane(two, pair, 1, { contractId: NQ.id })).toEqual([{ contractId: NQ.id, timeframe: '1m' }, { contractId: NQ.id, timeframe: '1m' }]);
    expect(changePane(two, pair, 0, { timeframe: '5m' })[0]).toEqual({ contractId: NQ.id, timeframe: '5m' });
    // Refused, the layout as it was (the same object: nothing kept, nothing redrawn).
    for (const [k, change] of [[1, { timeframe: '30s' }], [1, { timeframe: '7m' }], [1, { contractId: 'CON.F.US.GCE.G27' }], [0, { contractId: ES.id }], [2, { timeframe: '5m' }]] as const) {
      expect(changePane(two, pair, k, change)).toBe(pair);
    }
  });

  it('a kept layout is read back while it fits the session, else the default', () => {
    const kept: Layout = [{ contractId: NQ.id, timeframe: '5m' }, { contractId: ES.id, timeframe: '15m' }, { contractId: NQ.id, timeframe: '1h' }];
    expect(readLayout(two, JSON.parse(JSON.stringify(kept)))).toEqual(kept);
    const fallback = defaultLayout(two);
    for (const bad of [null, 'x', [], {}, [{ contractId: NQ.id }], [{ contractId: ES.id, timeframe: '1m' }], [...kept, ...kept], [{ contractId: NQ.id, timeframe: '30s' }], [{ contractId: NQ.id, timeframe: '1m' }, { contractId: 'CON.F.US.GCE.G27', timeframe: '1m' }]]) {
      expect(readLayout(two, bad)).toEqual(fallback);
    }
    // A layout kept from a session of two instruments does not fit one of them alone (another session's).
    expect(readLayout(one, kept)).toEqual(defaultLayout(one));
  });
});

/** 1 m bars from 09:00 UTC, each 0.25 apart, with a high and a low of its own. */
function minuteBars(n: number, from = Date.parse('2025-03-03T09:00:00Z')) {
  return Array.from({ length: n }, (_, i) => {
    const o = 20_000 + ((i * 7) % 13) * 0.25;
    const c = 20_000 + ((i * 5) % 11) * 0.25;
    return { t: new Date(from + i * 60_000).toISOString().replace('.000', ''), o, h: Math.max(o, c) + (i % 3) * 0.25, l: Math.min(o, c) - (i % 4) * 0.25, c, v: 10 + i };
  });
}

/** The fold of 1 m bars into one: first open, highest high, lowest low, last close, volumes summed. */
function fold(bars: ReturnType<typeof minuteBars>) {
  return { open: bars[0].o, high: Math.max(...bars.map((b) => b.h)), low: Math.min(...bars.map((b) => b.l)), close: bars[bars.length - 1].c };
}

/** A pane's rows at 15 m over the session's 1 m bars, loaded with `loaded` (the read when the pane opens). */
function rows15m(loaded: ReturnType<typeof minuteBars>): ChartRows {
  const rows = new ChartRows();
  rows.bucketOf = bucketOfWidth('15m');
  rows.setSource(loaded);
  rows.rebuild();
  return rows;
}

describe('a wider pane: the partial bar', () => {
  it('a 15 m pane stepped through 1 m bars: its last bar is the fold of the 1 m bars since its bucket start, never past the clock', () => {
    const all = minuteBars(50);
    // The history read at load (up to 09:07), then one bar a step as the hub carries them.
    const rows = rows15m(all.slice(0, 8));
    for (let played = 8; played <= all.length; played++) {
      if (played > 8) {
        const fresh = rows.appendSource([all[played - 1]]);
        for (const p of fresh) rows.keep(rows.rowOf(p));
      }
      const lastOpenS = Date.parse(all[played - 1].t) / 1000;
      const bucketS = Math.floor(lastOpenS / 900) * 900;
      const inBucket = all.slice(0, played).filter((b) => Date.parse(b.t) / 1000 >= bucketS);
      const last = rows.candles[rows.candles.length - 1];
      expect({ time: Number(last.time), open: last.open, high: last.high, low: last.low, close: last.close }).toEqual({ time: bucketS, ...fold(inBucket) });
      expect(rows.volumes[rows.volumes.length - 1].value).toBe(inBucket.reduce((n, b) => n + b.v, 0));
      // One bar per bucket begun, the last opening at or before the clock's last minute.
      expect(rows.candles.length).toBe(Math.floor((played - 1) / 15) + 1);
    }
  });

  it('a jump appends many 1 m bars at once: the rebuilt rows fold them the same way', () => {
    const all = minuteBars(47);
    const rows = rows15m(all.slice(0, 3));
    rows.appendSource(all.slice(3));
    rows.rebuild();
    expect(rows.candles.map((c) => Number(c.time))).toEqual([0, 1, 2, 3].map((k) => Date.parse('2025-03-03T09:00:00Z') / 1000 + k * 900));
    const last = rows.candles[3];
    expect({ open: last.open, high: last.high, low: last.low, close: last.close }).toEqual(fold(all.slice(45)));
  });
});
