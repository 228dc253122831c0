// Opens an instance's data directory (mode 0700): the database (0600, src/store/db.ts), the JWT
// secret (generated on first start, mode 0600) and the services over them. Shared by the server and the admin CLI so both see the
// same state.

import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Config, limits } from './config.ts';
import { systemClock, type Clock } from './lib/clock.ts';
import { randomBytes } from 'node:crypto';
import { randomSecret } from './lib/secrets.ts';
import { createServices, type Services } from './service/services.ts';
import { openDb, PRIVATE_DIR_MODE } from './store/db.ts';
import { WalCheckpoints } from './store/wal-checkpoints.ts';
import { openPostgres } from './store/postgres.ts';
import type { Sql } from './store/sql.ts';
import type { PgBounds } from './store/sql-postgres.ts';

export function dbPathOf(config: Config): string {
  return join(config.dataDir, 'replaydesk.db');
}

/** The instance's JWT secret when the store is its SQLite file (with PostgreSQL, meta.jwt_secret). */
export function jwtSecretPathOf(config: Config): string {
  return join(config.dataDir, 'jwt-secret');
}

function loadOrCreateSecret(config: Config): Uint8Array {
  const path = jwtSecretPathOf(config);
  if (existsSync(path)) return new Uint8Array(readFileSync(path));
  const secret = randomBytes(32);
  // wx: never overwrite a secret another process has just written.
  try {
    writeFileSync(path, secret, { mode: 0o600, flag: 'wx' });
  } catch {
    return new Uint8Array(readFileSync(path));
  }
  chmodSync(path, 0o600);
  return new Uint8Array(secret);
}

export async function openInstance(
  config: Config,
  opts: {
    clock?: Clock;
    restoreSessions?: boolean;
    logError?: (message: string, fields: Record<string, unknown>) => void;
    logInfo?: (message: string, fields: Record<string, unknown>) => void;
    /** A serving node: every wait on PostgreSQL is bounded (`SERVING_PG_BOUNDS`); the admin CLI's are not. */
    serving?: boolean;
  } = {},
): Promise<Services> {
  // DATA_DIR holds the secret, the database and the demo credentials: owner-only, also when an older
  // version made it 0755.
  mkdirSync(config.dataDir, { recursive: true, mode: PRIVATE_DIR_MODE });
  chmodSync(config.dataDir, PRIVATE_DIR_MODE);
  const db = openDb(dbPathOf(config));
  // A serving node's WAL is checkpointed on a worker thread, not by the commit on the event loop.
  const walCheckpoints = opts.serving ? WalCheckpoints.start(db, dbPathOf(config), { intervalMs: limits.sqliteCheckpointIntervalMs, backstopPages: limits.sqliteWalBackstopPages, stopWaitMs: limits.sqliteCheckpointStopWaitMs, logError: opts.logError }) : null;
  const sql = config.databaseUrl === null ? undefined : await openPostgres(postgresUrl(config.databaseUrl), { max: config.databasePoolMax, bounds: opts.serving ? SERVING_PG_BOUNDS : undefined });
  // Every node of a cluster signs and checks tokens with one secret, kept in the shared store.
  const jwtSecret = sql ? await sharedSecret(sql) : loadOrCreateSecret(config);
  const s = await createServices({ config, clock: opts.clock ?? systemClock, db, sql, jwtSecret, restoreSessions: opts.restoreSessions, logError: opts.logError, logInfo: opts.logInfo });
  return walCheckpoints ? stoppingLast(s, walCheckpoints) : s;
}

/** `s` whose shutdown stops the WAL checkpointer last (the caller closes the file after it). */
function stoppingLast(s: Services, walCheckpoints: WalCheckpoints): Services {
  const shutdown = s.shutdown.bind(s);
  s.shutdown = async () => {
    await shutdown();
    await walCheckpoints.stop();
  };
  return s;
}

/** How long a serving node waits on PostgreSQL (limits.pg*; docs/decisions.md, "Cluster"). */
export const SERVING_PG_BOUNDS: PgBounds = {
  statementMs: limits.pgStatementTimeoutMs,
  lockMs: limits.pgLockTimeoutMs,
  idleInTransactionMs: limits.pgIdleInTransactionMs,
  clientStatementMs: limits.pgClientStatementMs,
  clientTransactionMs: limits.pgClientTransactionMs,
  connectS: limits.pgConnectTimeoutS,
};

/** The cluster's JWT secret: made by the first node to start, read by the others. */
async function sharedSecret(sql: Sql): Promise<Uint8Array> {
  await sql.run(`INSERT INTO meta (key, value) VALUES ('jwt_secret', $v) ON CONFLICT (key) DO NOTHING`, { v: randomBytes(32).toString('hex') });
  const row = await sql.get<{ value: string }>(`SELECT value FROM meta WHERE key = 'jwt_secret'`);
  return new Uint8Array(Buffer.from((row as { value: string }).value, 'hex'));
}

/** DATABASE_URL as given, once it names PostgreSQL (the only shared store). */
function postgresUrl(url: string): string {
  if (!/^postgres(ql)?:\/\//.test(url)) throw new Error(`DATABASE_URL must be a postgres:// URL, got ${JSON.stringify(url.split('@').pop())}`);
  return url;
}

export const DEMO_EMAIL = 'demo@replaydesk.local';

/**
 * On the first start (no users yet) creates the Pro demo user with an API key and a random password
 * (for the web login) and writes both to `DATA_DIR/demo-credentials.json` (mode 0600). Returns them when
 * created, null otherwise.
 */
export async function ensureDemoUser(s: Services): Promise<{ userName: string; apiKey: string; password: string; path: string } | null> {
  if ((await s.users.list()).length > 0) return null;
  const password = randomSecret(18); // 24 characters, 144 bits
  const r = await s.users.create({ email: DEMO_EMAIL, plan: 'pro', password });
  if (!r.ok) return null;
  const path = join(s.config.dataDir, 'demo-credentials.json');
  const content = { userName: DEMO_EMAIL, apiKey: r.value.apiKey, password };
  writeFileSync(path, `${JSON.stringify(content, null, 2)}\n`, { mode: 0o600 });
  chmodSync(path, 0o600);
  return { ...content, path };
}
