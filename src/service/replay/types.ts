// The replay service's vocabulary, shared by its parts (registry, reads, commands, advancing,
// lifecycle) and re-exported by service.ts for its callers: the refusals of each operation, what an
// advance reports, and the values a family passes down (its start policy, its playback rate).

import type { ChallengeOutcome } from '../../challenge/state.ts';
import type { Fill } from '../../engine/types.ts';
import type { LegFills } from './persistence.ts';
import type { AdvanceResult, LiveSession } from './session.ts';
import type { SpanPolicy } from './setup.ts';
import type { AllowanceRefusal } from './streaming.ts';

export type SessionError = { kind: 'account_not_found' } | { kind: 'session_ended' };

/** For trading calls: the account's challenge is no longer active (the spec's "Account violation"). */
export type TradeSessionError = SessionError | { kind: 'challenge_inactive' };

export type AdvanceError =
  | SessionError
  | { kind: 'invalid_steps' }
  | { kind: 'invalid_target_time' }
  | { kind: 'busy'; cause: 'in_progress' | 'playing'; retryAfterS: number }
  | AllowanceRefusal;

export type PlayError = SessionError | { kind: 'invalid_speed' };

export interface AdvanceOutcome {
  session: LiveSession;
  advance: AdvanceResult;
  /** The first instrument's fills of this advance. */
  fills: readonly Fill[];
  /** Every instrument's (persistence.ts `fillsSince`). */
  legFills: readonly LegFills[];
  /** The challenge violation or pass that halted this advance, its barIndex on the session's scale. */
  decided: ChallengeOutcome | null;
}

/**
 * What a family decides about Replay/start (docs/architecture.md: family rules are values passed
 * down): how dates become a span, and how many live sessions a user may hold (all families count).
 */
export interface StartPolicy {
  readonly span: SpanPolicy;
  readonly liveSessionsMax: number;
}

/** Playback pace: timeframe bars a second at `speed` (each family's, in its policy.ts). */
export type PlaybackRate = (speed: number, s: LiveSession) => number;

/** Where failures of background work (playback, idle sweep, publishing) are reported. */
export type LogError = (message: string, fields: Record<string, unknown>) => void;
