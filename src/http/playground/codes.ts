// Playground family: (errorCode, errorMessage) per endpoint for every domain error kind. The spec
// leaves the Playground's codes to us (Errors 6); they are recorded in docs/decisions.md.
// Transport answers shared by every cookie endpoint (401, the two 403s, 400) are added by
// defineEndpoint (src/http/shared/endpoint.ts). Endpoints are declared in schemas.ts.

import type { CodeTable } from '../shared/code-table.ts';
import type { InvalidParamsReason, SaveStrategyError, StrategyNotFound } from '../../service/playground/strategies.ts';

function paramsMessage(e: InvalidParamsReason): string {
  switch (e.reason) {
    case 'too_many_keys':
      return `Invalid params: too many keys (at most ${e.max})`;
    case 'bad_key':
      return `Invalid params: keys must be 1 to ${e.max} characters`;
    case 'bad_value':
      return `Invalid params: ${e.key} must be a number, a string or a boolean`;
    case 'string_too_long':
      return `Invalid params: ${e.key} must be at most ${e.max} characters`;
  }
}

export const saveStrategy: CodeTable<SaveStrategyError> = {
  field_required: [1, (e) => `${e.field} is required`, '{name|code|instrument|timeframe|params} is required'],
  name_too_long: [1, (e) => `name must be at most ${e.max} characters`, 'name must be at most {max} characters'],
  script_too_large: [2, 'Script exceeds 200 KB'],
  instrument_not_found: [3, 'Instrument not found'],
  invalid_timeframe: [4, 'Invalid timeframe'],
  strategy_not_found: [5, 'Strategy not found'],
  invalid_params: [6, paramsMessage, 'Invalid params: {reason}'],
  too_many_strategies: [7, (e) => `At most ${e.max} strategies per user; delete one first`, 'At most {max} strategies per user; delete one first'],
  storage_full: [
    8,
    (e) => `Your strategies would exceed ${e.maxBytes / (1024 * 1024)} MB; delete or shorten some first`,
    'Your strategies would exceed {max} MB; delete or shorten some first',
  ],
  rate_limited: { status: 429, message: 'Too many strategy saves; retry shortly' },
};

export const getStrategy: CodeTable<StrategyNotFound> = {
  strategy_not_found: [1, 'Strategy not found'],
};

export const deleteStrategy = getStrategy;

export const strategyRuns = getStrategy;

/** Endpoints that answer no error row of their own. */
export const none: CodeTable<never> = {};
