// Saved strategies (Pro, session cookie): list, save (create or update), read, delete, and a
// strategy's runs. Endpoints declared in schemas.ts.

import type { Elysia } from 'elysia';
import type { Services } from '../../service/services.ts';
import { mapError } from '../shared/code-table.ts';
import { route } from '../shared/endpoint.ts';
import * as codes from './codes.ts';
import { kept } from './kept.ts';
import { presentRun, presentStrategy, presentStrategySummary } from './present.ts';
import * as ep from './schemas.ts';

export function registerStrategies<P extends string>(app: Elysia<P>, s: Services): void {
  route(app, s, ep.strategyList, async ({ user }) => ep.strategyList.ok({ strategies: (await s.strategies.list(user.id)).map(presentStrategySummary) }));

  route(app, s, ep.strategySave, async ({ body, user }) => {
    const r = await s.strategies.save(user.id, kept(body));
    return r.ok ? ep.strategySave.ok({ id: r.value.id }) : mapError(codes.saveStrategy, r.error);
  });

  route(app, s, ep.strategyGet, async ({ params, user }) => {
    const r = await s.strategies.get(user.id, params.id);
    return r.ok ? ep.strategyGet.ok({ strategy: presentStrategy(r.value) }) : mapError(codes.getStrategy, r.error);
  });

  route(app, s, ep.strategyDelete, async ({ params, user }) => {
    const r = await s.strategies.delete(user.id, params.id);
    return r.ok ? ep.strategyDelete.ok({}) : mapError(codes.deleteStrategy, r.error);
  });

  route(app, s, ep.strategyRuns, async ({ params, user }) => {
    const r = await s.strategies.runs(user.id, params.id);
    return r.ok ? ep.strategyRuns.ok({ runs: r.value.map(presentRun) }) : mapError(codes.strategyRuns, r.error);
  });
}
