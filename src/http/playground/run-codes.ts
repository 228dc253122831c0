// Playground family, run endpoints: (errorCode, errorMessage) per endpoint for every domain error
// kind (the spec leaves the Playground's codes to us, Errors 6; docs/decisions.md lists them).

import type { CodeTable } from '../shared/code-table.ts';
import type { ExecutionNotFound, RunError, SpeedError, StopError, TradesPageError } from '../../service/playground/runs.ts';

/** No strategy runner is free (HTTP 503 with Retry-After). */
const RUNNERS_BUSY = { status: 503, message: 'All strategy runners are busy; retry shortly' } as const;

/** A page's offset and limit, numbered from `first`: the paged reads of this family share them. */
export function pageRows(first: number): CodeTable<{ kind: 'invalid_offset' } | { kind: 'invalid_limit'; max: number }> {
  return {
    invalid_offset: [first, 'offset must be a whole number of at least 0'],
    invalid_limit: [first + 1, (e) => `limit must be a whole number from 1 to ${e.max}`, 'limit must be a whole number from 1 to {max}'],
  };
}

export const run: CodeTable<RunError> = {
  source_required: [1, 'Provide either templateId or code'],
  template_not_found: [2, 'Template not found'],
  script_too_large: [3, 'Script exceeds 200 KB'],
  strategy_not_found: [4, 'Strategy not found'],
  instrument_not_found: [5, 'Instrument not found'],
  invalid_instruments: [5, (e) => e.message, 'instrumentSymbols must be a list of 1 to 4 symbols | Instrument not found: {symbol} | instrumentSymbols names {symbol} twice | instrumentSymbols must start with instrument ({instrument})'],
  start_date_required: [6, 'startDate required'],
  date_invalid: [6, (e) => `${e.field} must be a date in YYYY-MM-DD format`, '{startDate|endDate} must be a date in YYYY-MM-DD format'],
  end_before_start: [6, 'endDate must not be before startDate'],
  span_too_long: [6, 'endDate must be at most 2 years after startDate'],
  timeframe_required: [7, 'timeframe required'],
  custom_disabled: [7, 'Custom timeframes are currently disabled'],
  invalid_timeframe: [
    7,
    (e) => e.field === 'timeframe'
      ? `Invalid timeframe ${e.text}: use a width that divides a day, such as 1s, 1m, 5m, 15m, 1h, 4h or 1d`
      : `Invalid contextTimeframes ${e.text}: at most 3 distinct widths that divide a day, each a multiple of the timeframe and larger`,
    'Invalid timeframe {timeframe}: use a width that divides a day, … | Invalid contextTimeframes {contextTimeframes}: at most 3 distinct widths …',
  ],
  invalid_params: [8, (e) => e.message, 'The params check\'s message, e.g. Param fast must be between 2 and 200, Unknown param foo'],
  invalid_speed: [9, 'speed must be a number from 1 to 50'],
  no_data: [10, (e) => `No data available for ${e.symbol} from ${e.fromDate} to ${e.toDate}`, 'No data available for {instrument} from {startDate} to {endDate}'],
  already_running: [11, 'An execution is already running; stop it first'],
  capacity: RUNNERS_BUSY,
};

export const stop: CodeTable<StopError> = {
  not_running: [1, 'No execution is running'],
};

export const speed: CodeTable<SpeedError> = {
  invalid_speed: [1, 'speed must be a number from 1 to 50, or "max" for full speed'],
  not_running: [2, 'No execution is running'],
  // Back to full speed needs a full-speed runner; the run keeps its pace meanwhile.
  capacity: RUNNERS_BUSY,
};

export const execution: CodeTable<ExecutionNotFound> = { execution_not_found: [1, 'Execution not found'] };

export const executionTrades: CodeTable<TradesPageError> = { ...execution, ...pageRows(2) };
