// Issued JWTs, by the hash of their `jti` (the token itself is never stored), one table per kind:
// bearer `tokens` and the web login's cookie `web_sessions`. The tables stay apart, so neither kind
// of JWT resolves through the other's table; the code over them is this one class.

import { countedAuthWrite } from './auth-writes.ts';
import type { Sql } from './sql.ts';

/** The tables of issued JWTs (migrations.ts creates both with the same columns). */
export type IssuedJwtTable = 'tokens' | 'web_sessions';

export interface IssuedJwtRow {
  userId: number;
  expiresMs: number;
  revoked: boolean;
}

export class IssuedJwtStore {
  constructor(
    private readonly db: Sql,
    readonly table: IssuedJwtTable,
  ) {}

  private write(w: Promise<number>): Promise<number> {
    return countedAuthWrite(this.db, w);
  }

  async insert(jtiHash: string, userId: number, issuedMs: number, expiresMs: number): Promise<void> {
    await this.write(this.db.run(`INSERT INTO ${this.table} (jti_hash, user_id, issued_ms, expires_ms) VALUES ($jti_hash, $user_id, $issued, $expires)`, { jti_hash: jtiHash, user_id: userId, issued: issuedMs, expires: expiresMs }));
  }

  async get(jtiHash: string): Promise<IssuedJwtRow | null> {
    const r = (await this.db.get(`SELECT user_id, expires_ms, revoked_ms FROM ${this.table} WHERE jti_hash = $h`, { h: jtiHash })) as { user_id: number; expires_ms: number; revoked_ms: number | null } | null;
    return r ? { userId: r.user_id, expiresMs: r.expires_ms, revoked: r.revoked_ms !== null } : null;
  }

  /** Revokes one token or session; true when it was live. */
  async revoke(jtiHash: string, nowMs: number): Promise<boolean> {
    return (
      (await this.write(this.db.run(`UPDATE ${this.table} SET revoked_ms = $now WHERE jti_hash = $h AND revoked_ms IS NULL`, { h: jtiHash, now: nowMs }))) === 1
    );
  }

  /** Revokes every live one of a user (tokens: API-key rotation; sessions: a new password). */
  async revokeAllForUser(userId: number, nowMs: number): Promise<void> {
    await this.write(this.db.run(`UPDATE ${this.table} SET revoked_ms = $now WHERE user_id = $u AND revoked_ms IS NULL`, { u: userId, now: nowMs }));
  }

  /** Revokes every live one of a user but `keepJtiHash` (a password changed from that session). */
  async revokeAllForUserExcept(userId: number, keepJtiHash: string, nowMs: number): Promise<void> {
    await this.write(this.db.run(`UPDATE ${this.table} SET revoked_ms = $now WHERE user_id = $u AND revoked_ms IS NULL AND jti_hash != $keep`, { u: userId, keep: keepJtiHash, now: nowMs }));
  }

  /** Drops rows that expired more than a day ago, so the table stays bounded. */
  async prune(nowMs: number): Promise<void> {
    await this.write(this.db.run(`DELETE FROM ${this.table} WHERE expires_ms < $cut`, { cut: nowMs - 86_400_000 }));
  }
}
