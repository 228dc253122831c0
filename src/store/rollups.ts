// Stored rollups: one BLOB of columns per instrument per UTC day per width (src/data/rollup.ts has
// the model). Rows built from generated bars name the generator version, so a new generator never
// serves an old day's rollup; rows built by a server are written only if the instrument's data
// version is still the one they were built from (an import in another process may have replaced
// the day meanwhile, writing its own rollups in its transaction).

import { type BarColumns, packBars, unpackBars } from '../data/bar-columns.ts';
import type { RollupSource, RollupStore } from '../data/rollup.ts';
import type { Db } from './db.ts';

const IMPORT = 'import';

function sourceText(source: RollupSource): string {
  return source.kind === 'import' ? IMPORT : `synthetic:${source.generatorVersion}`;
}

export class BarRollupStore implements RollupStore {
  constructor(private readonly db: Db) {}

  get(symbol: string, day: number, widthS: number, generatorVersion: number | null): BarColumns | null {
    const r = this.db
      .query('SELECT source, bars FROM bar_rollups WHERE symbol = $symbol AND day = $day AND width_s = $w')
      .get({ symbol, day, w: widthS }) as { source: string; bars: Uint8Array } | null;
    if (!r) return null;
    const syntheticOk = generatorVersion !== null && r.source === sourceText({ kind: 'synthetic', generatorVersion });
    if (r.source !== IMPORT && !syntheticOk) return null;
    return unpackBars(r.bars);
  }

  daysKept(symbol: string, fromDay: number, toDay: number, widthCount: number, generatorVersion: number | null): Set<number> {
    const synthetic = generatorVersion === null ? null : sourceText({ kind: 'synthetic', generatorVersion });
    const rows = this.db
      .query(
        `SELECT day FROM bar_rollups WHERE symbol = $symbol AND day BETWEEN $from AND $to AND (source = $import OR source = $synthetic)
         GROUP BY day HAVING COUNT(*) >= $n`,
      )
      .all({ symbol, from: fromDay, to: toDay, import: IMPORT, synthetic, n: widthCount }) as { day: number }[];
    return new Set(rows.map((r) => r.day));
  }

  putIfVersion(symbol: string, day: number, widthS: number, source: RollupSource, bars: BarColumns, dataVersion: number): void {
    this.db
      .query(
        `INSERT INTO bar_rollups (symbol, day, width_s, source, bar_count, bars)
         SELECT $symbol, $day, $w, $source, $n, $bars
         WHERE COALESCE((SELECT CAST(value AS INTEGER) FROM meta WHERE key = $k), 0) = $version
         ON CONFLICT (symbol, day, width_s) DO UPDATE SET source = excluded.source,
           bar_count = excluded.bar_count, bars = excluded.bars`,
      )
      .run({ symbol, day, w: widthS, source: sourceText(source), n: bars.length, bars: packBars(bars), k: `data_version:${symbol}`, version: dataVersion });
  }

  /** Rows and BLOB bytes kept for an instrument (the bench reports bytes per instrument-day). */
  footprint(symbol: string): { rows: number; days: number; bytes: number } {
    const r = this.db
      .query('SELECT COUNT(*) AS n, COUNT(DISTINCT day) AS days, COALESCE(SUM(LENGTH(bars)), 0) AS bytes FROM bar_rollups WHERE symbol = $symbol')
      .get({ symbol }) as { n: number; days: number; bytes: number };
    return { rows: r.n, days: r.days, bytes: r.bytes };
  }
}
