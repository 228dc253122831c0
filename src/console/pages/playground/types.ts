// Wire shapes of the playground API as the console reads them (docs/playground.md, HTTP API).

import type { WireRunStats } from '../../run-stats.ts';

export interface TemplateParam {
  name: string;
  label: string;
  type: 'number' | 'string' | 'boolean';
  default: number | string | boolean;
  min: number | null;
  max: number | null;
  step?: number;
}

export interface Template {
  id: string;
  name: string;
  description: string;
  category: string;
  difficulty: 'beginner' | 'intermediate' | 'advanced';
  params: TemplateParam[];
  code: string;
}

export type ParamValues = Record<string, number | string | boolean>;

export interface StrategySummary {
  id: string;
  name: string;
  instrument: string;
  timeframe: string;
  createdAt: string;
  updatedAt: string;
}

export interface StrategyDetail extends StrategySummary {
  code: string;
  params: ParamValues;
}

export type RunStatus = 'running' | 'completed' | 'failed' | 'stopped' | 'timeout';

/** A run of a saved strategy (spec: Run). */
export interface Run {
  id: string;
  strategyId: string | null;
  instrument: string;
  timeframe: string;
  startDate: string;
  endDate: string;
  status: RunStatus;
  totalPnl: number | null;
  totalTrades: number | null;
  winRate: number | null;
  params: ParamValues;
  startedAt: string;
  completedAt: string | null;
}

export type RunResults = WireRunStats;

export interface Trade {
  side: 'long' | 'short';
  size: number;
  entryTime: string;
  entryPrice: number;
  exitTime: string;
  exitPrice: number;
  pnl: number;
  fees: number;
}

/** A progress event: the execution without results, trades, curve or logs. */
export interface ExecutionProgress extends Run {
  templateId: string | null;
  contextTimeframes: string[];
  error: string | null;
  speed: number | null;
  progress: { barsDone: number; barsTotal: number };
  balance: number;
  equity: number;
}

export interface Execution extends ExecutionProgress {
  results: RunResults;
  trades: Trade[];
  tradesTotal: number;
  equityCurve: { time: string; equity: number }[];
  logs: string[];
  /** The open time of the bar the strategy was on when it printed each line of `logs` (null before the first bar). */
  logTimes: (string | null)[];
}

export const INSTRUMENTS = ['NQ', 'ES', 'MNQ', 'MES', 'GC', 'EURUSD', 'LIGHTCMDUSD'] as const;
export const TIMEFRAMES = ['1s', '5s', '15s', '30s', '1m', '5m', '15m', '30m', '1h', '4h', '1d'] as const;

export function isDone(status: RunStatus): boolean {
  return status !== 'running';
}
