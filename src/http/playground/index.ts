// The Playground family (`/api/playground/`): strategy templates (public) and, behind the web
// login's session cookie and the Pro plan, saved strategies and backtest runs. Every cookie route
// goes through `cookieRoute` (src/http/shared/cookie.ts): 401, Pro 403, CSRF 403, lenient JSON.

import { Elysia } from 'elysia';
import type { Services } from '../../service/services.ts';
import { registerRuns } from './runs.ts';
import { registerStrategies } from './strategies.ts';
import { registerTemplates } from './templates.ts';

export function playgroundFamily(s: Services) {
  const app = new Elysia({ prefix: '/api/playground' });
  registerTemplates(app);
  registerStrategies(app, s);
  registerRuns(app, s);
  return app;
}
