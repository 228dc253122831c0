// The login throttle (one per login kind: API-key logins and web logins count separately).
//
// Only failed attempts count, so a user whose bots restart together, or a host running bots for
// several users, is not locked out by its own successes. An attempt whose secret matched counts
// instead against a generous per-user rate.
//
// Failures are counted three ways, tightest first:
//   - per email from one address (10): the guesser is held, and nobody else is. Behind a proxy
//     without TRUST_PROXY every user shares one address, so a per-address lock at this level would
//     let one mistyped bot, or one attacker, lock out everyone behind it.
//   - per email from anywhere (100): guessing one account's password from many addresses is bounded.
//   - per address (300): a flood of failures across many emails; it bounds the hash work one address
//     can cause, and is far above what the users behind one proxy mistype.
//
// Order of an attempt: the address's failures, then (once the request names one) the email's are
// checked before the secret is, so a locked email or address learns nothing about its guesses. Each
// admitted attempt counts as a failure from the start, withdrawn when its secret matches: a burst of
// parallel guesses (a slow password hash between check and outcome) cannot slip past the limit.
// A matching secret also forgets the email's earlier failures from that address (failures are counted
// while consecutive, as NIST SP 800-63B §5.2.2 words it); failures from other addresses and the
// address's failures stay, so one good login cannot launder a guesser elsewhere or an address that
// sprays others.

import { limits } from '../config.ts';
import { type RateDecision, SlidingWindowLimiter } from './rate-limit.ts';

export interface LoginAttempt {
  address: string;
  email: string;
  startedMs: number;
}

export class LoginThrottle {
  private readonly failuresByAddress = new SlidingWindowLimiter(limits.loginFailuresPerAddressMax, limits.loginWindowMs);
  private readonly failuresByEmailAddress = new SlidingWindowLimiter(limits.loginFailuresPerEmailAddressMax, limits.loginWindowMs);
  private readonly failuresByEmail = new SlidingWindowLimiter(limits.loginFailuresPerEmailMax, limits.loginWindowMs);
  private readonly successesByUser = new SlidingWindowLimiter(limits.loginSuccessesPerUserMax, limits.loginWindowMs);

  /** Refused while the address has too many failures; otherwise the attempt counts as its failure until `succeeded`. */
  admitAddress(address: string, startedMs: number): RateDecision {
    return this.failuresByAddress.take(address, startedMs);
  }

  /**
   * Refused while the email has too many failures from this address, or from anywhere; otherwise the
   * attempt counts as a failure of both until `succeeded`.
   */
  admitEmail(attempt: LoginAttempt): RateDecision {
    const pair = this.failuresByEmailAddress.take(pairKey(attempt), attempt.startedMs);
    if (!pair.allowed) return pair;
    const email = this.failuresByEmail.take(attempt.email, attempt.startedMs);
    if (!email.allowed) this.failuresByEmailAddress.release(pairKey(attempt), attempt.startedMs);
    return email;
  }

  /**
   * The secret matched: the attempt was no failure (its marks, stamped `startedMs`, are withdrawn and
   * the email's earlier failures from this address forgotten), and it counts against the user's
   * success rate instead.
   */
  succeeded(attempt: LoginAttempt, userId: number, nowMs: number): RateDecision {
    this.failuresByAddress.release(attempt.address, attempt.startedMs);
    this.failuresByEmail.release(attempt.email, attempt.startedMs);
    this.failuresByEmailAddress.clear(pairKey(attempt));
    return this.successesByUser.take(String(userId), nowMs);
  }
}

// An email holds no space (it is trimmed, and no address has one unquoted), so the pair is unambiguous
// enough for a throttle key; the address is the exact string the transport gave.
function pairKey(attempt: LoginAttempt): string {
  return `${attempt.email} ${attempt.address}`;
}
