// The playground's optimisation types as the console reads them: the server's wire shapes
// (src/http/playground/optimize-shapes.ts), type-only (docs/playground.md, "Optimisation").

import type { Static } from '@sinclair/typebox';
import type * as wire from '../../../http/playground/optimize-shapes.ts';

export type OptimiseStatus = Optimization['status'];
export type ObjectiveName = Static<typeof wire.ObjectiveName>;

/** The objectives in the form's order, with their labels (a console view of the server's names). */
export const OBJECTIVES: readonly (readonly [ObjectiveName, string])[] = [
  ['net_pnl', 'Net P&L'],
  ['return_over_drawdown', 'Return / max drawdown'],
  ['sharpe', 'Sharpe'],
  ['profit_factor', 'Profit factor'],
  ['win_rate', 'Win rate'],
];

export const objectiveLabel = (o: string) => OBJECTIVES.find(([v]) => v === o)?.[1] ?? o;

export type CombinationStatistics = Static<typeof wire.CombinationStatistics>;
export type Combination = Static<typeof wire.Combination>;
export type SpanDates = Static<typeof wire.SpanDates>;
export type WalkForwardResult = Static<typeof wire.WalkForward>;
export type WalkForwardWindow = WalkForwardResult['windows'][number];
/** A progress event: the optimisation's id, status, progress and best so far. */
export type OptimiseProgress = Static<typeof wire.OptimizationProgress>;
/** GET optimizations/:id and the stream's `done` event. */
export type Optimization = Static<typeof wire.Optimization>;
/** GET optimizations: an optimisation in the user's list. */
export type OptimizationSummary = Static<typeof wire.OptimizationSummary>;

/** GET optimizations/:id/heatmap's body (without the envelope). */
export interface Heatmap {
  objective: ObjectiveName;
  x: Static<typeof wire.HeatmapAxis>;
  y: Static<typeof wire.HeatmapAxis>;
  cells: Static<typeof wire.HeatmapCell>[][];
}
