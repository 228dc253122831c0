// Playground optimisations (Pro, session cookie; an extension of the family): POST optimize, the
// user's optimisations listed (GET optimizations), one polled (GET optimizations/:id) or streamed
// (…/events), stopped, its combinations sorted and paged, and a heatmap over two params. Endpoints
// declared in optimize-schemas.ts.

import type { Elysia } from 'elysia';
import { limits } from '../../config.ts';
import type { Services } from '../../service/services.ts';
import { mapError } from '../shared/code-table.ts';
import { route } from '../shared/endpoint.ts';
import { pollingEventStream } from '../shared/sse.ts';
import { kept } from './kept.ts';
import * as codes from './optimize-codes.ts';
import * as ep from './optimize-schemas.ts';
import { presentCombination, presentOptimization, presentOptimizationProgress, presentOptimizationSummary } from './present-optimization.ts';

export function registerOptimize<P extends string>(app: Elysia<P>, s: Services): void {
  route(app, s, ep.optimize, async ({ body, user }) => {
    const r = await s.optimizations.start(user.id, kept(body));
    if (r.ok) return ep.optimize.ok({ optimizationId: r.value.optimizationId, status: 'running' });
    return mapError(codes.optimize, r.error, r.error.kind === 'optimization_running' ? { optimizationId: r.error.optimizationId } : {});
  });

  route(app, s, ep.optimizations, async ({ query, user }) => {
    const r = await s.optimizations.list(user.id, { offset: queryNumber(query.offset), limit: queryNumber(query.limit) });
    if (!r.ok) return mapError(codes.optimizations, r.error);
    const v = r.value;
    return ep.optimizations.ok({ optimizations: v.optimizations.map(presentOptimizationSummary), offset: v.offset, limit: v.limit, total: v.total });
  });

  route(app, s, ep.optimization, async ({ params, user }) => {
    const r = await s.optimizations.get(user.id, params.id);
    return r.ok ? ep.optimization.ok({ optimization: presentOptimization(r.value) }) : mapError(codes.optimization, r.error);
  });

  route(app, s, ep.optimizationEvents, async ({ params, user, request }) => {
    const first = await s.optimizations.get(user.id, params.id);
    if (!first.ok) return mapError(codes.optimization, first.error);
    let sent = '';
    return pollingEventStream(request, limits.playgroundOptimizePollMs, s.config.sseKeepAliveMs, async () => {
      const r = await s.optimizations.get(user.id, params.id, false);
      if (!r.ok) return null;
      if (r.value.row.status !== 'running') {
        const whole = await s.optimizations.get(user.id, params.id);
        return whole.ok ? { event: 'done', data: presentOptimization(whole.value), last: true } : null;
      }
      const progress = presentOptimizationProgress(r.value);
      // Only when something moved: done, the best, the status.
      const key = `${progress.progress.done}/${progress.best?.runId}/${progress.best?.objective}`;
      if (key === sent) return null;
      sent = key;
      return { event: 'progress', data: progress, last: false };
    });
  });

  route(app, s, ep.optimizationStop, async ({ params, user }) => {
    const r = await s.optimizations.stop(user.id, params.id);
    return r.ok ? ep.optimizationStop.ok({ optimizationId: r.value.optimizationId }) : mapError(codes.optimizationStop, r.error);
  });

  route(app, s, ep.optimizationCombinations, async ({ params, query, user }) => {
    const r = await s.optimizations.combinations(user.id, params.id, {
      sort: query.sort, order: query.order, offset: queryNumber(query.offset), limit: queryNumber(query.limit),
    });
    if (!r.ok) return mapError(codes.optimizationCombinations, r.error);
    const v = r.value;
    return ep.optimizationCombinations.ok({ objective: v.objective, combinations: v.combinations.map(presentCombination), offset: v.offset, limit: v.limit, total: v.total });
  });

  route(app, s, ep.optimizationHeatmap, async ({ params, query, user }) => {
    const r = await s.optimizations.heatmap(user.id, params.id, { x: query.x, y: query.y });
    if (!r.ok) return mapError(codes.optimizationHeatmap, r.error);
    const v = r.value;
    return ep.optimizationHeatmap.ok({ objective: v.objective, x: v.x, y: v.y, cells: v.cells });
  });
}

/** A query parameter as a number: absent or empty → undefined (the default); digits → their number; anything else → NaN (refused). */
function queryNumber(v: string | undefined): number | undefined {
  if (v === undefined || v === '') return undefined;
  return /^\d{1,15}$/.test(v) ? Number(v) : Number.NaN;
}
