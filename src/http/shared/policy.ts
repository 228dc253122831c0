// What a family decides where the services leave the choice to it (house rule 4: family differences
// are policy values). Each family declares one in its policy.ts and passes its parts to the services,
// which take them without a default, so no family inherits another's rules by omission.

import type { HistoryPolicy } from '../../service/history.ts';
import type { PlaybackRate, StartPolicy } from '../../service/replay/service.ts';

export interface FamilyPolicy {
  /** Replay/start: how dates become a span, live sessions a user may hold. */
  readonly start: StartPolicy;
  /** Replay/step: most steps one call may ask for. */
  readonly stepsMax: number;
  /** Replay/play: timeframe bars a second at a speed. */
  readonly playbackRate: PlaybackRate;
  /** History/retrieveBars: the family's contract IDs and bars-per-request caps. */
  readonly history: HistoryPolicy;
}
