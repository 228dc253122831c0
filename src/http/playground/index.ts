// The Playground family (`/api/playground/`): strategy templates (public) and, behind the web
// login's session cookie and the Pro plan, saved strategies and backtest runs. Every endpoint is
// declared in schemas.ts and served through `route` (src/http/shared/endpoint.ts): CSRF 403, 401,
// Pro 403, lenient JSON, compiled request checks.

import type { Services } from '../../service/services.ts';
import { familyApp } from '../shared/family.ts';
import { registerOptimize } from './optimize.ts';
import { registerRuns, registerRunTrades } from './runs.ts';
import { registerStrategies } from './strategies.ts';
import { registerTemplates } from './templates.ts';

export function playgroundFamily(s: Services) {
  return familyApp('/api/playground', s, [registerTemplates, registerStrategies, registerRuns, registerRunTrades, registerOptimize]);
}
