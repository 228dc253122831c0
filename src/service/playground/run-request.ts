// A playground run request checked whole, before any runner child is used: the source (code, a
// template or a saved strategy), its size, the instrument, the trade dates, the timeframes and the
// params against the template, and the pace. Family-agnostic: the playground adapter maps the
// error kinds. Optimisations check their run fields through the same planner (optimize-request.ts).

import { limits } from '../../config.ts';
import type { BarSource } from '../../data/bar-source.ts';
import { countBuckets } from '../../data/bucket-count.ts';
import { findInstrument, type Instrument } from '../../domain/instrument.ts';
import { parseTimeframe, type Timeframe } from '../../domain/timeframe.ts';
import { tradeDateEndS, tradeDateStartS } from '../../domain/trading-hours.ts';
import { civilFromDays, daysFromCivil } from '../../lib/civil-date.ts';
import { type Invalid, isInvalid } from '../../lib/invalid.ts';
import { dayToDateString, parseDateDay } from '../../lib/iso-time.ts';
import type { Json } from '../../lib/json.ts';
import { err, ok, type Result } from '../../lib/result.ts';
import { DAY_S } from '../../lib/time-units.ts';
import type { StrategyService } from './strategies.ts';
import { findTemplate, type ParamValue, validateParams } from './templates.ts';

export type RunError =
  | { kind: 'source_required' }
  | { kind: 'template_not_found' }
  | { kind: 'script_too_large' }
  | { kind: 'strategy_not_found' }
  | { kind: 'instrument_not_found' }
  | { kind: 'invalid_instruments'; message: string }
  | { kind: 'start_date_required' }
  | { kind: 'date_invalid'; field: 'startDate' | 'endDate' }
  | { kind: 'end_before_start' }
  | { kind: 'span_too_long' }
  | { kind: 'timeframe_required' }
  | { kind: 'custom_disabled' }
  | { kind: 'invalid_timeframe'; field: 'timeframe' | 'contextTimeframes'; text: string }
  | { kind: 'invalid_params'; message: string }
  | { kind: 'invalid_speed' }
  | { kind: 'no_data'; symbol: string; fromDate: string; toDate: string }
  | { kind: 'already_running'; executionId: string }
  | { kind: 'capacity'; retryAfterS: number };

/**
 * POST run as the route parsed it: each field as its schema types it, `INVALID` where the schema
 * failed and the refusal is left to this service's order of checks (a `defer` field rule), and the
 * JSON value as sent (`Json`, undefined when absent) where the service reads the field as sent (a
 * `keep` rule): startDate (absent is refused otherwise than wrong), the timeframes (their refusals
 * quote the text) and params (checked key by key against the template).
 */
export interface RunInput {
  strategyId?: string | null | Invalid;
  templateId?: string | null | Invalid;
  code?: string | null | Invalid;
  instrument: string | Invalid;
  /** Extension (several instruments): the run's instruments, the main one first; as sent. */
  instrumentSymbols?: Json;
  startDate: Json | undefined;
  endDate?: string | null | Invalid;
  timeframe: Json | undefined;
  contextTimeframes?: Json;
  params?: Json;
  speed?: number | null | Invalid;
}

/** A run request that passed every check: what the run is queued with. */
export interface PlannedRun {
  inst: Instrument;
  /** The other instruments of a run that named `instrumentSymbols` (empty otherwise), in its order. */
  legs: Instrument[];
  /** True when the request named `instrumentSymbols` (the run then reports its instruments and each trade's). */
  multi: boolean;
  tf: Timeframe;
  ctx: Timeframe[];
  code: string;
  params: Record<string, ParamValue>;
  speed: number | null;
  startS: number;
  endS: number;
  totalBars: number;
  startDate: string;
  endDate: string;
  strategyId: string | null;
  templateId: string | null;
}

export class RunPlanner {
  constructor(
    private readonly strategies: StrategyService,
    private readonly source: BarSource,
    private readonly customTimeframes: boolean,
  ) {}

  /** Checks a run request whole (no runner used): the source, instrument, span, timeframes, params and pace. */
  async plan(userId: number, body: RunInput): Promise<Result<PlannedRun, RunError>> {
    const code = body.code;
    const templateId = body.templateId;
    const strategyId = body.strategyId;
    const hasCode = code !== undefined && code !== null;
    const hasTemplate = templateId !== undefined && templateId !== null;
    const hasStrategy = strategyId !== undefined && strategyId !== null;
    let strategy = null;
    if (hasStrategy) {
      const s = isInvalid(strategyId) ? null : await this.strategies.get(userId, strategyId);
      if (!s?.ok) return err({ kind: 'strategy_not_found' } as RunError);
      strategy = s.value;
    }
    // Exactly one source; a saved strategy alone runs its own code.
    if (hasCode === hasTemplate && !(strategy && !hasCode && !hasTemplate)) return err({ kind: 'source_required' } as RunError);
    let source: string;
    let template = null;
    if (hasTemplate) {
      template = typeof templateId === 'string' ? findTemplate(templateId) ?? null : null;
      if (!template) return err({ kind: 'template_not_found' } as RunError);
      source = template.code;
    } else if (hasCode) {
      if (typeof code !== 'string' || code.trim() === '') return err({ kind: 'source_required' } as RunError);
      source = code;
    } else source = (strategy as { code: string }).code;
    if (Buffer.byteLength(source, 'utf8') > limits.playgroundScriptBytesMax) return err({ kind: 'script_too_large' } as RunError);

    const insts = instrumentsOf(body.instrument, body.instrumentSymbols);
    if (!insts.ok) return insts;
    const [inst, ...legs] = insts.value;
    const dates = this.dates(inst, body.startDate, body.endDate);
    if (!dates.ok) return dates;
    if (body.timeframe === undefined || body.timeframe === null || body.timeframe === '') return err({ kind: 'timeframe_required' } as RunError);
    const tf = this.timeframe(inst, body.timeframe, 'timeframe');
    if (!tf.ok) return tf;
    const ctx = this.contextTimeframes(inst, tf.value, body.contextTimeframes);
    if (!ctx.ok) return ctx;
    const rawParams = body.params === undefined || body.params === null ? (strategy && !hasTemplate ? strategy.params : null) : body.params;
    const params = validateParams(rawParams, template);
    if (!params.ok) return err({ kind: 'invalid_params', message: params.message } as RunError);
    const speed = parseSpeed(body.speed, false);
    if (speed === undefined) return err({ kind: 'invalid_speed' } as RunError);

    const { startS, endS } = dates.value;
    const totalBars = countBuckets(this.source, inst, tf.value, startS, endS);
    if (totalBars === 0) {
      return err({ kind: 'no_data', symbol: inst.symbol, fromDate: dates.value.startDate, toDate: dates.value.endDate } as RunError);
    }
    const bare = legs.find((leg) => countBuckets(this.source, leg, tf.value, startS, endS) === 0);
    if (bare) return err({ kind: 'no_data', symbol: bare.symbol, fromDate: dates.value.startDate, toDate: dates.value.endDate } as RunError);
    return ok({
      inst, legs, multi: body.instrumentSymbols !== undefined && body.instrumentSymbols !== null, tf: tf.value, ctx: ctx.value, code: source, params: params.value, speed, startS, endS, totalBars,
      startDate: dates.value.startDate, endDate: dates.value.endDate,
      strategyId: strategy ? strategy.id : null, templateId: template ? template.id : null,
    });
  }

  /**
   * Trade dates [startDate, endDate], both included: from the start date's session open to the end
   * date's session close (CME: 17:00 CT the day before to 16:00 CT; forex 17:00 New York). The
   * default end date is the start date: one session. Clipped to the data held.
   */
  dates(inst: Instrument, start: RunInput['startDate'], end: RunInput['endDate']) {
    if (start === undefined || start === null || start === '') return err({ kind: 'start_date_required' } as RunError);
    const startDay = parseDateDay(start);
    if (startDay === undefined) return err({ kind: 'date_invalid', field: 'startDate' } as RunError);
    let endDay = startDay;
    if (end !== undefined && end !== null && end !== '') {
      const d = isInvalid(end) ? undefined : parseDateDay(end);
      if (d === undefined) return err({ kind: 'date_invalid', field: 'endDate' } as RunError);
      if (d < startDay) return err({ kind: 'end_before_start' } as RunError);
      const [y, m, dd] = civilFromDays(startDay);
      if (d > daysFromCivil(y + limits.replaySpanYearsMax, m, m === 2 && dd === 29 ? 28 : dd)) return err({ kind: 'span_too_long' } as RunError);
      endDay = d;
    }
    const range = this.source.range(inst);
    const startS = Math.max(tradeDateStartS(inst.session, startDay), range.firstDay * DAY_S);
    const endS = Math.min(tradeDateEndS(inst.session, endDay), (range.lastDay + 1) * DAY_S);
    return ok({ startS, endS: Math.max(startS, endS), startDate: dayToDateString(startDay), endDate: dayToDateString(endDay) });
  }

  /** A fixed width that divides a day, valid for the instrument (docs/decisions.md). */
  private timeframe(inst: Instrument, text: Json | undefined, field: 'timeframe' | 'contextTimeframes') {
    const r = parseTimeframe(text, { customEnabled: this.customTimeframes, storedResolutionS: inst.storedResolutionS });
    if (!r.ok) {
      if (r.error.kind === 'custom_disabled') return err({ kind: 'custom_disabled' } as RunError);
      return err({ kind: 'invalid_timeframe', field, text: String(text) } as RunError);
    }
    const tf = r.value;
    if (tf.kind !== 'fixed' || DAY_S % tf.widthS !== 0) return err({ kind: 'invalid_timeframe', field, text: String(text) } as RunError);
    return ok(tf);
  }

  private contextTimeframes(inst: Instrument, run: Timeframe, v: Json | undefined): Result<Timeframe[], RunError> {
    if (v === undefined || v === null) return ok([]);
    if (!Array.isArray(v) || v.length > limits.playgroundContextTimeframesMax) return err({ kind: 'invalid_timeframe', field: 'contextTimeframes', text: JSON.stringify(v).slice(0, 80) });
    const out: Timeframe[] = [];
    for (const x of v) {
      const tf = this.timeframe(inst, x, 'contextTimeframes');
      if (!tf.ok) return tf;
      // Higher than the run's timeframe and a whole multiple of it, each once.
      const w = tf.value.widthS as number;
      if (w <= (run.widthS as number) || w % (run.widthS as number) !== 0 || out.some((o) => o.text === tf.value.text)) {
        return err({ kind: 'invalid_timeframe', field: 'contextTimeframes', text: String(x) });
      }
      out.push(tf.value);
    }
    return ok(out);
  }
}

/**
 * The run's instruments, the main one first: `instrument` alone (the spec's field, exactly as before),
 * or `instrumentSymbols` (the extension), which `instrument`, when given, must lead.
 */
function instrumentsOf(single: string | Invalid, list: Json | undefined): Result<Instrument[], RunError> {
  if (list === undefined || list === null) {
    const inst = isInvalid(single) ? undefined : findInstrument(single);
    return inst ? ok([inst]) : err({ kind: 'instrument_not_found' });
  }
  const max = limits.playgroundInstrumentsMax;
  const refuse = (message: string) => err({ kind: 'invalid_instruments', message } as RunError);
  if (!Array.isArray(list) || list.length === 0 || list.length > max || !list.every((x) => typeof x === 'string')) {
    return refuse(`instrumentSymbols must be a list of 1 to ${max} symbols`);
  }
  const out: Instrument[] = [];
  for (const symbol of list as string[]) {
    const inst = findInstrument(symbol);
    if (!inst) return refuse(`Instrument not found: ${symbol.slice(0, 40)}`);
    if (out.includes(inst)) return refuse(`instrumentSymbols names ${inst.symbol} twice`);
    out.push(inst);
  }
  if (!isInvalid(single) && findInstrument(single) !== out[0]) return refuse(`instrumentSymbols must start with instrument (${single.slice(0, 40)})`);
  return ok(out);
}

/** undefined = invalid. In a run body: absent/null = full speed, 1–50. In `speed`: null = full speed, 1–50. */
export function parseSpeed(v: number | null | undefined | Invalid, required: boolean): number | null | undefined {
  if (v === undefined) return required ? undefined : null;
  if (v === null) return null;
  if (isInvalid(v) || !Number.isFinite(v)) return undefined;
  return v >= limits.replaySpeedMin && v <= limits.replaySpeedMax ? v : undefined;
}
