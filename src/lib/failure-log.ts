// Failures of background work, logged by kind: the first of a kind at once, then at most one line per
// kind per interval with the count since the last line, and whatever is left untold when the work
// ends (`flush`). A full disk made the rollup warm-up log every failing day (991 lines in 20 s); the
// store's health (service/store-health.ts) logs its failures the same way.

type Log = (message: string, fields: Record<string, unknown>) => void;

interface KindState {
  lastLogMs: number;
  untold: number;
  lastError: string;
}

export class FailureLog {
  private readonly kinds = new Map<string, KindState>();
  private total = 0;

  constructor(
    private readonly nowMs: () => number,
    private readonly intervalMs: number,
    private readonly kindsMax: number,
    private readonly log: Log,
  ) {}

  /** Counts a failure of `kind`; logs `message` when its kind has had no line for an interval. */
  record(kind: string, message: string, error: string): void {
    this.total++;
    const now = this.nowMs();
    // Kinds beyond the bound share one, so the map stays small whatever the errors say.
    const key = this.kinds.has(kind) || this.kinds.size < this.kindsMax ? kind : 'other';
    let k = this.kinds.get(key);
    if (!k) {
      k = { lastLogMs: Number.NEGATIVE_INFINITY, untold: 0, lastError: '' };
      this.kinds.set(key, k);
    }
    k.untold++;
    k.lastError = error;
    if (now - k.lastLogMs < this.intervalMs) return;
    this.log(message, { kind: key, failures: k.untold, error });
    k.lastLogMs = now;
    k.untold = 0;
  }

  /** Failures recorded so far, told or not. */
  get count(): number {
    return this.total;
  }

  /** One line per kind with failures not yet told (the work ended before its interval passed). */
  flush(message: string): void {
    for (const [kind, k] of this.kinds) {
      if (k.untold === 0) continue;
      this.log(message, { kind, failures: k.untold, error: k.lastError });
      k.untold = 0;
    }
  }
}
