// The trader's preferences, kept in this browser (localStorage): the start form's default
// instrument and timeframe, and the desk's bracket templates.
// The time zone lives in time-format.ts, which applies it.

import { type BracketTemplate, parseTemplates } from './pages/desk/templates-model.ts';

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

// Bracket templates (templates-model.ts): this browser's, under one key, as the other preferences.
const TEMPLATES_KEY = 'rd.bracketTemplates';

export function bracketTemplates(): BracketTemplate[] {
  try {
    return parseTemplates(JSON.parse(localStorage.getItem(TEMPLATES_KEY) ?? '[]'));
  } catch {
    return [];
  }
}

export function setBracketTemplates(list: readonly BracketTemplate[]): void {
  try {
    localStorage.setItem(TEMPLATES_KEY, JSON.stringify(list));
  } catch {}
}
