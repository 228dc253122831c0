// Saved strategies (Pro, session cookie): list, save (create or update), read, delete, and a
// strategy's runs.

import type { Services } from '../../service/services.ts';
import { mapError } from '../shared/code-table.ts';
import { cookieRoute } from '../shared/cookie.ts';
import { success } from '../shared/envelope.ts';
import type { App } from '../shared/route.ts';
import * as codes from './codes.ts';
import { presentRun, presentStrategy, presentStrategySummary } from './present.ts';

const PRO = { pro: true };

export function registerStrategies(app: App, s: Services): void {
  cookieRoute(app, s, 'GET', '/strategies', ({ user }) => success({ strategies: s.strategies.list(user.id).map(presentStrategySummary) }), PRO);

  cookieRoute(
    app,
    s,
    'POST',
    '/strategies/save',
    ({ body, user }) => {
      const r = s.strategies.save(user.id, body);
      return r.ok ? success({ id: r.value.id }) : mapError(codes.saveStrategy, r.error);
    },
    PRO,
  );

  cookieRoute(
    app,
    s,
    'GET',
    '/strategies/:id',
    ({ params, user }) => {
      const r = s.strategies.get(user.id, params.id);
      return r.ok ? success({ strategy: presentStrategy(r.value) }) : mapError(codes.getStrategy, r.error);
    },
    PRO,
  );

  cookieRoute(
    app,
    s,
    'DELETE',
    '/strategies/:id',
    ({ params, user }) => {
      const r = s.strategies.delete(user.id, params.id);
      return r.ok ? success() : mapError(codes.deleteStrategy, r.error);
    },
    PRO,
  );

  cookieRoute(
    app,
    s,
    'GET',
    '/strategies/:id/runs',
    ({ params, user }) => {
      const r = s.strategies.runs(user.id, params.id);
      return r.ok ? success({ runs: r.value.map(presentRun) }) : mapError(codes.strategyRuns, r.error);
    },
    PRO,
  );
}
