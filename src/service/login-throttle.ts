// The login throttle (one per login kind: API-key logins and web logins count separately).
//
// Only failed attempts count against the per-email and per-address limits, so a user whose bots
// restart together, or a host running bots for several users, is not locked out by its own
// successes. An attempt whose secret matched counts instead against a generous per-user rate.
//
// Order of an attempt: the address's failures, then (once the request names one) the email's are
// checked before the secret is, so a locked email or address learns nothing about its guesses. Each
// admitted attempt counts as a failure from the start, withdrawn when its secret matches: a burst of
// parallel guesses (a slow password hash between check and outcome) cannot slip past the limit.
// A matching secret also forgets the email's earlier failures (failures are counted while
// consecutive, as NIST SP 800-63B §5.2.2 words it); the address's failures stay, so one good account
// cannot launder an address that sprays others.

import { limits } from '../config.ts';
import { type RateDecision, SlidingWindowLimiter } from './rate-limit.ts';

export class LoginThrottle {
  private readonly failuresByAddress = new SlidingWindowLimiter(limits.loginFailuresPerAddressMax, limits.loginWindowMs);
  private readonly failuresByEmail = new SlidingWindowLimiter(limits.loginFailuresPerEmailMax, limits.loginWindowMs);
  private readonly successesByUser = new SlidingWindowLimiter(limits.loginSuccessesPerUserMax, limits.loginWindowMs);

  /** Refused while the address has too many failures; otherwise the attempt counts as its failure until `succeeded`. */
  admitAddress(address: string, startedMs: number): RateDecision {
    return this.failuresByAddress.take(address, startedMs);
  }

  /** Refused while the email has too many failures; otherwise the attempt counts as its failure until `succeeded`. */
  admitEmail(email: string, startedMs: number): RateDecision {
    return this.failuresByEmail.take(email, startedMs);
  }

  /**
   * The secret matched: the attempt was no failure (its marks, stamped `startedMs`, are withdrawn and
   * the email's earlier failures forgotten), and it counts against the user's success rate instead.
   */
  succeeded(attempt: { address: string; email: string; startedMs: number }, userId: number, nowMs: number): RateDecision {
    this.failuresByAddress.release(attempt.address, attempt.startedMs);
    this.failuresByEmail.clear(attempt.email);
    return this.successesByUser.take(String(userId), nowMs);
  }
}
