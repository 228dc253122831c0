// The web application's login: email and password (argon2id) give a session cookie holding the
// instance's web JWT (src/lib/jwt.ts: @elysiajs/jwt, the bearer tokens' signing setup and secret).
// Only the SHA-256 of the JWT's `jti` is stored (table `web_sessions`), so logout and disabling a
// user take effect at once and a database leak yields no usable cookie.
//
// A cookie JWT and a bearer token cannot stand in for each other: the cookie JWT has its own header
// type (`rd-web+jwt`, which the bearer verifier refuses) and audience (which bearer tokens lack),
// and each kind is looked up in its own table.
//
// Login does the same work whatever the outcome (one lookup, one argon2id verify against the stored
// hash or a dummy one), so unknown emails cannot be told from wrong passwords. Only failed logins
// count against the login throttle (its own, apart from API-key logins').

import { limits } from '../config.ts';
import type { Clock } from '../lib/clock.ts';
import { jwtKinds, type JwtKind } from '../lib/jwt.ts';
import type { Invalid } from '../lib/invalid.ts';
import { err, ok, type Result } from '../lib/result.ts';
import { hashPassword, type PasswordCost, randomSecret, sha256Hex } from '../lib/secrets.ts';
import type { UserRow, UserStore } from '../store/users.ts';
import type { IssuedJwtStore } from '../store/issued-jwts.ts';
import { LoginThrottle } from './login-throttle.ts';
import type { RateLimits } from './rate-limit.ts';

export type WebLoginError =
  | { kind: 'missing_credentials' }
  | { kind: 'invalid_credentials' }
  | { kind: 'user_unverified' }
  | { kind: 'user_disabled' }
  | { kind: 'rate_limited'; retryAfterS: number };

export type SetPasswordError = { kind: 'user_not_found' } | { kind: 'invalid_password' };

/** A password change from a signed-in session: the current password is wrong, or the new one is out of bounds. */
export type ChangePasswordError =
  | { kind: 'wrong_password' }
  | { kind: 'invalid_new_password' }
  | { kind: 'rate_limited'; retryAfterS: number };

export interface WebPrincipal {
  user: UserRow;
  jtiHash: string;
}


export class WebAuthService {
  private readonly throttle: LoginThrottle;
  private readonly jwt: JwtKind;
  // An argon2id hash (at the same cost as real ones) no password is compared against successfully in
  // practice, verified when the email is unknown or has no password, to keep the timing equal. Made on the first login.
  private dummyHash: Promise<string> | null = null;

  private dummyPasswordHash(): Promise<string> {
    this.dummyHash ??= hashPassword(randomSecret(32), this.passwordCost);
    return this.dummyHash;
  }

  constructor(
    private readonly users: UserStore,
    private readonly sessions: IssuedJwtStore,
    jwtSecret: Uint8Array,
    private readonly clock: Clock,
    rateLimits: RateLimits,
    private readonly passwordCost: PasswordCost,
  ) {
    this.jwt = jwtKinds(jwtSecret).web;
    this.throttle = new LoginThrottle(rateLimits, 'web_login');
  }

  /** Checks email and password; on success a new session and its cookie value (a JWT). */
  async login(
    email: string | Invalid,
    password: string | Invalid,
    clientAddress: string,
  ): Promise<Result<{ cookieValue: string; maxAgeS: number; user: UserRow }, WebLoginError>> {
    const nowMs = this.clock.nowMs();
    const addressGate = await this.throttle.admitAddress(clientAddress, nowMs);
    if (!addressGate.allowed) return err({ kind: 'rate_limited', retryAfterS: addressGate.retryAfterS });
    if (typeof email !== 'string' || typeof password !== 'string' || email.trim() === '' || password === '') {
      return err({ kind: 'missing_credentials' });
    }
    // Refused before the name keys a limiter and before a long input reaches the hash.
    if (email.length > limits.emailLengthMax || password.length > limits.passwordLengthMax) return err({ kind: 'invalid_credentials' });
    const normalized = email.trim().toLowerCase();
    const attempt = { address: clientAddress, email: normalized, startedMs: nowMs };
    const emailGate = await this.throttle.admitEmail(attempt);
    if (!emailGate.allowed) return err({ kind: 'rate_limited', retryAfterS: emailGate.retryAfterS });

    const found = await this.users.passwordHashOf(normalized);
    const hash = found?.passwordHash ?? (await this.dummyPasswordHash());
    const matches = await Bun.password.verify(password, hash).catch(() => false);
    if (!found || found.passwordHash === null || !matches) return err({ kind: 'invalid_credentials' });
    // The password matched: whatever the account's state, this was no failed guess.
    const userGate = await this.throttle.succeeded(attempt, found.user.id, this.clock.nowMs());
    if (!userGate.allowed) return err({ kind: 'rate_limited', retryAfterS: userGate.retryAfterS });
    if (found.user.disabled) return err({ kind: 'user_disabled' });
    if (!found.user.verified) return err({ kind: 'user_unverified' });
    return ok({ cookieValue: await this.issue(found.user.id, this.clock.nowMs()), maxAgeS: limits.tokenTtlS, user: found.user });
  }

  /** Resolves a cookie value to its user; null for a missing, bad, expired or revoked one. */
  async authenticate(cookieValue: string | null): Promise<WebPrincipal | null> {
    if (cookieValue === null) return null;
    const nowMs = this.clock.nowMs();
    const claims = await this.jwt.verify(cookieValue, nowMs);
    if (!claims) return null;
    const jtiHash = sha256Hex(claims.jti);
    const row = await this.sessions.get(jtiHash);
    if (!row || row.revoked || row.expiresMs <= nowMs || String(row.userId) !== claims.sub) return null;
    const user = await this.users.byId(row.userId);
    // A user disabled after login loses access at once.
    if (!user || user.disabled) return null;
    return { user, jtiHash };
  }

  async logout(principal: WebPrincipal): Promise<void> {
    await this.sessions.revoke(principal.jtiHash, this.clock.nowMs());
  }

  /** Sets (or replaces) a user's password; every live cookie session of the user is revoked. */
  async setPassword(email: string, password: string): Promise<Result<{ email: string }, SetPasswordError>> {
    if (password === '' || password.length > limits.passwordLengthMax) return err({ kind: 'invalid_password' });
    const user = await this.users.byEmail(email.trim().toLowerCase());
    if (!user) return err({ kind: 'user_not_found' });
    await this.users.setPasswordHash(user.id, await hashPassword(password, this.passwordCost));
    await this.sessions.revokeAllForUser(user.id, this.clock.nowMs());
    return ok({ email: user.email });
  }

  /**
   * Changes the signed-in user's password: the current one is required (a cookie left open on a
   * shared machine must not be enough to take the account), and a wrong one counts as a failed web
   * login against the same throttle. Every other web session of the user is revoked; this one stays
   * signed in. API keys and their tokens are the bots' and are not touched (rotate the key for that).
   */
  async changePassword(principal: WebPrincipal, current: string, next: string, clientAddress: string): Promise<Result<void, ChangePasswordError>> {
    if (next.length < limits.passwordLengthMin || next.length > limits.passwordLengthMax) return err({ kind: 'invalid_new_password' });
    const nowMs = this.clock.nowMs();
    const addressGate = await this.throttle.admitAddress(clientAddress, nowMs);
    if (!addressGate.allowed) return err({ kind: 'rate_limited', retryAfterS: addressGate.retryAfterS });
    const attempt = { address: clientAddress, email: principal.user.email, startedMs: nowMs };
    const emailGate = await this.throttle.admitEmail(attempt);
    if (!emailGate.allowed) return err({ kind: 'rate_limited', retryAfterS: emailGate.retryAfterS });
    const found = await this.users.passwordHashOf(principal.user.email);
    const hash = found?.passwordHash ?? (await this.dummyPasswordHash());
    const matches = current.length <= limits.passwordLengthMax && (await Bun.password.verify(current, hash).catch(() => false));
    if (!found || found.passwordHash === null || !matches) return err({ kind: 'wrong_password' });
    await this.throttle.succeeded(attempt, principal.user.id, this.clock.nowMs());
    await this.users.setPasswordHash(principal.user.id, await hashPassword(next, this.passwordCost));
    await this.sessions.revokeAllForUserExcept(principal.user.id, principal.jtiHash, this.clock.nowMs());
    return ok(undefined);
  }

  /** Drops session rows long expired (a timer calls it), so the table stays bounded. */
  async pruneSessions(): Promise<void> {
    await this.sessions.prune(this.clock.nowMs());
  }

  private async issue(userId: number, nowMs: number): Promise<string> {
    const jti = randomSecret(16);
    const exp = Math.floor(nowMs / 1000) + limits.tokenTtlS;
    await this.sessions.insert(sha256Hex(jti), userId, nowMs, exp * 1000);
    // The plugin stamps `iat` itself (wall clock); `exp` comes from the service clock.
    return this.jwt.sign({ sub: String(userId), jti, exp });
  }
}
