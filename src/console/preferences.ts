// The trader's display preferences, kept in this browser (localStorage): the start form's default
// instrument and timeframe. The time zone lives in time-format.ts, which applies it.

export interface StartDefaults {
  /** The instrument's `symbolId` as Contract/available states it (`NQ`, or `F.US.ENQ` in the gateway style). */
  symbol: string;
  /** A timeframe of the start form (`1m`). */
  timeframe: string;
}

const KEY = 'rd.startDefaults';
export const FACTORY_DEFAULTS: StartDefaults = { symbol: 'NQ', timeframe: '1m' };

export function startDefaults(): StartDefaults {
  try {
    const v = JSON.parse(localStorage.getItem(KEY) ?? 'null');
    if (v && typeof v.symbol === 'string' && typeof v.timeframe === 'string') return { symbol: v.symbol, timeframe: v.timeframe };
  } catch {}
  return FACTORY_DEFAULTS;
}

export function setStartDefaults(d: StartDefaults): void {
  try {
    localStorage.setItem(KEY, JSON.stringify(d));
  } catch {}
}
