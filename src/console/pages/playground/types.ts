// The playground API's types as the console reads them: the server's wire shapes
// (src/http/playground/shapes.ts), type-only (docs/playground.md, HTTP API).

import type { Static } from '@sinclair/typebox';
import type * as wire from '../../../http/playground/shapes.ts';
import type { RunTrade } from '../../../http/shared/schemas.ts';

export type TemplateParam = Static<typeof wire.TemplateParam>;
export type Template = Static<typeof wire.Template>;
export type ParamValues = Static<typeof wire.Params>;
export type StrategySummary = Static<typeof wire.StrategySummary>;
export type StrategyDetail = Static<typeof wire.Strategy>;
export type RunStatus = Static<typeof wire.RunStatus>;
/** A run of a saved strategy (spec: Run). */
export type Run = Static<typeof wire.Run>;
export type Trade = Static<typeof RunTrade>;
/** A progress event: the execution without results, trades, curve or logs. */
export type ExecutionProgress = Static<typeof wire.ExecutionProgress>;
export type Execution = Static<typeof wire.Execution>;

export const INSTRUMENTS = ['NQ', 'ES', 'MNQ', 'MES', 'GC', 'EURUSD', 'LIGHTCMDUSD'] as const;
export const TIMEFRAMES = ['1s', '5s', '15s', '30s', '1m', '5m', '15m', '30m', '1h', '4h', '1d'] as const;

export function isDone(status: RunStatus): boolean {
  return status !== 'running';
}
