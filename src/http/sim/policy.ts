// The current family's policy values: a span of UTC days (endDate after startDate, omitted = to the
// end of the data), ten live sessions per account, 1 to 100 steps a call, two bars a second per unit
// of speed whatever the timeframe, and one bars-per-request cap for every instrument (all spec).

import { limits } from '../../config.ts';
import { instrumentForContractId } from '../../domain/contract-id.ts';
import type { HistoryPolicy } from '../../service/history.ts';
import type { FamilyPolicy } from '../shared/policy.ts';

export const SIM_POLICY: FamilyPolicy = Object.freeze<FamilyPolicy>({
  start: {
    span: { unit: 'utc_days', defaultEnd: 'data_end', endMayEqualStart: false },
    liveSessionsMax: limits.replaySessionsPerAccountMax,
  },
  stepsMax: limits.replayStepsMax,
  playbackRate: (speed) => 2 * speed,
  history: {
    instrumentFor: instrumentForContractId,
    barsPerRequestMax: () => limits.historyBarsPerRequestMax,
  },
});

/**
 * History under the live profile (docs/gateway-profile.md): the live profile's instruments (the whole
 * catalogue, src/domain/instruments.json), the spec's contract IDs and cap, plus the
 * live gateway's week and month units and its request rate (50 per 30 s, not 20 per 60 s).
 */
export const SIM_LIVE_HISTORY_POLICY: HistoryPolicy = Object.freeze<HistoryPolicy>({
  ...SIM_POLICY.history,
  instrumentFor: (contractId) => instrumentForContractId(contractId, 'live'),
  calendarUnits: true,
  rate: 'gateway',
});
