// Imported market data reaches every node of a cluster: `admin data import` writes it into
// PostgreSQL (src/store/shared-bars.ts) and notifies; each node copies an instrument whose shared
// data version changed into its own DATA_DIR file (src/store/bar-replica.ts), whole and in one local
// transaction, and its bar loops go on reading that file synchronously. A node copies at start
// (before it serves), on every import's notification, and at the latest every `marketDataSyncMs`
// (a notification missed while its listening connection was down).
//
// Synthetic days are not shared: the generator is deterministic, so every node makes the same bars
// (test/cluster/market-data.test.ts checks it), and each node builds their rollups itself.

import type { BarReplicaStore } from '../store/bar-replica.ts';
import type { InstrumentRows, SharedBarStore } from '../store/shared-bars.ts';
import type { Notifier } from '../store/sql-postgres.ts';

const CHANNEL = 'replaydesk_market_data';
const NOTHING: InstrumentRows = { chunks: [], rollups: [], imports: [] };

export class MarketReplica {
  private chain: Promise<string[]> = Promise.resolve([]);
  private timer: ReturnType<typeof setInterval> | null = null;
  private unlisten: (() => Promise<void>) | null = null;

  constructor(
    private readonly shared: SharedBarStore,
    private readonly local: BarReplicaStore,
    private readonly notifier: Notifier | null,
    private readonly everyMs: number,
    private readonly logError: (message: string, fields: Record<string, unknown>) => void,
  ) {}

  /**
   * Copies every instrument whose shared version differs from the local copy's (also one the shared
   * store no longer holds); returns their symbols. Calls run one after the other.
   */
  sync(): Promise<string[]> {
    const run = this.chain.catch(() => []).then(() => this.copyChanged());
    this.chain = run;
    return run;
  }

  /** Copies what changed, then (a cluster node, with `notifier`) follows the store: notifications and a periodic check. */
  async start(): Promise<void> {
    await this.sync();
    const resync = () => void this.sync().catch((e) => this.logError('market data: copying from the shared store failed', { error: String(e) }));
    // Without a listener (a single server on PostgreSQL in tests) the copy made at start is all.
    if (!this.notifier) return;
    this.unlisten = await this.notifier.listen(CHANNEL, resync);
    this.timer = setInterval(resync, this.everyMs);
    this.timer.unref?.();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.unlisten?.();
    this.unlisten = null;
    await this.chain.catch(() => []);
  }

  /** Tells every node that an import changed the instrument (after its commit). */
  async announce(symbol: string): Promise<void> {
    await this.notifier?.notify(CHANNEL, symbol);
  }

  private async copyChanged(): Promise<string[]> {
    const versions = await this.shared.versions();
    const copied: string[] = [];
    for (const symbol of new Set([...versions.keys(), ...this.local.symbolsHeld()])) {
      const shared = versions.get(symbol) ?? 0;
      if (this.local.version(symbol) === shared) continue;
      const { version, rows } = shared === 0 ? { version: 0, rows: NOTHING } : await this.shared.rowsOf(symbol);
      this.local.replace(symbol, version, rows);
      copied.push(symbol);
    }
    return copied;
  }
}
