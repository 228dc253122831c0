// Login with an API key, token rotation and logout. Tokens are the instance's bearer JWTs
// (src/lib/jwt.ts); only the SHA-256 of their `jti` is stored, so a database leak yields no usable
// token, and revocation is a row update.
//
// Login does the same work whatever the outcome (one lookup, one hash, one constant-time compare
// against the stored hash or a dummy one), so unknown emails cannot be told from wrong keys. Only
// failed logins count against the login throttle (src/service/login-throttle.ts); an email locked by
// failures still lets its right key in (keys cannot be guessed), so strangers cannot lock bots out.

import { limits } from '../config.ts';
import type { Clock } from '../lib/clock.ts';
import { type JwtClaims, jwtKinds, type JwtKind } from '../lib/jwt.ts';
import type { Invalid } from '../lib/invalid.ts';
import { err, ok, type Result } from '../lib/result.ts';
import { digestsEqual, randomSecret, sha256Hex } from '../lib/secrets.ts';
import type { IssuedJwtStore } from '../store/issued-jwts.ts';
import type { ApiProfile } from '../domain/api-profile.ts';
import type { UserRow, UserStore } from '../store/users.ts';
import { LoginThrottle } from './login-throttle.ts';
import { PrincipalCache } from './auth-principals.ts';
import type { RateLimiter, RateLimits } from './rate-limit.ts';

export type LoginError =
  | { kind: 'missing_credentials' }
  | { kind: 'invalid_credentials' }
  | { kind: 'user_unverified' }
  | { kind: 'user_disabled' }
  | { kind: 'pro_required' }
  | { kind: 'rate_limited'; retryAfterS: number };

/** Credentials revoked before their expiry: one token (jtiHash) or every token of the user (null). */
export interface Revocation {
  userId: number;
  jtiHash: string | null;
  reason: string;
}

/** Why a bearer token does not open the Simulator API. */
export type TokenError = { kind: 'invalid_session' } | { kind: 'pro_required' };

export type ValidateError = TokenError | { kind: 'rate_limited'; retryAfterS: number };

export interface Principal {
  /** The user as last read: per request for REST, refreshed at each revalidation for a hub connection. */
  user: UserRow;
  jtiHash: string;
  /** When the token stops working (its stored expiry). */
  expiresMs: number;
  /**
   * The web console's session cookie, not a bot's token: the console is our own client, answered in
   * the spec's shapes whatever the key's profile, with the whole order model (docs/gateway-profile.md).
   */
  console?: boolean;
  /** The profile a hub connection's URL named (`/live/hubs/user`); REST reads it from each request's path. */
  profile?: ApiProfile;
}

// A hash no key can produce, compared against when the email is unknown, to keep timing equal.
const DUMMY_HASH = sha256Hex('replaydesk-dummy-api-key-hash');

export class AuthService {
  private readonly throttle: LoginThrottle;
  private readonly validateByUser: RateLimiter;
  private readonly jwt: JwtKind;
  private readonly principals: PrincipalCache<UserRow>;

  constructor(
    private readonly users: UserStore,
    private readonly tokens: IssuedJwtStore,
    jwtSecret: Uint8Array,
    private readonly clock: Clock,
    rateLimits: RateLimits,
    /** Told when a token stops working before its expiry (logout), after the revocation is stored. */
    private readonly onRevoked: (e: Revocation) => void = () => {},
    /**
     * Moves with every write to a user or token row (store/auth-writes.ts); null where other nodes
     * write them (PostgreSQL): no principal is kept between calls.
     */
    rowsVersion: (() => number) | null = null,
  ) {
    this.jwt = jwtKinds(jwtSecret).bearer;
    this.principals = new PrincipalCache(rowsVersion, limits.authPrincipalsKeptMax);
    this.throttle = new LoginThrottle(rateLimits, 'api_login');
    this.validateByUser = rateLimits.limiter('validate', limits.validatePerAccountMax, limits.validateWindowMs);
  }

  async login(userName: string | Invalid, apiKey: string | Invalid, clientAddress: string): Promise<Result<{ token: string; user: UserRow }, LoginError>> {
    const nowMs = this.clock.nowMs();
    const addressGate = await this.throttle.admitAddress(clientAddress, nowMs);
    if (!addressGate.allowed) return err({ kind: 'rate_limited', retryAfterS: addressGate.retryAfterS });
    if (typeof userName !== 'string' || typeof apiKey !== 'string' || userName === '' || apiKey === '') {
      return err({ kind: 'missing_credentials' });
    }
    // No address is longer (RFC 5321), no key of ours either: refuse before the name keys a limiter.
    if (userName.length > limits.emailLengthMax || apiKey.length > limits.apiKeyLengthMax) return err({ kind: 'invalid_credentials' });
    const email = userName.trim().toLowerCase();
    const attempt = { address: clientAddress, email, startedMs: nowMs };
    // A locked email is still checked against the key (the same lookup and compare, locked or not,
    // known email or not): a key is 256 random bits, so its check tells a guesser nothing, and the
    // right key logs in whoever else failed on the email. Strangers who know a user's email could
    // otherwise lock that user's bots out, renewably. A wrong key under the lock is refused with 429.
    const emailGate = await this.throttle.admitEmail(attempt);
    const found = await this.users.apiKeyHashOf(email);
    const matches = digestsEqual(sha256Hex(apiKey), found?.apiKeyHash ?? DUMMY_HASH);
    if (!found || !matches) return err(emailGate.allowed ? { kind: 'invalid_credentials' } : { kind: 'rate_limited', retryAfterS: emailGate.retryAfterS });
    // The key matched: whatever the account's state, this was no failed guess.
    const userGate = await this.throttle.succeeded(attempt, found.user.id, nowMs, emailGate.allowed);
    if (!userGate.allowed) return err({ kind: 'rate_limited', retryAfterS: userGate.retryAfterS });
    if (found.user.disabled) return err({ kind: 'user_disabled' });
    if (!found.user.verified) return err({ kind: 'user_unverified' });
    if (found.user.plan !== 'pro') return err({ kind: 'pro_required' });
    return ok({ token: await this.issue(found.user.id, nowMs), user: found.user });
  }

  /**
   * Resolves a bearer token to its user; null for a missing, bad, expired or revoked token. Says
   * nothing of the plan: `authorize` does (Auth/logout takes any valid token, to revoke it).
   */
  async authenticate(token: string | null): Promise<Principal | null> {
    if (!token) return null;
    const nowMs = this.clock.nowMs();
    const claims = await this.jwt.verify(token, nowMs);
    return claims ? this.principalOf(claims, nowMs) : null;
  }

  /**
   * A bearer token that opens the Simulator API: valid (as `authenticate`) and its user on the Pro
   * plan now. The plan is read on every call, as the cookie path does, so a user moved off Pro
   * (`admin user set --plan free`) loses the API at once, whatever tokens they hold.
   */
  async authorize(token: string | null): Promise<Result<Principal, TokenError>> {
    const principal = await this.authenticate(token);
    if (!principal) return err({ kind: 'invalid_session' });
    if (principal.user.plan !== 'pro') return err({ kind: 'pro_required' });
    return ok(principal);
  }

  /** The live token row of verified claims and its user (kept: auth-principals.ts). */
  private async principalOf(claims: JwtClaims, nowMs: number): Promise<Principal | null> {
    const kept = this.principals.get(claims.jti, nowMs);
    if (kept) return kept;
    const stamp = this.principals.stamp();
    const principal = await this.readPrincipal(claims, nowMs);
    if (principal) this.principals.keep(claims.jti, principal, stamp);
    return principal;
  }

  /** The live token row of verified claims and its user, read in one synchronous step. */
  private async readPrincipal(claims: JwtClaims, nowMs: number): Promise<Principal | null> {
    const jtiHash = sha256Hex(claims.jti);
    const row = await this.tokens.get(jtiHash);
    if (!row || row.revoked || row.expiresMs <= nowMs || String(row.userId) !== claims.sub) return null;
    const user = await this.users.byId(row.userId);
    // A user disabled after login loses access at once.
    if (!user || user.disabled) return null;
    return { user, jtiHash, expiresMs: row.expiresMs };
  }

  /**
   * Whether a principal authenticated earlier still holds: its token neither revoked nor expired, its
   * user neither disabled nor below the Pro plan (long-lived hub connections ask this periodically,
   * catching changes another process made).
   */
  async stillValid(p: Principal): Promise<boolean> {
    const nowMs = this.clock.nowMs();
    const row = await this.tokens.get(p.jtiHash);
    if (!row || row.revoked || row.expiresMs <= nowMs) return false;
    const user = await this.users.byId(row.userId);
    if (user === null || user.disabled || user.plan !== 'pro') return false;
    // The connection answers under the user's settings as they are now (a key's profile, for one).
    p.user = user;
    return true;
  }

  /** Rotates a token: a new one is issued and the sent one revoked. A refused call changes nothing. */
  async validate(token: string | null): Promise<Result<{ newToken: string }, ValidateError>> {
    const gate = await this.validateGate(token);
    if (!gate.ok) return gate;
    const newToken = await this.replace(gate.value.principal, gate.value.nowMs);
    return newToken === null ? err({ kind: 'invalid_session' }) : ok({ newToken });
  }

  /**
   * Keeps a valid token while more than `renewWithinMs` of its life is left; nearer its expiry it is
   * replaced as `validate` does (a new one issued, the sent one revoked). Shares validate's limiter:
   * the limit is per account, whichever family asks. A refused call changes nothing.
   */
  async refresh(token: string | null, renewWithinMs: number): Promise<Result<{ token: string; renewed: boolean }, ValidateError>> {
    const gate = await this.validateGate(token);
    if (!gate.ok) return gate;
    const { principal, nowMs } = gate.value;
    if (principal.expiresMs - nowMs >= renewWithinMs) return ok({ token: token as string, renewed: false });
    const newToken = await this.replace(principal, nowMs);
    return newToken === null ? err({ kind: 'invalid_session' }) : ok({ token: newToken, renewed: true });
  }

  private async validateGate(token: string | null): Promise<Result<{ principal: Principal; nowMs: number }, ValidateError>> {
    const authorized = await this.authorize(token);
    if (!authorized.ok) return authorized;
    const principal = authorized.value;
    const nowMs = this.clock.nowMs();
    const gate = await this.validateByUser.take(String(principal.user.id), nowMs);
    if (!gate.allowed) return err({ kind: 'rate_limited', retryAfterS: gate.retryAfterS });
    return ok({ principal, nowMs });
  }

  /**
   * Revokes the sent token and issues its successor; null when the sent one was revoked meanwhile
   * (two rotations of one token racing: only the first gets a successor).
   */
  private async replace(principal: Principal, nowMs: number): Promise<string | null> {
    if (!await this.tokens.revoke(principal.jtiHash, nowMs)) return null;
    return this.issue(principal.user.id, nowMs);
  }

  /** Drops token rows long expired (a timer calls it), so the table stays bounded. */
  async pruneTokens(): Promise<void> {
    await this.tokens.prune(this.clock.nowMs());
  }

  async logout(principal: Principal): Promise<void> {
    await this.tokens.revoke(principal.jtiHash, this.clock.nowMs());
    this.onRevoked({ userId: principal.user.id, jtiHash: principal.jtiHash, reason: 'logged out' });
  }

  private async issue(userId: number, nowMs: number): Promise<string> {
    const jti = randomSecret(16);
    const exp = Math.floor(nowMs / 1000) + limits.tokenTtlS;
    await this.tokens.insert(sha256Hex(jti), userId, nowMs, exp * 1000);
    return this.jwt.sign({ sub: String(userId), jti, exp });
  }
}
