// Users with their API-key and password hashes. Never returns a hash to callers outside the auth services.

import type { ApiProfile } from '../domain/api-profile.ts';
import { countedAuthWrite } from './auth-writes.ts';
import type { Sql } from './sql.ts';

export type Plan = 'pro' | 'free';

export interface UserRow {
  id: number;
  email: string;
  plan: Plan;
  verified: boolean;
  disabled: boolean;
  createdMs: number;
  hasApiKey: boolean;
  /** The current API key's profile; absent = the server's default (API_PROFILE). */
  apiKeyProfile?: ApiProfile;
}

interface RawUser {
  id: number;
  email: string;
  plan: Plan;
  verified: number;
  disabled: number;
  created_ms: number;
  api_key_hash: string | null;
  password_hash: string | null;
  api_key_profile: ApiProfile | null;
}

function toUser(r: RawUser): UserRow {
  return {
    id: r.id,
    email: r.email,
    plan: r.plan,
    verified: r.verified === 1,
    disabled: r.disabled === 1,
    createdMs: r.created_ms,
    hasApiKey: r.api_key_hash !== null,
    ...(r.api_key_profile ? { apiKeyProfile: r.api_key_profile } : {}),
  };
}

export interface NewUser {
  email: string;
  plan: Plan;
  verified: boolean;
  disabled: boolean;
  passwordHash: string | null;
  apiKeyHash: string;
  nowMs: number;
}

export class UserStore {
  constructor(private readonly db: Sql) {}

  private write<T>(w: Promise<T>): Promise<T> {
    return countedAuthWrite(this.db, w);
  }

  async insert(u: NewUser): Promise<UserRow> {
    const r = (await this.write(this.db.get(`INSERT INTO users (email, password_hash, plan, verified, disabled, api_key_hash, api_key_created_ms, created_ms)
         VALUES ($email, $password_hash, $plan, $verified, $disabled, $api_key_hash, $now, $now) RETURNING *`, {
        email: u.email,
        password_hash: u.passwordHash,
        plan: u.plan,
        verified: u.verified ? 1 : 0,
        disabled: u.disabled ? 1 : 0,
        api_key_hash: u.apiKeyHash,
        now: u.nowMs,
      }))) as RawUser;
    return toUser(r);
  }

  async byEmail(email: string): Promise<UserRow | null> {
    const r = (await this.db.get('SELECT * FROM users WHERE email = $email', { email })) as RawUser | null;
    return r ? toUser(r) : null;
  }

  async byId(id: number): Promise<UserRow | null> {
    const r = (await this.db.get('SELECT * FROM users WHERE id = $id', { id })) as RawUser | null;
    return r ? toUser(r) : null;
  }

  /** The stored API-key hash for login; null when the user is unknown or has no key. */
  async apiKeyHashOf(email: string): Promise<{ user: UserRow; apiKeyHash: string | null } | null> {
    const r = (await this.db.get('SELECT * FROM users WHERE email = $email', { email })) as RawUser | null;
    return r ? { user: toUser(r), apiKeyHash: r.api_key_hash } : null;
  }

  /** The stored password hash for the web login; null when the user is unknown (hash null: no password). */
  async passwordHashOf(email: string): Promise<{ user: UserRow; passwordHash: string | null } | null> {
    const r = (await this.db.get('SELECT * FROM users WHERE email = $email', { email })) as RawUser | null;
    return r ? { user: toUser(r), passwordHash: r.password_hash } : null;
  }

  async setPasswordHash(id: number, hash: string): Promise<void> {
    await this.write(this.db.run('UPDATE users SET password_hash = $hash WHERE id = $id', { id, hash }));
  }

  async setApiKeyHash(id: number, hash: string, nowMs: number): Promise<void> {
    await this.write(this.db.run('UPDATE users SET api_key_hash = $hash, api_key_created_ms = $now WHERE id = $id', { id, hash, now: nowMs }));
  }

  /** Sets the current key's profile (null: follow the server's default). */
  async setApiKeyProfile(id: number, profile: ApiProfile | null): Promise<void> {
    await this.write(this.db.run('UPDATE users SET api_key_profile = $p WHERE id = $id', { id, p: profile }));
  }

  async update(id: number, patch: { plan?: Plan; disabled?: boolean; verified?: boolean }): Promise<void> {
    if (patch.plan !== undefined) await this.write(this.db.run('UPDATE users SET plan = $v WHERE id = $id', { id, v: patch.plan }));
    if (patch.disabled !== undefined)
      await this.write(this.db.run('UPDATE users SET disabled = $v WHERE id = $id', { id, v: patch.disabled ? 1 : 0 }));
    if (patch.verified !== undefined)
      await this.write(this.db.run('UPDATE users SET verified = $v WHERE id = $id', { id, v: patch.verified ? 1 : 0 }));
  }

  async list(): Promise<UserRow[]> {
    return ((await this.db.all('SELECT * FROM users ORDER BY id')) as RawUser[]).map(toUser);
  }

  async count(): Promise<number> {
    return ((await this.db.get('SELECT COUNT(*) AS n FROM users')) as { n: number }).n;
  }
}
