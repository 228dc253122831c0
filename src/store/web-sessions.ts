// Cookie sessions of the web login, by the hash of their JWT's `jti` (the cookie value is never
// stored). Kept apart from bearer `tokens`, so neither kind of JWT resolves through the other's table.

import type { Db } from './db.ts';

export interface WebSessionRow {
  userId: number;
  expiresMs: number;
  revoked: boolean;
}

export class WebSessionStore {
  constructor(private readonly db: Db) {}

  insert(jtiHash: string, userId: number, issuedMs: number, expiresMs: number): void {
    this.db
      .query(
        'INSERT INTO web_sessions (jti_hash, user_id, issued_ms, expires_ms) VALUES ($jti_hash, $user_id, $issued, $expires)',
      )
      .run({ jti_hash: jtiHash, user_id: userId, issued: issuedMs, expires: expiresMs });
  }

  get(jtiHash: string): WebSessionRow | null {
    const r = this.db
      .query('SELECT user_id, expires_ms, revoked_ms FROM web_sessions WHERE jti_hash = $h')
      .get({ h: jtiHash }) as { user_id: number; expires_ms: number; revoked_ms: number | null } | null;
    return r ? { userId: r.user_id, expiresMs: r.expires_ms, revoked: r.revoked_ms !== null } : null;
  }

  /** Revokes one session; true when it was live. */
  revoke(jtiHash: string, nowMs: number): boolean {
    return (
      this.db
        .query('UPDATE web_sessions SET revoked_ms = $now WHERE jti_hash = $h AND revoked_ms IS NULL')
        .run({ h: jtiHash, now: nowMs }).changes === 1
    );
  }

  /** Revokes every live session of a user (a new password). */
  revokeAllForUser(userId: number, nowMs: number): void {
    this.db
      .query('UPDATE web_sessions SET revoked_ms = $now WHERE user_id = $u AND revoked_ms IS NULL')
      .run({ u: userId, now: nowMs });
  }

  /** Drops rows that expired more than a day ago, so the table stays bounded. */
  prune(nowMs: number): void {
    this.db.query('DELETE FROM web_sessions WHERE expires_ms < $cut').run({ cut: nowMs - 86_400_000 });
  }
}
