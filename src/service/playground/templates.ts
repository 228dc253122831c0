// The playground's strategy templates, and the check of the params a run is given.
//
// Each template's metadata and typed params live here; its Python source lives beside it in
// templates/<id>.py, loaded as text, so the file a user reads and forks is the file that runs (and
// the Python test suite runs every one of them: runner/python/test_harness.py). The strategy API
// they use is documented in docs/playground.md.
//
// Params: a template run gets every declared param, defaults filled in, nothing else. Custom code
// gets any small flat object of numbers, strings and booleans (its code decides what they mean).

import type { Json } from '../../lib/json.ts';
import bollingerReversion from './templates/bollinger_reversion.py' with { type: 'text' };
import donchianBreakout from './templates/donchian_breakout.py' with { type: 'text' };
import emaAtrTrend from './templates/ema_atr_trend.py' with { type: 'text' };
import openingRangeBreakout from './templates/opening_range_breakout.py' with { type: 'text' };
import rsiReversion from './templates/rsi_reversion.py' with { type: 'text' };
import smaCross from './templates/sma_cross.py' with { type: 'text' };
import spreadZscore from './templates/spread_zscore.py' with { type: 'text' };

export type ParamValue = number | string | boolean;

export interface TemplateParam {
  name: string;
  label: string;
  type: 'number' | 'string' | 'boolean';
  default: ParamValue;
  min: number | null;
  max: number | null;
  /** Numbers must be min (or 0) plus a whole multiple of step; step 1 means an integer. */
  step?: number;
}

export interface StrategyTemplate {
  id: string;
  name: string;
  description: string;
  category: 'trend-following' | 'mean-reversion' | 'breakout';
  difficulty: 'beginner' | 'intermediate' | 'advanced';
  params: TemplateParam[];
  /** The template's Python source, so a user can fork it into a strategy of their own. */
  code: string;
}

export const customParamsMax = 50;
export const paramStringCharsMax = 1000;
export const paramNameCharsMax = 64; // as for saved strategies (docs/decisions.md)

const int = (name: string, label: string, value: number, min: number, max: number): TemplateParam =>
  ({ name, label, type: 'number', default: value, min, max, step: 1 });
const num = (name: string, label: string, value: number, min: number, max: number, step: number): TemplateParam =>
  ({ name, label, type: 'number', default: value, min, max, step });
const bool = (name: string, label: string, value: boolean): TemplateParam =>
  ({ name, label, type: 'boolean', default: value, min: null, max: null });
const str = (name: string, label: string, value: string): TemplateParam =>
  ({ name, label, type: 'string', default: value, min: null, max: null });
const size = int('size', 'Position size (contracts)', 1, 1, 100);

/** A catalog entry, its fields in the wire's order: id, name, description, category, difficulty, params, code. */
const template = (
  id: string, name: string, category: StrategyTemplate['category'], difficulty: StrategyTemplate['difficulty'],
  code: string, description: string, params: TemplateParam[],
): StrategyTemplate => ({ id, name, description, category, difficulty, params, code });

const CATALOG: StrategyTemplate[] = [
  template('sma_cross', 'SMA crossover', 'trend-following', 'beginner', smaCross,
    'Long when the fast simple moving average crosses above the slow one, short when it crosses below; always in the market after the first cross.',
    [int('fast', 'Fast SMA period (bars)', 10, 2, 200), int('slow', 'Slow SMA period (bars)', 30, 3, 500), size]),
  template('ema_atr_trend', 'EMA trend with ATR brackets', 'trend-following', 'intermediate', emaAtrTrend,
    'Trades fast/slow EMA crosses; each entry has a stop-loss a multiple of the ATR away and a take-profit at a reward:risk ratio.',
    [
      int('fast', 'Fast EMA period (bars)', 20, 2, 200),
      int('slow', 'Slow EMA period (bars)', 50, 3, 500),
      int('atr_period', 'ATR period (bars)', 14, 2, 200),
      num('atr_stop', 'Stop-loss distance (ATRs)', 2, 0.5, 10, 0.1),
      num('reward_risk', 'Take-profit (multiple of the stop)', 2, 0.5, 10, 0.1),
      size,
    ]),
  template('rsi_reversion', 'RSI reversion', 'mean-reversion', 'beginner', rsiReversion,
    'Buys when the RSI is oversold and sells short when it is overbought; exits when the RSI crosses back over the exit level, with a protective stop.',
    [
      int('period', 'RSI period (bars)', 14, 2, 100),
      int('oversold', 'Oversold level', 30, 1, 49),
      int('overbought', 'Overbought level', 70, 51, 99),
      int('exit_level', 'Exit level', 50, 2, 98),
      int('stop_loss', 'Stop-loss (ticks)', 40, 1, 10_000),
      size,
    ]),
  template('bollinger_reversion', 'Bollinger band reversion', 'mean-reversion', 'intermediate', bollingerReversion,
    'Enters when price closes back inside a Bollinger band after closing outside it, exits at the middle band, with a protective stop.',
    [
      int('period', 'Band period (bars)', 20, 2, 500),
      num('width', 'Band width (standard deviations)', 2, 0.5, 5, 0.1),
      int('stop_loss', 'Stop-loss (ticks)', 60, 1, 10_000),
      size,
    ]),
  template('donchian_breakout', 'Donchian channel breakout', 'breakout', 'intermediate', donchianBreakout,
    'Turtle-style: buys a close above the highest high of the entry channel, exits below the lowest low of the shorter exit channel; optional shorts.',
    [
      int('entry_period', 'Entry channel (bars)', 20, 2, 500),
      int('exit_period', 'Exit channel (bars)', 10, 1, 500),
      bool('allow_short', 'Trade short breakouts too', true),
      size,
    ]),
  template('opening_range_breakout', 'Opening range breakout', 'breakout', 'advanced', openingRangeBreakout,
    'Marks the high and low of the first minutes after the New York open, then trades a break of either side with stop orders and a bracket; flat by the exit time.',
    [
      str('open_time', 'Session open (New York time, HH:MM)', '09:30'),
      int('range_minutes', 'Opening range length (minutes)', 30, 1, 240),
      str('exit_time', 'Flatten at (New York time, HH:MM)', '15:45'),
      num('reward_risk', 'Take-profit (multiple of the stop)', 1.5, 0.5, 10, 0.1),
      size,
    ]),
  template('spread_zscore', 'NQ/ES spread (z-score)', 'mean-reversion', 'intermediate', spreadZscore,
    'Two instruments (run with instrumentSymbols ["NQ", "ES"]): trades the ratio of their closes back to its mean; enters both legs when its z-score passes the entry level, flattens both when it comes back past the exit level.',
    [
      str('hedge', 'Second instrument (in instrumentSymbols)', 'ES'),
      int('lookback', 'Ratio mean and deviation over (bars)', 60, 5, 1000),
      num('entry_z', 'Enter beyond (z-score)', 2, 0.5, 5, 0.1),
      num('exit_z', 'Exit past (z-score)', 0.5, 0, 3, 0.1),
      size,
    ]),
];

export const TEMPLATES: readonly StrategyTemplate[] = Object.freeze(
  CATALOG.map((t) => Object.freeze({ ...t, params: Object.freeze(t.params.map((p) => Object.freeze(p))) as TemplateParam[] })),
);

export function findTemplate(id: string): StrategyTemplate | undefined {
  return TEMPLATES.find((t) => t.id === id);
}

export type ParamsResult = { ok: true; value: Record<string, ParamValue> } | { ok: false; message: string };

/** Checks a run's params against a template's (or, with null, the rules for custom code); null/undefined mean {}. */
export function validateParams(params: Json | undefined, template: StrategyTemplate | null): ParamsResult {
  const given = params === null || params === undefined ? {} : params;
  if (typeof given !== 'object' || Array.isArray(given)) return { ok: false, message: 'Params must be an object' };
  const entries = Object.entries(given);
  return template ? templateParams(entries, template) : customParams(entries);
}

function templateParams(entries: [string, Json][], template: StrategyTemplate): ParamsResult {
  const given = new Map(entries);
  for (const [name] of entries) {
    if (!template.params.some((p) => p.name === name)) return { ok: false, message: `Unknown param ${name}` };
  }
  const value: Record<string, ParamValue> = {};
  for (const p of template.params) {
    const v = given.has(p.name) ? given.get(p.name) : p.default;
    const problem = paramProblem(p, v);
    if (problem) return { ok: false, message: `Param ${p.name} ${problem}` };
    value[p.name] = v as ParamValue;
  }
  return { ok: true, value };
}

/** Why a value does not fit a declared param, as the end of a sentence; null when it fits. */
function paramProblem(p: TemplateParam, v: Json | undefined): string | null {
  if (p.type === 'boolean') return typeof v === 'boolean' ? null : 'must be a boolean';
  if (p.type === 'string') {
    if (typeof v !== 'string') return 'must be a string';
    return v.length > paramStringCharsMax ? `must be at most ${paramStringCharsMax} characters` : null;
  }
  if (typeof v !== 'number') return 'must be a number';
  if (!Number.isFinite(v)) return 'must be a finite number';
  if ((p.min !== null && v < p.min) || (p.max !== null && v > p.max)) {
    if (p.min !== null && p.max !== null) return `must be between ${p.min} and ${p.max}`;
    return p.min !== null ? `must be at least ${p.min}` : `must be at most ${p.max}`;
  }
  if (p.step !== undefined && !onStep(v, p.min ?? 0, p.step)) {
    return p.step === 1 ? 'must be a whole number' : `must be a multiple of ${p.step}`;
  }
  return null;
}

function onStep(v: number, base: number, step: number): boolean {
  const q = (v - base) / step;
  // A tolerance for binary fractions: 0.3 is not an exact multiple of 0.1 in floating point.
  return Math.abs(q - Math.round(q)) < 1e-9;
}

function customParams(entries: [string, Json][]): ParamsResult {
  if (entries.length > customParamsMax) return { ok: false, message: `Too many params (at most ${customParamsMax})` };
  for (const [name, v] of entries) {
    const problem = customParamProblem(name, v);
    if (problem) return { ok: false, message: problem };
  }
  return { ok: true, value: Object.fromEntries(entries) as Record<string, ParamValue> };
}

function customParamProblem(name: string, v: Json): string | null {
  if (name.length === 0 || name.length > paramNameCharsMax) return `Param names must be 1 to ${paramNameCharsMax} characters`;
  if (typeof v === 'number') return Number.isFinite(v) ? null : `Param ${name} must be a finite number`;
  if (typeof v === 'string') return v.length > paramStringCharsMax ? `Param ${name} must be at most ${paramStringCharsMax} characters` : null;
  return typeof v === 'boolean' ? null : `Param ${name} must be a number, string or boolean`;
}

/**
 * Why one value of one param does not fit, as validateParams words it, or null: `declared` is the
 * template's param (null for custom code). Checking a value alone costs no copy of the other params
 * (an optimisation checks up to 25,000 values; validateParams over each whole point cost seconds).
 */
export function paramValueProblem(name: string, v: Json, declared: TemplateParam | null): string | null {
  if (declared === null) return customParamProblem(name, v);
  const problem = paramProblem(declared, v);
  return problem ? `Param ${declared.name} ${problem}` : null;
}
