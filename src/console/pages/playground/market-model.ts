// What a run plays (instrument, timeframe, trade dates), kept in this browser between visits, and
// its pace (0: full speed).

import { useEffect, useState } from 'preact/hooks';
import type { Market } from './market-card.tsx';

const MARKET_KEY = 'replaydesk.playground.market';
const DEFAULT_MARKET: Market = { instrument: 'NQ', timeframe: '5m', startDate: '2025-03-04', endDate: '2025-03-04' };

function savedMarket(): Market {
  try {
    const m = JSON.parse(localStorage.getItem(MARKET_KEY) ?? 'null');
    if (m && typeof m.instrument === 'string' && typeof m.startDate === 'string') return { ...DEFAULT_MARKET, ...m };
  } catch {}
  return DEFAULT_MARKET;
}

/** The market's fields of POST run (an empty end date is the start date). */
export function marketFields(m: Market): Record<string, unknown> {
  return { instrument: m.instrument, timeframe: m.timeframe, startDate: m.startDate, endDate: m.endDate || m.startDate };
}

export interface MarketModel {
  market: Market;
  patch(p: Partial<Market>): void;
  speed: number;
  setSpeed(v: number): void;
}

export function useMarket(): MarketModel {
  const [market, setMarket] = useState<Market>(savedMarket);
  const [speed, setSpeed] = useState(0);
  useEffect(() => {
    localStorage.setItem(MARKET_KEY, JSON.stringify(market));
  }, [market]);
  return { market, patch: (p) => setMarket((m) => ({ ...m, ...p })), speed, setSpeed };
}
