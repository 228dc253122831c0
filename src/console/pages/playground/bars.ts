// The price bars under a run's trades: History/retrieveBars of the current family (the session
// cookie is accepted there), at the run's timeframe when History serves it and the span is short
// enough to draw, else at a coarser preset.

import { sim } from '../../api.ts';
import type { ApiBar } from '../../chart.ts';

const UNIT_S = { s: 1, m: 60, h: 3600, d: 86400 } as const;

/** `5m` → 300; null when the text is not a width. */
export function widthSeconds(tf: string): number | null {
  const m = /^(\d+)([smhdD])$/.exec(tf);
  if (!m) return null;
  const n = Number(m[1]);
  const unit = m[2]!.toLowerCase() as keyof typeof UNIT_S;
  return n > 0 ? n * UNIT_S[unit] : null;
}

/** History's preset widths (spec: others are custom and currently disabled). */
const PRESETS = [1, 5, 10, 15, 30, 60, 300, 900, 1800, 3600, 14400, 86400];
/** Enough candles to read trades on, few enough to stay quick and cheap on the daily bar budget. */
const MAX_BARS = 8000;
const DAY = 86400;

/** History's scan window for a width (spec: 30 days second/minute, 120 days hour, 365 days day). */
function scanWindowS(width: number): number {
  return width < 3600 ? 30 * DAY : width < DAY ? 120 * DAY : 365 * DAY;
}

/** The display width for a run of `runWidth` over `spanS` seconds. */
export function displayWidth(runWidth: number, spanS: number): number {
  const base = [...PRESETS].reverse().find((p) => p <= runWidth && runWidth % p === 0) ?? 60;
  return PRESETS.find((p) => p >= base && spanS / p <= MAX_BARS && spanS <= scanWindowS(p) * 3) ?? DAY;
}

function unitOf(width: number): { unit: number; unitNumber: number } {
  if (width % DAY === 0) return { unit: 4, unitNumber: width / DAY };
  if (width % 3600 === 0) return { unit: 3, unitNumber: width / 3600 };
  if (width % 60 === 0) return { unit: 2, unitNumber: width / 60 };
  return { unit: 1, unitNumber: width };
}

export interface ContractInfo {
  id: string;
  name: string;
  tickSize: number;
}

const contracts = new Map<string, ContractInfo>();

/** The contract of an instrument symbol (Contract/search; the symbol's own contract, not a micro). */
export async function contractFor(symbol: string): Promise<ContractInfo> {
  const known = contracts.get(symbol);
  if (known) return known;
  const r = await sim<{ contracts: (ContractInfo & { symbolId: string })[] }>('Contract/search', { searchText: symbol });
  const monthly = new RegExp(`^${symbol}[FGHJKMNQUVXZ]\\d{1,2}$`);
  const c = r.contracts.find((c) => c.symbolId === symbol) ?? r.contracts.find((c) => monthly.test(c.name));
  if (!c) throw new Error(`No contract found for ${symbol}`);
  const info = { id: c.id, name: c.name, tickSize: c.tickSize };
  contracts.set(symbol, info);
  return info;
}

const iso = (s: number) => new Date(s * 1000).toISOString().replace('.000Z', 'Z');

/** Bars of a contract from `startS` (inclusive) to `endS` (exclusive) at `width` seconds, paging History. */
export async function loadBars(contractId: string, width: number, startS: number, endS: number): Promise<ApiBar[]> {
  const out: ApiBar[] = [];
  let lastTime = -Infinity;
  let from = startS;
  for (let page = 0; page < 4 && from < endS; page++) {
    const r = await sim<{ bars: ApiBar[] }>('History/retrieveBars', {
      contractId,
      ...unitOf(width),
      startTime: iso(from),
      endTime: iso(endS - 1),
      limit: MAX_BARS,
    });
    let last = from - 1;
    for (const b of r.bars) {
      const time = Date.parse(b.t) / 1000;
      if (time < from || time >= endS || time <= lastTime) continue;
      out.push(b);
      last = lastTime = time;
    }
    if (r.bars.length === 0 || out.length >= MAX_BARS) break;
    from = Math.max(last + width, from + scanWindowS(width));
    if (last >= endS - width) break;
  }
  return out;
}
