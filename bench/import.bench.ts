// Lines per second of parseBarFile on a generated 1-million-line generic CSV of NQ 1 s bars, for three
// time forms: ISO with Z, naive ISO read in America/New_York (the zone path), and epoch nanoseconds.
// A/B: ROOT=<checkout> measures that checkout's src/ (bench/root.ts loads it; any commit since the
// previous release: only modules and exports they all have), the same load from this file and bench/'s
// helpers; `npm run bench -- --baseline <commit> --only import` runs this checkout and <commit> in turn.
// Run: ./node_modules/.bin/bun bench/import.bench.ts
// Generating the text is outside the timing; parsing includes validation and the typed-array writes.

import type { ImportOptions } from '../src/data/import/types.ts';
import { load } from './root.ts';

const { parseBarFile } = await load<typeof import('../src/data/import/index.ts')>('src/data/import/index.ts');
const { findInstrument } = await load<typeof import('../src/domain/instrument.ts')>('src/domain/instrument.ts');

const LINES = 1_000_000;
const RUNS = 7;
const NQ = findInstrument('NQ')!;
const T0 = Date.UTC(2024, 0, 2, 14, 30, 0) / 1000;

function makeCsv(stamp: (s: number) => string): string {
  const out: string[] = ['timestamp,open,high,low,close,volume'];
  let c = 16_834 * 4;
  for (let i = 0; i < LINES; i++) {
    const o = c;
    c = o + ((i * 7919) % 7) - 3;
    const h = Math.max(o, c) + (i % 3);
    const l = Math.min(o, c) - (i % 2);
    out.push(`${stamp(T0 + i)},${o / 4},${h / 4},${l / 4},${c / 4},${1 + (i % 50)}`);
  }
  return out.join('\n') + '\n';
}

const iso = (s: number) => new Date(s * 1000).toISOString().replace('.000Z', 'Z');
const cases: [string, string, ImportOptions][] = [
  ['ISO 8601 with Z', makeCsv(iso), { format: 'csv' }],
  ['naive ISO, --tz America/New_York', makeCsv((s) => iso(s - 5 * 3600).replace('T', ' ').replace('Z', '')),
    { format: 'csv', tz: 'America/New_York' }],
  ['epoch nanoseconds', makeCsv((s) => `${s}000000000`), { format: 'csv' }],
];

for (const [name, text, opts] of cases) {
  const ms: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    const t = performance.now();
    const r = parseBarFile(text, NQ, opts);
    ms.push(performance.now() - t);
    if (!r.ok || r.value.barCount !== LINES) throw new Error(`bench parse failed: ${JSON.stringify(r.ok ? r.value.barCount : r.error)}`);
  }
  ms.sort((a, b) => a - b);
  const median = ms[RUNS >> 1];
  const mb = text.length / 1e6;
  console.log(`${name.padEnd(36)} median ${median.toFixed(0)} ms (${(LINES / median / 1e3).toFixed(2)} M lines/s, `
    + `${(mb / median * 1e3).toFixed(0)} MB/s), min ${ms[0].toFixed(0)} ms, ${mb.toFixed(0)} MB`);
}
