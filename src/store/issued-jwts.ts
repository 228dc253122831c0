// Issued JWTs, by the hash of their `jti` (the token itself is never stored), one table per kind:
// bearer `tokens` and the web login's cookie `web_sessions`. The tables stay apart, so neither kind
// of JWT resolves through the other's table; the code over them is this one class.

import type { Db } from './db.ts';

/** The tables of issued JWTs (migrations.ts creates both with the same columns). */
export type IssuedJwtTable = 'tokens' | 'web_sessions';

export interface IssuedJwtRow {
  userId: number;
  expiresMs: number;
  revoked: boolean;
}

export class IssuedJwtStore {
  constructor(
    private readonly db: Db,
    readonly table: IssuedJwtTable,
  ) {}

  insert(jtiHash: string, userId: number, issuedMs: number, expiresMs: number): void {
    this.db
      .query(
        `INSERT INTO ${this.table} (jti_hash, user_id, issued_ms, expires_ms) VALUES ($jti_hash, $user_id, $issued, $expires)`,
      )
      .run({ jti_hash: jtiHash, user_id: userId, issued: issuedMs, expires: expiresMs });
  }

  get(jtiHash: string): IssuedJwtRow | null {
    const r = this.db
      .query(`SELECT user_id, expires_ms, revoked_ms FROM ${this.table} WHERE jti_hash = $h`)
      .get({ h: jtiHash }) as { user_id: number; expires_ms: number; revoked_ms: number | null } | null;
    return r ? { userId: r.user_id, expiresMs: r.expires_ms, revoked: r.revoked_ms !== null } : null;
  }

  /** Revokes one token or session; true when it was live. */
  revoke(jtiHash: string, nowMs: number): boolean {
    return (
      this.db
        .query(`UPDATE ${this.table} SET revoked_ms = $now WHERE jti_hash = $h AND revoked_ms IS NULL`)
        .run({ h: jtiHash, now: nowMs }).changes === 1
    );
  }

  /** Revokes every live one of a user (tokens: API-key rotation; sessions: a new password). */
  revokeAllForUser(userId: number, nowMs: number): void {
    this.db
      .query(`UPDATE ${this.table} SET revoked_ms = $now WHERE user_id = $u AND revoked_ms IS NULL`)
      .run({ u: userId, now: nowMs });
  }

  /** Drops rows that expired more than a day ago, so the table stays bounded. */
  prune(nowMs: number): void {
    this.db.query(`DELETE FROM ${this.table} WHERE expires_ms < $cut`).run({ cut: nowMs - 86_400_000 });
  }
}
