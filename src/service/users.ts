// User administration (the admin CLI and first-start demo user). API keys are shown once, when
// created or rotated, and stored only as their SHA-256.

import { limits } from '../config.ts';
import type { Clock } from '../lib/clock.ts';
import type { Revocation } from './auth.ts';
import { err, ok, type Result } from '../lib/result.ts';
import { hashPassword, type PasswordCost, randomSecret, sha256Hex } from '../lib/secrets.ts';
import type { IssuedJwtStore } from '../store/issued-jwts.ts';
import type { Plan, UserRow, UserStore } from '../store/users.ts';
import type { ApiProfile } from '../domain/api-profile.ts';

export type { Plan, UserRow };

export type UserAdminError =
  | { kind: 'invalid_email' }
  | { kind: 'email_taken' }
  | { kind: 'user_not_found' }
  | { kind: 'invalid_plan' };

const EMAIL_RE = /^[^\s@]+@[^\s@]+$/;

/** API keys carry a recognisable prefix so that secret scanners and people can spot them. */
export function newApiKey(): string {
  return `rdk_${randomSecret(limits.apiKeyBytes)}`;
}

export class UserService {
  constructor(
    private readonly users: UserStore,
    private readonly tokens: IssuedJwtStore,
    private readonly clock: Clock,
    /** Told when the user's tokens stop working (key rotated, disabled, plan lowered), after it is stored. */
    private readonly onRevoked: (e: Revocation) => void,
    private readonly passwordCost: PasswordCost,
  ) {}

  async create(input: {
    email: string;
    plan?: Plan;
    verified?: boolean;
    disabled?: boolean;
    password?: string;
  }): Promise<Result<{ user: UserRow; apiKey: string }, UserAdminError>> {
    const email = input.email.trim().toLowerCase();
    if (!EMAIL_RE.test(email)) return err({ kind: 'invalid_email' });
    if (input.plan !== undefined && input.plan !== 'pro' && input.plan !== 'free') return err({ kind: 'invalid_plan' });
    if (await this.users.byEmail(email)) return err({ kind: 'email_taken' });
    const apiKey = newApiKey();
    const passwordHash = input.password ? await hashPassword(input.password, this.passwordCost) : null;
    const user = await this.users.insert({
      email,
      plan: input.plan ?? 'pro',
      verified: input.verified ?? true,
      disabled: input.disabled ?? false,
      passwordHash,
      apiKeyHash: sha256Hex(apiKey),
      nowMs: this.clock.nowMs(),
    });
    return ok({ user, apiKey });
  }

  /**
   * Replaces the user's key: the old key no longer matches at once, and every token issued so far is
   * revoked too, since a leaked key usually means leaked tokens (docs/decisions.md). The new key keeps
   * the old one's profile unless `profile` is given (null: the server's default).
   */
  async rotateKey(email: string, profile?: ApiProfile | null): Promise<Result<{ apiKey: string }, UserAdminError>> {
    const user = await this.users.byEmail(email.trim().toLowerCase());
    if (!user) return err({ kind: 'user_not_found' });
    const apiKey = newApiKey();
    const nowMs = this.clock.nowMs();
    await this.users.setApiKeyHash(user.id, sha256Hex(apiKey), nowMs);
    if (profile !== undefined) await this.users.setApiKeyProfile(user.id, profile);
    await this.tokens.revokeAllForUser(user.id, nowMs);
    this.onRevoked({ userId: user.id, jtiHash: null, reason: 'API key rotated' });
    return ok({ apiKey });
  }

  /**
   * Sets the profile of the user's current API key (null: follow the server's API_PROFILE). Every
   * token the key issued, earlier ones included, is answered under it from the next request on.
   */
  async setKeyProfile(email: string, profile: ApiProfile | null): Promise<Result<UserRow, UserAdminError>> {
    const user = await this.users.byEmail(email.trim().toLowerCase());
    if (!user) return err({ kind: 'user_not_found' });
    await this.users.setApiKeyProfile(user.id, profile);
    return ok(await this.users.byId(user.id) as UserRow);
  }

  async set(email: string, patch: { plan?: Plan; disabled?: boolean; verified?: boolean }): Promise<Result<UserRow, UserAdminError>> {
    const user = await this.users.byEmail(email.trim().toLowerCase());
    if (!user) return err({ kind: 'user_not_found' });
    if (patch.plan !== undefined && patch.plan !== 'pro' && patch.plan !== 'free') return err({ kind: 'invalid_plan' });
    await this.users.update(user.id, patch);
    if (patch.disabled === true) this.onRevoked({ userId: user.id, jtiHash: null, reason: 'account disabled' });
    else if (patch.plan === 'free') this.onRevoked({ userId: user.id, jtiHash: null, reason: 'the Simulator API needs the Pro plan' });
    return ok(await this.users.byId(user.id) as UserRow);
  }

  async list(): Promise<UserRow[]> {
    return await this.users.list();
  }
}
