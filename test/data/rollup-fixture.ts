// A store with rollups over synthetic history and a few imported days (with gaps, one replacing a
// synthetic day, one merged into, one outside the synthetic span), shared by the rollup tests.

import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BarSource } from '../../src/data/bar-source.ts';
import { findInstrument, type Instrument, ticksToPrice } from '../../src/domain/instrument.ts';
import { daysFromCivil } from '../../src/domain/timeframe.ts';
import { ManualClock } from '../../src/lib/clock.ts';
import { isoFromEpochS } from '../../src/lib/iso-time.ts';
import { MarketDataService } from '../../src/service/market-data.ts';
import { BarChunkStore } from '../../src/store/bar-chunks.ts';
import { type Db, openDb } from '../../src/store/db.ts';
import { BarRollupStore } from '../../src/store/rollups.ts';
import { LocalImportLocks, SharedBarStore } from '../../src/store/shared-bars.ts';
import { SqliteSql } from '../../src/store/sql.ts';

export const SPAN = { firstDay: daysFromCivil(2025, 1, 1), lastDay: () => daysFromCivil(2025, 12, 31) };
export const day = (y: number, m: number, d: number) => daysFromCivil(y, m, d);

export interface RollupWorld {
  db: Db;
  chunks: BarChunkStore;
  rollups: BarRollupStore;
  source: BarSource;
  market: MarketDataService;
  clock: ManualClock;
  dir: string;
}

export function rollupWorld(): RollupWorld {
  const db = openDb(':memory:');
  const chunks = new BarChunkStore(db);
  const rollups = new BarRollupStore(db);
  const source = new BarSource(chunks, SPAN, 96, rollups);
  const clock = new ManualClock(Date.UTC(2026, 0, 10));
  const sql = new SqliteSql(db);
  const market = new MarketDataService({ shared: new SharedBarStore(sql), locks: new LocalImportLocks(chunks, () => clock.nowMs()), chunks, source, clock, replica: null });
  return { db, chunks, rollups, source, market, clock, dir: mkdtempSync(join(tmpdir(), 'rd-rollup-')) };
}

/**
 * A CSV of bars every `stepS` seconds over [fromS, toS), skipping the ranges in `gaps`; prices a
 * deterministic walk around `baseTicks`, volumes 0–99.
 */
export function barsCsv(inst: Instrument, fromS: number, toS: number, stepS: number, baseTicks: number, gaps: [number, number][] = []): string {
  const lines = ['timestamp,open,high,low,close,volume'];
  let px = baseTicks;
  let seed = fromS % 9973;
  const rnd = () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    return seed / 2_147_483_648;
  };
  for (let t = fromS; t < toS; t += stepS) {
    if (gaps.some(([a, b]) => t >= a && t < b)) continue;
    const o = px;
    const c = o + Math.round((rnd() - 0.5) * 6);
    const h = Math.max(o, c) + Math.floor(rnd() * 3);
    const l = Math.min(o, c) - Math.floor(rnd() * 3);
    px = c;
    const p = (x: number) => String(ticksToPrice(inst, x));
    lines.push(`${isoFromEpochS(t)},${p(o)},${p(h)},${p(l)},${p(c)},${Math.floor(rnd() * 100)}`);
  }
  return `${lines.join('\n')}\n`;
}

export async function importCsv(w: RollupWorld, symbol: string, name: string, csv: string): Promise<void> {
  const path = join(w.dir, name);
  writeFileSync(path, csv);
  const r = await w.market.importFile(symbol, 'csv', undefined, path);
  if (!r.ok || r.value.status !== 'imported') throw new Error(`import ${name} failed: ${JSON.stringify(r)}`);
}

export const inst = (symbol: string): Instrument => findInstrument(symbol) as Instrument;

const H = 3_600;
const D = 86_400;

/** Imported days (UTC day numbers) per symbol, made by `importAll`. */
export const IMPORTED = {
  /** Replaces a synthetic day (a US DST Monday), with gaps, then gets a second file merged in. */
  NQ: day(2025, 3, 10),
  /** Replaces the US fall-back Sunday's synthetic day with gaps; 10 s stored bars. */
  GC: day(2025, 11, 2),
  /** Outside the synthetic span. */
  EURUSD: day(2026, 1, 5),
};

export async function importAll(w: RollupWorld): Promise<void> {
  const nq = inst('NQ');
  const s0 = IMPORTED.NQ * D;
  await importCsv(w, 'NQ', 'nq-a.csv', barsCsv(nq, s0 + 13 * H, s0 + 16 * H + 1_234, 1, 80_000, [[s0 + 14 * H + 600, s0 + 14 * H + 4_000], [s0 + 15 * H + 59, s0 + 15 * H + 61]]));
  await importCsv(w, 'NQ', 'nq-b.csv', barsCsv(nq, s0 + 15 * H + 1_800, s0 + 17 * H, 1, 80_100));
  const gc = inst('GC');
  const g0 = IMPORTED.GC * D;
  await importCsv(w, 'GC', 'gc.csv', barsCsv(gc, g0 + 22 * H, g0 + 24 * H, 10, 30_000, [[g0 + 22 * H + 3_000, g0 + 23 * H + 10]]));
  const eu = inst('EURUSD');
  const e0 = IMPORTED.EURUSD * D;
  await importCsv(w, 'EURUSD', 'eu.csv', barsCsv(eu, e0 + 8 * H + 30, e0 + 11 * H, 1, 108_000));
}
