// Users with their API-key and password hashes. Never returns a hash to callers outside the auth services.

import type { Db } from './db.ts';

export type Plan = 'pro' | 'free';

export interface UserRow {
  id: number;
  email: string;
  plan: Plan;
  verified: boolean;
  disabled: boolean;
  createdMs: number;
  hasApiKey: boolean;
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
  constructor(private readonly db: Db) {}

  insert(u: NewUser): UserRow {
    const r = this.db
      .query(
        `INSERT INTO users (email, password_hash, plan, verified, disabled, api_key_hash, api_key_created_ms, created_ms)
         VALUES ($email, $password_hash, $plan, $verified, $disabled, $api_key_hash, $now, $now) RETURNING *`,
      )
      .get({
        email: u.email,
        password_hash: u.passwordHash,
        plan: u.plan,
        verified: u.verified ? 1 : 0,
        disabled: u.disabled ? 1 : 0,
        api_key_hash: u.apiKeyHash,
        now: u.nowMs,
      }) as RawUser;
    return toUser(r);
  }

  byEmail(email: string): UserRow | null {
    const r = this.db.query('SELECT * FROM users WHERE email = $email').get({ email }) as RawUser | null;
    return r ? toUser(r) : null;
  }

  byId(id: number): UserRow | null {
    const r = this.db.query('SELECT * FROM users WHERE id = $id').get({ id }) as RawUser | null;
    return r ? toUser(r) : null;
  }

  /** The stored API-key hash for login; null when the user is unknown or has no key. */
  apiKeyHashOf(email: string): { user: UserRow; apiKeyHash: string | null } | null {
    const r = this.db.query('SELECT * FROM users WHERE email = $email').get({ email }) as RawUser | null;
    return r ? { user: toUser(r), apiKeyHash: r.api_key_hash } : null;
  }

  /** The stored password hash for the web login; null when the user is unknown (hash null: no password). */
  passwordHashOf(email: string): { user: UserRow; passwordHash: string | null } | null {
    const r = this.db.query('SELECT * FROM users WHERE email = $email').get({ email }) as RawUser | null;
    return r ? { user: toUser(r), passwordHash: r.password_hash } : null;
  }

  setPasswordHash(id: number, hash: string): void {
    this.db.query('UPDATE users SET password_hash = $hash WHERE id = $id').run({ id, hash });
  }

  setApiKeyHash(id: number, hash: string, nowMs: number): void {
    this.db
      .query('UPDATE users SET api_key_hash = $hash, api_key_created_ms = $now WHERE id = $id')
      .run({ id, hash, now: nowMs });
  }

  update(id: number, patch: { plan?: Plan; disabled?: boolean; verified?: boolean }): void {
    if (patch.plan !== undefined) this.db.query('UPDATE users SET plan = $v WHERE id = $id').run({ id, v: patch.plan });
    if (patch.disabled !== undefined)
      this.db.query('UPDATE users SET disabled = $v WHERE id = $id').run({ id, v: patch.disabled ? 1 : 0 });
    if (patch.verified !== undefined)
      this.db.query('UPDATE users SET verified = $v WHERE id = $id').run({ id, v: patch.verified ? 1 : 0 });
  }

  list(): UserRow[] {
    return (this.db.query('SELECT * FROM users ORDER BY id').all() as RawUser[]).map(toUser);
  }

  count(): number {
    return (this.db.query('SELECT COUNT(*) AS n FROM users').get() as { n: number }).n;
  }
}
