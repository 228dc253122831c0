// The principals of bearer tokens read before, by the token's `jti`: a bot's every call otherwise
// hashes its `jti` and reads its token row and its user (two statements and a SHA-256, about a tenth
// of a Replay/step's server CPU). An entry holds only while nothing that could change it was
// written: `version` moves with every write through the user and token stores of this process and,
// on SQLite, with every commit of another connection to the file (the admin CLI: `PRAGMA
// data_version`); taken before a read, it stamps the entry the read makes, so a write that lands
// meanwhile leaves the entry stale. Without a version (PostgreSQL: other nodes write the shared
// store), nothing is kept. Expiry is checked on every hit.

/** What is kept of a principal (auth.ts `Principal` of a bearer token). */
export interface KeptPrincipal<U extends object> {
  user: U;
  jtiHash: string;
  expiresMs: number;
}

export class PrincipalCache<U extends object> {
  private readonly entries = new Map<string, { principal: KeptPrincipal<U>; version: number }>();

  constructor(
    /** Moves whenever a user or token row may have changed; null: keep nothing. */
    private readonly version: (() => number) | null,
    private readonly entriesMax: number,
  ) {}

  /** The version a read is stamped with, taken before it; null when nothing is kept. */
  stamp(): number | null {
    return this.version === null ? null : this.version();
  }

  /** The principal kept for `jti` when nothing has changed since its read and it has not expired; a copy. */
  get(jti: string, nowMs: number): KeptPrincipal<U> | null {
    const e = this.entries.get(jti);
    if (e === undefined) return null;
    if (e.version !== this.version?.() || e.principal.expiresMs <= nowMs) {
      this.entries.delete(jti);
      return null;
    }
    const p = e.principal;
    return { user: { ...p.user }, jtiHash: p.jtiHash, expiresMs: p.expiresMs };
  }

  /** Keeps what a read stamped `stamp` found (nothing when `stamp` is null); the oldest entry goes when full. */
  keep(jti: string, principal: KeptPrincipal<U>, stamp: number | null): void {
    if (stamp === null) return;
    if (this.entries.size >= this.entriesMax) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(jti, { principal: { user: { ...principal.user }, jtiHash: principal.jtiHash, expiresMs: principal.expiresMs }, version: stamp });
  }
}
