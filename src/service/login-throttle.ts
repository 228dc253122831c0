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
// checked before the secret is, so a locked email or address learns nothing about its guesses. An
// API key is the exception (auth.ts): it cannot be guessed, so under an email's lock it is still
// checked, and the right one logs in (a wrong one is refused as locked); a password is not. Each
// admitted attempt counts as a failure from the start, withdrawn when its secret matches: a burst of
// parallel guesses (a slow password hash between check and outcome) cannot slip past the limit.
// A matching secret also forgets the email's earlier failures from that address (failures are counted
// while consecutive, as NIST SP 800-63B §5.2.2 words it); failures from other addresses and the
// address's failures stay, so one good login cannot launder a guesser elsewhere or an address that
// sprays others.

import { limits } from '../config.ts';
import type { RateDecision, RateLimiter, RateLimits } from './rate-limit.ts';

export interface LoginAttempt {
  address: string;
  email: string;
  startedMs: number;
}

export class LoginThrottle {
  private readonly failuresByAddress: RateLimiter;
  private readonly failuresByEmailAddress: RateLimiter;
  private readonly failuresByEmail: RateLimiter;
  private readonly successesByUser: RateLimiter;

  /** `kind` names this login's limits (`api_login`, `web_login`): each kind counts apart. */
  constructor(rateLimits: RateLimits, kind: string) {
    const w = limits.loginWindowMs;
    this.failuresByAddress = rateLimits.limiter(`${kind}:failures_by_address`, limits.loginFailuresPerAddressMax, w);
    this.failuresByEmailAddress = rateLimits.limiter(`${kind}:failures_by_email_address`, limits.loginFailuresPerEmailAddressMax, w);
    this.failuresByEmail = rateLimits.limiter(`${kind}:failures_by_email`, limits.loginFailuresPerEmailMax, w);
    this.successesByUser = rateLimits.limiter(`${kind}:successes_by_user`, limits.loginSuccessesPerUserMax, w);
  }

  /** Refused while the address has too many failures; otherwise the attempt counts as its failure until `succeeded`. */
  admitAddress(address: string, startedMs: number): Promise<RateDecision> {
    return this.failuresByAddress.take(address, startedMs);
  }

  /**
   * Refused while the email has too many failures from this address, or from anywhere; otherwise the
   * attempt counts as a failure of both until `succeeded`.
   */
  async admitEmail(attempt: LoginAttempt): Promise<RateDecision> {
    const pair = await this.failuresByEmailAddress.take(pairKey(attempt), attempt.startedMs);
    if (!pair.allowed) return pair;
    const email = await this.failuresByEmail.take(attempt.email, attempt.startedMs);
    if (!email.allowed) await this.failuresByEmailAddress.release(pairKey(attempt), attempt.startedMs);
    return email;
  }

  /**
   * The secret matched: the attempt was no failure (its marks, stamped `startedMs`, are withdrawn and
   * the email's earlier failures from this address forgotten), and it counts against the user's
   * success rate instead. `emailAdmitted` false: the email was locked and took no mark (an API key
   * is checked under the lock, since it cannot be guessed), so only the address's is withdrawn.
   */
  async succeeded(attempt: LoginAttempt, userId: number, nowMs: number, emailAdmitted = true): Promise<RateDecision> {
    await this.failuresByAddress.release(attempt.address, attempt.startedMs);
    if (emailAdmitted) await this.failuresByEmail.release(attempt.email, attempt.startedMs);
    await this.failuresByEmailAddress.clear(pairKey(attempt));
    return this.successesByUser.take(String(userId), nowMs);
  }
}

// An email holds no space (it is trimmed, and no address has one unquoted), so the pair is unambiguous
// enough for a throttle key; the address is the exact string the transport gave.
function pairKey(attempt: LoginAttempt): string {
  return `${attempt.email} ${attempt.address}`;
}
