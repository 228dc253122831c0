// Builds every service over one database: the composition root below HTTP. Adapters receive this
// object and call one service function per operation.

import { type Config, limits } from '../config.ts';
import type { Clock } from '../lib/clock.ts';
import { authRowsVersion } from '../store/auth-writes.ts';
import { type Db, failureKindOf } from '../store/db.ts';
import { FailureLog } from '../lib/failure-log.ts';
import { type Sql, SqliteSql } from '../store/sql.ts';
import { PostgresSql } from '../store/sql-postgres.ts';
import type { SessionOwners } from './cluster/ownership.ts';
import { BarSource } from '../data/bar-source.ts';
import { RollupBuilder } from '../data/rollup-builder.ts';
import { RollupWarmup } from '../data/rollup-warmup.ts';
import { lastCompletedTradingDay } from '../domain/trading-hours.ts';
import { parseDateDay } from '../lib/iso-time.ts';
import { AccountStore } from '../store/accounts.ts';
import { BarChunkStore } from '../store/bar-chunks.ts';
import { BarReplicaStore } from '../store/bar-replica.ts';
import { LocalImportLocks, SharedBarStore, SharedImportLocks } from '../store/shared-bars.ts';
import { MarketReplica } from './market-replica.ts';
import { IssuedJwtStore } from '../store/issued-jwts.ts';
import { BarRollupStore } from '../store/rollups.ts';
import { ChallengeStore } from '../store/challenges.ts';
import { DrawingsStore } from '../store/drawings.ts';
import { JournalStore } from '../store/journal.ts';
import { JournalTagStore } from '../store/journal-tags.ts';
import { ReplayStore } from '../store/replay.ts';
import { StrategyStore } from '../store/strategies.ts';
import { UsageStore } from '../store/usage.ts';
import { UserStore } from '../store/users.ts';
import { AccountService } from './accounts.ts';
import { AuthService } from './auth.ts';
import { ChallengeService } from './challenges.ts';
import { DrawingsService } from './drawings.ts';
import { JournalService } from './journal.ts';
import { JournalReviewService } from './journal-review.ts';
import { JournalTagService } from './journal-tags.ts';
import { ContractService } from './contracts.ts';
import { HistoryService } from './history.ts';
import { ReplayClock } from './replay-clock.ts';
import { MarketDataService } from './market-data.ts';
import { PayoutService } from './payouts.ts';
import { join } from 'node:path';
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { consoleLogger, type Logger } from '../log.ts';
import { RunnerPool } from '../../runner/host/pool.ts';
import { DEFAULT_SANDBOX_LIMITS } from '../../runner/host/sandbox.ts';
import { PlaygroundOptimizationStore } from '../store/playground-optimizations.ts';
import { PlaygroundRunStore } from '../store/playground-runs.ts';
import { OptimizationService } from './playground/optimize.ts';
import { RunService } from './playground/runs.ts';
import { StrategyService } from './playground/strategies.ts';
import { ReplayService } from './replay/service.ts';
import type { RateLimits } from './rate-limit.ts';
import { TradingService } from './trading.ts';
import { UserService } from './users.ts';
import { WebAuthService } from './web-auth.ts';
import type { EventBus } from './events/bus.ts';
import { authTopic, type ReplayEvent } from './events/types.ts';
import type { Revocation } from './auth.ts';
import type { JobQueue } from './jobs/queue.ts';
import { sharedStoreTopology, standaloneTopology, type Topology } from './topology.ts';

export interface Services {
  config: Config;
  clock: Clock;
  /** This node's SQLite file: market data (bars, rollups, imports), and everything else when `sql` is over it. */
  db: Db;
  /** The store of users, accounts, sessions, challenges and runs: the SQLite file, or a shared PostgreSQL. */
  sql: Sql;
  startedMs: number;
  auth: AuthService;
  users: UserService;
  accounts: AccountService;
  contracts: ContractService;
  chunks: BarChunkStore;
  bars: BarSource;
  history: HistoryService;
  marketData: MarketDataService;
  replay: ReplayService;
  /** The live profile's clock of a request: the replay session's simulated time, else the wall clock. */
  replayClock: ReplayClock;
  challenges: ChallengeService;
  journal: JournalService;
  /** The journal's reviews (R, excursions, expectancy, calendar) and tags (issue 30). */
  journalReview: JournalReviewService;
  journalTags: JournalTagService;
  drawings: DrawingsService;
  payouts: PayoutService;
  trading: TradingService;
  /**
   * `draining` once SIGTERM is received: /health answers 503 so a load balancer sends no new work.
   * `requestsInFlight`: requests the listening server has not answered yet (src/main.ts counts them).
   */
  lifecycle: { draining: boolean; requestsInFlight: number };
  /** Signs requests one node forwards to another (derived from the JWT secret every node shares). */
  clusterKey: Uint8Array;
  /** The CA other nodes' certificates chain to (NODE_CA_FILE), read at its first use and kept; null without one. */
  nodeCa(): string | null;
  /** One node or many: ownership, events, rate limits, the streaming budget and the job queue (topology.ts). */
  topology: Topology;
  /** Who runs the live session a request names (the replay service's registry): the HTTP edge asks before serving it. */
  owners: SessionOwners;
  /** The web login's cookie sessions (playground and console). */
  webAuth: WebAuthService;
  strategies: StrategyService;
  runs: RunService;
  /** Playground optimisations: searches over a strategy's params, each combination a run. */
  optimizations: OptimizationService;
  /** The playground's sandboxed runner children, created on first use (or by `warm`). */
  runner(): RunnerPool;
  /** Starts the background rollup warm-up over the synthetic span (the server, after listening). */
  warmRollups(): void;
  /** Stops timers and background work; the caller closes the database afterwards. */
  shutdown(): Promise<void>;
}

export interface ServiceDeps {
  config: Config;
  clock: Clock;
  db: Db;
  /** The shared store (PostgreSQL); the SQLite file `db` when absent. */
  sql?: Sql;
  /**
   * Whether this instance is a node of a cluster (leases, events between nodes): by default when the
   * store is PostgreSQL. A single server on PostgreSQL may say false (tests do: one app per database).
   */
  cluster?: boolean;
  jwtSecret: Uint8Array;
  /** Load live replay sessions from the store (default true; the admin CLI says false). */
  restoreSessions?: boolean;
  logError?: (message: string, fields: Record<string, unknown>) => void;
  /** Operational news (the runner's snapshot built, …); silent when absent. */
  logInfo?: (message: string, fields: Record<string, unknown>) => void;
}

export async function createServices(deps: ServiceDeps): Promise<Services> {
  const { db, clock, config } = deps;
  const sql = deps.sql ?? new SqliteSql(db);
  const userStore = new UserStore(sql);
  const tokenStore = new IssuedJwtStore(sql, 'tokens');
  const accountStore = new AccountStore(sql);
  const logError = deps.logError ?? stderrErrors();
  const { chunks, builder, bars, warmup } = barParts(db, config, clock, deps.logInfo, logError);
  const cluster = deps.cluster ?? sql.dialect === 'postgres';
  const { sharedBars, importLocks, replica } = marketDataStores(sql, db, chunks, cluster, config, clock, logError);
  const topology = await topologyFor(sql, cluster, config, clock, logError);
  const { rateLimits } = topology;
  const revoked = revocationPublisher(topology.events);
  const { replayStore, challengeStore, challenges, replay } = replayServices(sql, topology, config, clock, bars, accountStore, logError);
  const { strategies, runnerPool, runner, runs, optimizations } = playgroundServices(sql, topology.jobs, config, bars, clock, rateLimits, deps.logInfo, logError);
  // The admin CLI works on the store alone; only a server (or a test app) copies the shared market
  // data (before it serves) and brings sessions to life.
  if (deps.restoreSessions !== false) {
    await replica?.start();
    await replay.restoreLive();
    await runs.startQueue();
    await optimizations.recover();
  }
  return {
    config,
    clock,
    db,
    sql,
    startedMs: clock.nowMs(),
    auth: new AuthService(userStore, tokenStore, deps.jwtSecret, clock, rateLimits, revoked, sql.dialect === 'sqlite' ? authRowsVersion(sql, db) : null),
    users: new UserService(userStore, tokenStore, clock, revoked, config.passwordHash),
    accounts: new AccountService(accountStore),
    contracts: new ContractService(clock, config.symbolIdStyle),
    chunks,
    bars,
    history: new HistoryService({
      source: bars,
      usage: new UsageStore(sql),
      clock,
      customTimeframes: config.customTimeframes,
      isImporting: (symbol) => importLocks.isImporting(symbol),
      rateLimits,
    }),
    marketData: new MarketDataService({ shared: sharedBars, locks: importLocks, chunks, source: bars, clock, replica }),
    replay,
    replayClock: new ReplayClock({ replay, store: replayStore, accounts: accountStore, clock }),
    challenges,
    payouts: new PayoutService(sql, challenges, challengeStore, replay, clock),
    trading: new TradingService(replay, replayStore, accountStore),
    ...journalServices(sql, replayStore, accountStore, bars, clock),
    drawings: new DrawingsService(replayStore, new DrawingsStore(sql), clock),
    topology,
    owners: replay,
    lifecycle: { draining: false, requestsInFlight: 0 },
    clusterKey: new Uint8Array(createHmac('sha256', deps.jwtSecret).update('replaydesk node forwarding').digest()),
    nodeCa: nodeCaOf(config),
    webAuth: new WebAuthService(userStore, new IssuedJwtStore(sql, 'web_sessions'), deps.jwtSecret, clock, rateLimits, config.passwordHash),
    strategies,
    runs,
    optimizations,
    runner,
    warmRollups() {
      warmup.start();
    },
    async shutdown() {
      warmup.stop();
      builder?.close();
      await replica?.stop();
      await replay.shutdown();
      // The runs first: a combination's end recorded meanwhile still moves its optimisation on.
      await runs.shutdown();
      await optimizations.shutdown();
      await topology.stop();
      await runnerPool.close();
      // The SQLite file is the caller's to close; a PostgreSQL pool is this instance's.
      if (sql.dialect === 'postgres') await sql.close();
    },
  };
}

type LogError = (message: string, fields: Record<string, unknown>) => void;

/** Where errors go when the caller names no sink (the admin CLI, tests): the server's logger on stderr, made at the first error. */
function stderrErrors(): LogError {
  let log: Logger | undefined;
  return (message, fields) => (log ??= consoleLogger()).error(message, fields);
}

/** Bars as the server reads them: the local file's chunks and rollups over the generator, and the rollups' warm-up. */
function barParts(db: Db, config: Config, clock: Clock, logInfo: LogError | undefined, logError: LogError) {
  const chunks = new BarChunkStore(db);
  const builder = config.rollupWorkers > 0 ? new RollupBuilder(config.rollupWorkers) : null;
  const bars = new BarSource(chunks, syntheticSpan(config, clock), undefined, new BarRollupStore(db), builder);
  // A failing day is logged once per kind of failure per interval, not once a day (a full disk: 991 lines in 20 s).
  const failures = new FailureLog(() => clock.nowMs(), limits.warmupFailureLogIntervalMs, limits.warmupFailureKindsMax, logError);
  const failedDays = 'rollup warm-up: days failed; History builds them on demand';
  const warmup = new RollupWarmup(
    bars,
    (visited) => {
      failures.flush(failedDays);
      logInfo?.('rollups warm', { instrumentDays: visited, failedDays: failures.count });
    },
    (e) => failures.record(failureKindOf(e), failedDays, String((e as Error)?.message ?? e)),
  );
  return { chunks, builder, bars, warmup };
}

/**
 * Where imports write and who may import: with SQLite the server's own file; with PostgreSQL the
 * shared store, copied into this node's file by a replica (told of imports when this is a cluster node).
 */
function journalServices(sql: Sql, replayStore: ReplayStore, accountStore: AccountStore, bars: BarSource, clock: Clock) {
  const notes = new JournalStore(sql);
  const tags = new JournalTagStore(sql);
  const journal = new JournalService(replayStore, accountStore, notes, clock);
  return {
    journal,
    journalReview: new JournalReviewService(journal, replayStore, notes, tags, bars),
    journalTags: new JournalTagService(journal, replayStore, accountStore, tags, sql),
  };
}

function marketDataStores(sql: Sql, db: Db, chunks: BarChunkStore, cluster: boolean, config: Config, clock: Clock, logError: LogError) {
  const sharedBars = new SharedBarStore(sql);
  if (sql.dialect !== 'postgres') return { sharedBars, importLocks: new LocalImportLocks(chunks, () => clock.nowMs()), replica: null };
  const notifier = cluster && sql instanceof PostgresSql ? sql : null;
  const replica = new MarketReplica(sharedBars, new BarReplicaStore(db, chunks), notifier, limits.marketDataSyncMs, logError);
  return { sharedBars, importLocks: new SharedImportLocks(sql), replica };
}

/** Replay sessions and the challenges they trade, over the topology's ownership, events and limits. */
function replayServices(sql: Sql, topology: Topology, config: Config, clock: Clock, bars: BarSource, accounts: AccountStore, logError: LogError) {
  const replayStore = new ReplayStore(sql);
  const challengeStore = new ChallengeStore(sql);
  const challenges = new ChallengeService(sql, accounts, challengeStore, clock);
  const replay = new ReplayService({
    db: sql, ownership: topology.ownership, rateLimits: topology.rateLimits, streaming: topology.streaming, config, clock, source: bars, accounts, store: replayStore, challenges, bus: topology.events, logError,
  });
  return { replayStore, challengeStore, challenges, replay };
}

/** The playground's services: strategies, the runner pool, runs and optimisations over one run store and the topology's job queue. */
function playgroundServices(sql: Sql, jobs: JobQueue, config: Config, bars: BarSource, clock: Clock, rateLimits: RateLimits, logInfo: LogError | undefined, logError: LogError) {
  const records = new PlaygroundRunStore(sql);
  const strategies = new StrategyService(new StrategyStore(sql), records, clock, config.customTimeframes, rateLimits);
  const runnerPool = lazyRunnerPool(config, logInfo, logError);
  const runner = runnerPool.get;
  const settings = {
    customTimeframes: config.customTimeframes,
    slippageTicks: config.slippageTicks,
    timeoutMs: config.playgroundTimeoutS * 1000,
    maxConcurrent: config.runnerMaxConcurrent,
    pacedMaxConcurrent: config.runnerPacedMaxConcurrent,
    optimizeMaxConcurrent: optimizeShare(config),
  };
  const runs = new RunService(jobs, { records, strategies, source: bars, pool: runner, settings, clock, logError });
  const optimizations = new OptimizationService(jobs, { store: new PlaygroundOptimizationStore(sql), runs, source: bars, clock, rateLimits, logError });
  return { strategies, runnerPool, runner, runs, optimizations };
}

/** Full-speed runners an optimisation's combinations may hold together (default all but one, at least one). */
function optimizeShare(config: Config): number {
  return config.runnerOptimizeMaxConcurrent ?? Math.max(1, config.runnerMaxConcurrent - 1);
}

/** The playground's sandboxed runner children, created on first use. */
function lazyRunnerPool(config: Config, logInfo: LogError | undefined, logError: LogError) {
  let pool: RunnerPool | null = null;
  const get = (): RunnerPool =>
    (pool ??= new RunnerPool({
      cacheDir: config.runnerCacheDir ?? join(config.dataDir, 'runner'),
      size: config.runnerPoolSize,
      // While an optimisation holds its share of runners, a loaded successor waits for each (no pool: none).
      burst: config.runnerPoolSize === 0 ? 0 : Math.max(config.runnerPoolSize, optimizeShare(config)),
      // CPU time is a backstop behind the server's own kill at the timeout.
      limits: { ...DEFAULT_SANDBOX_LIMITS, cpuSeconds: config.playgroundTimeoutS + 60 },
      log: (message, fields) => logInfo?.(message, fields ?? {}),
      logError: (message, fields) => logError(message, fields ?? {}),
    }));
  return { get, close: async () => pool?.close() };
}

/**
 * One node on its SQLite file, or a node on a shared PostgreSQL (of a cluster unless `cluster` is
 * false): the only place that asks which store the instance runs on for its topology.
 */
export async function topologyFor(sql: Sql, cluster: boolean, config: Config, clock: Clock, logError: LogError): Promise<Topology> {
  const d = { nodeId: config.nodeId, clock, logError };
  if (!(sql instanceof PostgresSql)) return standaloneTopology(sql, d);
  return sharedStoreTopology(sql, cluster ? { nodeUrl: config.nodeUrl ?? `http://${config.host}:${config.port}` } : null, d);
}

/** NODE_CA_FILE's certificates, read once at the first hop over https that needs them (null without the setting). */
function nodeCaOf(config: Config): () => string | null {
  let ca: string | undefined;
  return () => (config.nodeCaFile === null ? null : (ca ??= readFileSync(config.nodeCaFile, 'utf8')));
}

/** Revocations (logout, key rotation, …) as events: hub connections on the user's tokens close. */
function revocationPublisher(events: EventBus<ReplayEvent>): (r: Revocation) => void {
  return (r) => events.publish({ topic: authTopic(r.userId), kind: 'auth_revoked', ...r });
}

/**
 * The synthetic history's days: DATA_START_DATE to DATA_END_DATE, or to the last completed
 * trading day (futures session) at call time when no end is configured.
 */
export function syntheticSpan(config: Config, clock: Clock) {
  const firstDay = parseDateDay(config.dataStartDate);
  if (firstDay === undefined) throw new Error(`DATA_START_DATE must be YYYY-MM-DD, got ${config.dataStartDate}`);
  const fixedEnd = config.dataEndDate === null ? null : parseDateDay(config.dataEndDate);
  if (fixedEnd === undefined) throw new Error(`DATA_END_DATE must be YYYY-MM-DD, got ${config.dataEndDate}`);
  return {
    firstDay,
    lastDay: () => fixedEnd ?? lastCompletedTradingDay('cme_globex', Math.floor(clock.nowMs() / 1000)),
  };
}
