// Every limit and default of the service, unit-suffixed, in one place (the pure core's own limits
// come from core-limits.ts, spread in). Values the spec fixes are marked (spec); the others are our
// decisions, recorded in docs/decisions.md. The tidy test refuses a `const X_MAX` anywhere else.
// Only `loadConfig` reads the environment, and only src/main.ts and the admin CLI call it.

import { availableParallelism } from 'node:os';
import { coreLimits } from './core-limits.ts';
import type { PasswordCost } from './lib/secrets.ts';
import { parseSymbolIdStyle, SYMBOL_ID_STYLES, type SymbolIdStyle } from './domain/symbol-id.ts';
import { API_PROFILES, type ApiProfile, parseApiProfile } from './domain/api-profile.ts';

export const limits = Object.freeze({
  ...coreLimits,

  tokenTtlS: 24 * 3600, // (spec) tokens live 24 hours
  apiKeyBytes: 32, // 256-bit API keys (docs/decisions.md, "Authentication")
  apiKeyLengthMax: 128,
  emailLengthMax: 254,

  // Login throttle, per sliding window (API-key and web logins counted apart): failed attempts per
  // email from one client address, per email from anywhere (distributed guessing), per client address
  // (floods; behind a proxy without TRUST_PROXY every user shares one); logins whose secret matched, per user.
  loginFailuresPerEmailAddressMax: 10,
  loginFailuresPerEmailMax: 100,
  loginFailuresPerAddressMax: 300,
  loginSuccessesPerUserMax: 120, // 40 bots restarting together, three times over in one minute
  loginWindowMs: 60_000,
  validatePerAccountMax: 60, // (spec) Auth/validate 60 calls per minute per account
  validateWindowMs: 60_000,
  contractSearchMax: 50, // (spec)
  endedReplayAccountsListedMax: 50, // Account/search lists the newest ended replay accounts only
  endedReplayAccountsKeptPerUserMax: 500, // older ended replay accounts are deleted with their orders and fills
  // History/retrieveBars (spec)
  historyBarsPerRequestMax: 20_000,
  historyRequestsPerWindowMax: 20,
  historyWindowMs: 60_000,
  historyBarsPerDayMax: 1_000_000,
  historyCacheTtlMs: 5 * 60_000,
  historyCacheEntriesMax: 256,
  historyScanSecondMinuteDays: 30,
  historyScanHourDays: 120,
  historyScanDayDays: 365,
  importRetryAfterS: 30,

  // Replay (spec where marked)
  replaySessionsPerAccountMax: 10, // (spec)
  replayStartsPerWindowMax: 20, // (spec) per minute per account
  replayStartWindowMs: 60_000,
  replayStepsMax: 100, // (spec)
  replayIdleMs: 3_600_000, // (spec) one hour
  replayHistoryBars: 500, // chart history pre-loaded before the start
  replaySpeedMin: 1, // (spec)
  replaySpeedMax: 50, // (spec)
  // Replay/step streaming (spec names them, values are ours): bars returned per user.
  streamBarsPerSecondMax: 1_000_000,
  streamBarsPerDayMax: 50_000_000,
  orderSizeMax: 1000, // (spec)
  orderSearchMax: 200, // (spec)
  tradeSearchMax: 500, // (spec)
  startingBalanceCents: 5_000_000, // (spec) 50,000 USD

  requestBodyBytesMax: 1_048_576,
  transportBodyBytesMax: Number.MAX_SAFE_INTEGER, // Bun's own body cap: far above ours, so ours answers (with the envelope)
  // A full or failing disk (src/service/store-health.ts): requests answer 503 with this Retry-After;
  // the store reads ok again once no such failure has been seen for storeRecoverAfterMs; one log
  // line per storeFailureLogIntervalMs at most.
  storeRetryAfterS: 10,
  storeRecoverAfterMs: 30_000,
  storeFailureLogIntervalMs: 60_000,
  // Header block, as names and values: cookies and a bearer token take a few KB. Under Bun's default
  // cap (16 KiB), which the start script raises to 64 KiB, so ours answers first (src/server.ts).
  requestHeaderBytesMax: 12_288,

  // Web login (cookie sessions live tokenTtlS, like bearer tokens) and playground strategies.
  passwordLengthMax: 256, // longer passwords are refused before hashing
  passwordLengthMin: 8, // a password changed in the console's Settings (NIST SP 800-63B's floor)
  playgroundScriptBytesMax: 200 * 1024, // (spec) script size 200 KB, UTF-8 bytes
  strategyNameMax: 100,
  strategyRunsListedMax: 200,

  // Real-time hubs (SignalR transport, src/http/hubs/signalr/). Defaults of ASP.NET Core where it has
  // one (keep-alive 15 s, client timeout 30 s, handshake 15 s); the others are ours (docs/decisions.md).
  hubKeepAliveMs: 15_000,
  hubClientTimeoutMs: 30_000,
  hubHandshakeTimeoutMs: 15_000,
  hubFrameIntervalMs: 0, // events wait this long for their flush, 0 = the turn's end (latency); completions, pings at once
  hubFrameBytesMax: 64 * 1024, // one WebSocket message; the Rust client refuses frames over 256 KiB
  hubQueueBytesMax: 1_048_576, // queued + socket-buffered output per connection before it is closed
  hubMessageBytesMax: 1_048_576, // one inbound record (ASP.NET's default is 32 KB; clients cap at 1 MiB)
  hubConnectionsMax: 1_000,
  hubInvocationsQueuedMax: 256, // invocations waiting behind a slow one on one connection
  hubRevalidateEveryMs: 30_000,
  hubNegotiatedIdsMax: 10_000,
  hubNegotiatedIdTtlMs: 60_000, // a negotiated id not used by then is forgotten
  hubCloseGraceMs: 5_000, // a closing socket that has not finished closing by then is cut
  // History scans: source bars one account may have aggregated per UTC day (ours: the spec names the
  // limit only); times a request waits for an identical one still scanning before scanning itself.
  historySourceBarsPerDayMax: 500_000_000,
  historyInFlightWaitsMax: 2,
  // Replay: the longest piece of an advance, in days of data (pieces start at one day and grow while
  // quick); fills read for one session's results (a session with more is summarised over its latest).
  replayAdvancePieceDaysMax: 30,
  replayPrepareDaysMax: 800, // days one advance has the rollup builder make at most: a jump over the longest span (two years)
  replayResultFillsMax: 1_000_000,
  // The journal (console): ended sessions listed with their statistics, newest first; a note's length;
  // equity points one session's curve is thinned to; challenges a user may have in evaluation at once
  // when starting them from the console (the admin CLI creates any).
  journalSessionsListedMax: 50,
  journalNoteCharsMax: 4000,
  journalEquityPointsMax: 2000,
  userActiveEvaluationsMax: 3,
  // A replay session's chart drawings (horizontal and trend lines together), kept on the server.
  replayDrawingsMax: 200,

  // Playground runs: a run's captured output (first lines kept up to a count and a byte budget);
  // trades kept in a stored result (statistics cover all) and shown while running (the most recent);
  // points of the equity curve (per bucket of bars the lowest, highest and last close, the first bar
  // and the end: service/playground/equity-curve.ts).
  playgroundLogLinesMax: 2000,
  playgroundLogBytesMax: 256 * 1024,
  playgroundLogLineCharsMax: 2000,
  playgroundTradesKeptMax: 5000,
  playgroundTradesLiveMax: 100,
  // Every trade of a run is stored packed (44 bytes each, store/playground-runs.ts) up to this many,
  // and served in pages (GET executions/:id/trades) of at most the page size.
  playgroundTradesStoredMax: 200_000,
  playgroundTradesPageMax: 1000,
  playgroundTradesPerChunk: 1000, // trades a stored chunk holds: a page reads one or two chunks (44 KB each)
  playgroundContextTimeframesMax: 3,
  // What the server accepts from a child in one message (its word is not trusted); stored bars sent
  // in answer to one `need` (the bar asked for plus look-ahead bars that can trigger).
  playgroundActionsPerBatchMax: 100_000,
  playgroundFineBarsPerAnswerMax: 65_536,
  playgroundErrorTextCharsMax: 16_384,
  playgroundLogLinesPerMessageMax: 10_000,
  // Per-user growth (docs/decisions.md, "Playground"): what one user may keep on disk, and how fast.
  strategiesPerUserMax: 200,
  strategyBytesPerUserMax: 5 * 1024 * 1024, // code + name + params (UTF-8) of all the user's strategies
  strategySavesPerWindowMax: 30,
  strategySaveWindowMs: 60_000,
  playgroundRunsKeptPerUserMax: 500, // ended runs beyond the newest 500 are deleted, oldest first
  // Cluster (DATABASE_URL): a node holds a live session under a lease this long, renewed this often;
  // a dead node's sessions move once its leases expire (docs/decisions.md, "Cluster").
  sessionLeaseTtlMs: 10_000,
  sessionLeaseRenewMs: 2_500,
  // A forwarded request's signature is good this long either side of the receiving node's clock
  // (it also names the body's hash, the account and the credential: src/http/shared/forward.ts).
  forwardSkewMs: 10_000,
  // Imported market data in PostgreSQL reaches each node's local copy on the import's notification,
  // and at the latest this often (a notification lost while a node's listener reconnected).
  marketDataSyncMs: 30_000,
  // A drain (SIGTERM): how long a node waits for requests in flight while still listening (answering
  // /health 503), then for answers still streaming (event streams) before it cuts them.
  drainRequestsMaxMs: 30_000,
  drainStreamsMaxMs: 5_000,
  sseKeepAliveMs: 5_000, // a comment line on an event stream silent this long (Bun closes idle connections after 10 s)
  replayPlayLookMsMax: 1_000, // a playing session looks at the clock at least this often: a slow rate's bar is never later than this
  playgroundBusyRetryAfterS: 5, // Retry-After of a run or speed change refused for want of a runner
  // Runs as jobs in the store (src/service/jobs/, src/service/playground/run-worker.ts): the running
  // node writes progress and a heartbeat this often and applies stop and pace set by any node; every
  // node claims queued runs and fails runs whose node went silent; a node streaming another node's
  // run polls its row.
  playgroundHeartbeatMs: 300,
  playgroundClaimIntervalMs: 500,
  playgroundRunStaleMs: 30_000, // generous: far above a heartbeat late on a loaded machine
  playgroundRemotePollMs: 250,
  // An optimisation's combination whose node went silent goes back to the queue (the same job runs
  // anywhere, with the same fills) this many times; then it fails, and its optimisation with it.
  playgroundCombinationRequeuesMax: 2,
  // Optimisations (src/service/playground/optimize.ts): combinations (runs) one may queue, a user per
  // UTC day, optimisations kept per user (with their runs), combinations per page, walk-forward windows.
  playgroundOptimizeCombinationsMax: 500,
  playgroundOptimizeCombinationsPerDayMax: 5000,
  playgroundOptimizationsKeptPerUserMax: 20,
  playgroundOptimizePageMax: 500,
  playgroundOptimizationsPageMax: 100, // GET optimizations: a page of the user's optimisations (20 are kept)
  playgroundWalkForwardWindowsMax: 24,
  playgroundOptimizePollMs: 250, // the optimisation's event stream reads its progress this often

  // The live profile's replay clock and History (docs/decisions.md, "Live profile"): an end bound this close
  // to the wall clock (or after it) is a client's "now", rounded down; the live gateway's History rate
  // (50 requests per 30 s); the scan windows of its week and month bars (units 5 and 6).
  liveNowToleranceMs: 3_600_000,
  historyLiveRequestsPerWindowMax: 50,
  historyLiveWindowMs: 30_000,
  historyScanWeekDays: 728, // 104 weekly bars
  historyScanMonthDays: 1_826, // five years: 60 monthly bars
  // Hardening round two, the cluster: every wait has a bound (docs/decisions.md, "Cluster").
  // A serving node's PostgreSQL connections (src/store/sql-postgres.ts PgBounds): the server cancels a
  // statement or a lock wait past these, and ends a session idle inside a transaction past
  // pgIdleInTransactionMs, below the 7.5 s between a lease's last renewal and its expiry, so a paused
  // node's open transaction frees the session's rows before its lease runs out; the client gives up
  // a statement or a transaction a server or network that stopped answering never answers.
  pgStatementTimeoutMs: 10_000,
  pgLockTimeoutMs: 3_000,
  pgIdleInTransactionMs: 5_000,
  pgClientStatementMs: 15_000,
  pgClientTransactionMs: 30_000,
  pgConnectTimeoutS: 5,
  // The forward hop (src/http/shared/forward.ts): waits while the owner's lease is live (looked at
  // this often), answers 503 once it lapses (a paused or dead owner), and at most forwardTimeoutMs.
  forwardLeaseCheckMs: 1_000,
  forwardTimeoutMs: 30_000,
  // /health looks at the store itself (src/service/store-health.ts): a read, or while failures were
  // seen since its last good look a write, bounded by storeProbeTimeoutMs, at most once per interval.
  storeProbeTimeoutMs: 1_000,
  storeProbeIntervalMs: 1_000,
  sqliteFreeBytesMin: 1_048_576, // the SQLite file's filesystem counts as full below this (the write check)
  // SQLite's PRAGMA quick_check, off the request path, this often; a failure turns /health degraded.
  sqliteQuickCheckIntervalMs: 300_000,
  sqliteQuickCheckMaxMs: 120_000, // a check still running then is stopped (its worker terminated) and counts as nothing
  // Hubs: per-user caps, per node (docs/decisions.md, "Hubs"). A user running 90 bots with both hubs
  // open stays under 200 connections.
  hubConnectionsPerUserMax: 200,
  hubNegotiatedIdsPerUserMax: 200, // pending (unused) negotiated ids per user; its own oldest goes first
  hubNegotiationsPerAddressMax: 120, // negotiations without a bearer token per client address per window
  hubNegotiationWindowMs: 60_000,
  // Stateful reconnect: messages sent and not yet acknowledged per connection (ASP.NET's buffer is
  // 100,000 bytes and holds the writer back; ours closes past it); how long a connection whose socket
  // dropped waits for its client (ASP.NET's DisconnectTimeout default).
  hubResendBufferBytesMax: 512 * 1024,
  hubReconnectGraceMs: 15_000,

  // Hardening round two (docs/decisions.md, "Playground"): POST optimize per user a
  // minute, every request counted (refused or not), as strategy saves are.
  playgroundOptimizeStartsPerWindowMax: 30,
  playgroundOptimizeStartWindowMs: 60_000,
  // Log lines waiting for a pipe or socket on stderr (src/log.ts); beyond it lines are dropped and counted.
  logQueuedBytesMax: 1_048_576,
  // The rollup warm-up's failing days (a full disk): one log line per kind of failure per interval,
  // with the count since; kinds beyond the bound are counted as one.
  warmupFailureLogIntervalMs: 60_000,
  warmupFailureKindsMax: 16,
  // The journal's notes (src/service/journal.ts): a new note past a session's or a user's count is
  // refused, as is a write that would take the user's notes past their bytes (UTF-8; an edit counts
  // its new text in place of its old). 1,000 notes of 4,000 characters added 15.7 MB before.
  journalNotesPerSessionMax: 500,
  journalNotesPerUserMax: 5000,
  journalNoteBytesPerUserMax: 5 * 1024 * 1024,
  // Paced playground runs beyond the paced share wait their turn (one per user, as every run) instead
  // of being refused; this many may wait, all users together, before a paced run is refused (503).
  playgroundPacedWaitingMax: 200,
  // A replay session's fills are folded (statistics, the journal's trades and curve) a page at a
  // time, a timer turn between pages (the journal's detail lists its first trades only:
  // coreLimits.journalTradesListedMax).
  replayFillsPageMax: 10_000,

  // Typed service inputs (docs/decisions.md, "Limits, tidy and tests"): how deep the server reads a runner
  // child's message (message → actions → action → value); anything nested deeper is read as invalid.
  playgroundFrameDepthMax: 4,
  // Unit-suffixed limits that lived beside their code until a tidy rule brought them here (seam-tidy):
  // how long a History scan or a replay advance holds the event loop before other requests run
  // (docs/decisions.md, "History and market data", "Replay"); a run's progress events at most this
  // often (the last before `done` always goes out), and a running execution's view shared by its
  // readers this long (a client polling at 50 Hz otherwise cost as much CPU as the run's own bars);
  // the earlier family's Auth/validate renews a token with less than this left (spec: "near
  // expiry"); characters of JSON per NOTIFY part between nodes (under its 8000 bytes: the JSON is
  // ASCII-escaped).
  historySliceMs: 4, // 20 until issue 32 (latency); also a loop turn's budget of sliced work (history-scan.ts slicedWork)
  replayAdvanceSliceMs: 20,
  playgroundRunEventIntervalMs: 100,
  playgroundLiveViewMaxAgeMs: 100,
  legacyTokenRenewWithinMs: 3_600_000,
  clusterEventPartChars: 6000,
  hubFlushSliceMs: 2, // latency (issue 32): a hub flush writes this long, the rest next turn (http/hubs/signalr/flush-scheduler.ts)
  playgroundSharedChildRunsMax: 50, // optimiser: runs of one shared child (docs/decisions.md, "Optimiser in seconds")
  playgroundSharedChildIdleMs: 5_000, // optimiser: a shared child no combination took this long is killed
  playgroundOptimizeBarsKeptMax: 4_000_000, // optimiser: run bars of spans kept for an optimisation's combinations
});

export interface Config {
  host: string;
  port: number;
  dataDir: string;
  /**
   * `postgres://…`: users, accounts, sessions, challenges, payouts and runs live in this shared
   * PostgreSQL (several nodes, README "Running on several machines"); null: all in DATA_DIR's SQLite.
   */
  databaseUrl: string | null;
  /** Connections this node opens to PostgreSQL at most. */
  databasePoolMax: number;
  /** This node's name in a cluster (leases, logs); random per process when unset. */
  nodeId: string;
  /** Where the other nodes reach this one (forwarded requests); `http(s)://HOST:PORT` when unset. */
  nodeUrl: string | null;
  /** PEM file of the CA that signed the other nodes' certificates, for https:// NODE_URLs; null: the system's. */
  nodeCaFile: string | null;
  /** PEM certificate (chain) and key files: this node serves HTTPS (and WSS) instead of HTTP; null: plain HTTP. */
  tlsCertFile: string | null;
  tlsKeyFile: string | null;
  /** Custom (non-preset) timeframes: off by default, as the spec's platform switch. */
  customTimeframes: boolean;
  /** First UTC day of the embedded synthetic history (YYYY-MM-DD). */
  dataStartDate: string;
  /** Last UTC day of the synthetic history; null = the last completed trading day at call time. */
  dataEndDate: string | null;
  /** Market-order slippage in ticks, adverse to the order. */
  slippageTicks: number;
  /** Use X-Forwarded-For as the client address (only behind a trusted proxy). */
  trustProxy: boolean;
  logRequests: boolean;
  /** Playground runner: ready children kept waiting (each a loaded Pyodide, about 200 MB). */
  runnerPoolSize: number;
  /** Full-speed playground executions running at once, all users together; over it a run gets HTTP 503. */
  runnerMaxConcurrent: number;
  /** Paced playground executions (speed 1–50) at once, all users together: their own share, apart from the above. */
  runnerPacedMaxConcurrent: number;
  /**
   * Of a node's full-speed runners, how many optimisations' combinations may hold together, so single
   * runs always find one; null = all but one (at least one).
   */
  runnerOptimizeMaxConcurrent: number | null;
  /** A playground execution is killed after this long (spec: 10 minutes). */
  playgroundTimeoutS: number;
  /** argon2id cost of stored passwords (web login): memory in KiB and passes. */
  passwordHash: PasswordCost;
  /** The runner bundle, the Pyodide snapshot and Deno's cache; null = `<dataDir>/runner`. */
  runnerCacheDir: string | null;
  /**
   * `symbolId` in Contract and Order responses: `plain` (`NQ`, the spec's) or `gateway` (`F.US.ENQ`).
   * This is the spec profile's; the live profile answers `gateway` unless the setting was given explicitly.
   */
  symbolIdStyle: SymbolIdStyle;
  /** SYMBOL_ID_STYLE was set: it then holds for every profile. */
  symbolIdStyleExplicit: boolean;
  /** API_PROFILE: the profile of bots whose API key has not chosen one (docs/gateway-profile.md). */
  apiProfile: ApiProfile;
  /**
   * Workers generating synthetic days' rollups off the main thread (cold replay steps, the start-up
   * warm-up); 0 = build them on the main thread.
   */
  rollupWorkers: number;
  /** User-hub events: `wrapped` (`{action, data}`, as the live gateway sends them) or `plain` (the entity, as its docs show). */
  hubEventShape: HubEventShape;
  /** A comment line on an event stream silent this long: `limits.sseKeepAliveMs`; tests shorten it to see one soon. */
  sseKeepAliveMs: number;
  /** The longest wait between two looks of a playing session: `limits.replayPlayLookMsMax`; tests shorten it to see looks soon. */
  replayPlayLookMsMax: number;
}

export type HubEventShape = 'wrapped' | 'plain';

function hubEventShape(v: string | undefined): HubEventShape {
  if (v === undefined || v === '') return 'wrapped';
  if (v === 'wrapped' || v === 'plain') return v;
  throw new Error(`HUB_EVENT_SHAPE must be one of wrapped, plain, got ${JSON.stringify(v)}`);
}

function bool(v: string | undefined, dflt: boolean): boolean {
  if (v === undefined || v === '') return dflt;
  return ['1', 'true', 'yes', 'on'].includes(v.toLowerCase());
}

function int(v: string | undefined, dflt: number, name: string): number {
  if (v === undefined || v === '') return dflt;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a non-negative integer, got ${JSON.stringify(v)}`);
  return n;
}

function apiProfile(v: string | undefined): ApiProfile {
  if (v === undefined || v === '') return 'spec';
  const p = parseApiProfile(v);
  if (!p) throw new Error(`API_PROFILE must be one of ${API_PROFILES.join(', ')}, got ${JSON.stringify(v)}`);
  return p;
}

function symbolIdStyle(v: string | undefined): SymbolIdStyle {
  if (v === undefined || v === '') return 'plain';
  const style = parseSymbolIdStyle(v);
  if (!style) throw new Error(`SYMBOL_ID_STYLE must be one of ${SYMBOL_ID_STYLES.join(', ')}, got ${JSON.stringify(v)}`);
  return style;
}

/** TLS_CERT_FILE and TLS_KEY_FILE come together or not at all. */
function tlsFiles(env: Record<string, string | undefined>): { tlsCertFile: string | null; tlsKeyFile: string | null } {
  const tlsCertFile = env.TLS_CERT_FILE || null;
  const tlsKeyFile = env.TLS_KEY_FILE || null;
  if ((tlsCertFile === null) !== (tlsKeyFile === null)) throw new Error('TLS_CERT_FILE and TLS_KEY_FILE must be set together');
  return { tlsCertFile, tlsKeyFile };
}

export function loadConfig(env: Record<string, string | undefined>): Config {
  return {
    host: env.HOST || '127.0.0.1',
    port: int(env.PORT, 8080, 'PORT'),
    dataDir: env.DATA_DIR || './data',
    databaseUrl: env.DATABASE_URL || null,
    databasePoolMax: int(env.DATABASE_POOL_MAX, 10, 'DATABASE_POOL_MAX'),
    nodeId: env.NODE_ID || `node-${crypto.randomUUID().slice(0, 8)}`,
    nodeUrl: env.NODE_URL || null,
    nodeCaFile: env.NODE_CA_FILE || null,
    ...tlsFiles(env),
    customTimeframes: bool(env.CUSTOM_TIMEFRAMES, false),
    dataStartDate: env.DATA_START_DATE || '2024-01-01',
    dataEndDate: env.DATA_END_DATE || null,
    slippageTicks: int(env.SLIPPAGE_TICKS, 0, 'SLIPPAGE_TICKS'),
    trustProxy: bool(env.TRUST_PROXY, false),
    logRequests: bool(env.LOG_REQUESTS, true),
    runnerPoolSize: int(env.RUNNER_POOL_SIZE, 1, 'RUNNER_POOL_SIZE'),
    rollupWorkers: int(env.ROLLUP_WORKERS, 1, 'ROLLUP_WORKERS'),
    runnerMaxConcurrent: Math.max(1, int(env.RUNNER_MAX_CONCURRENT, availableParallelism(), 'RUNNER_MAX_CONCURRENT')),
    // A paced child idles between bars: the share bounds its memory (about 200 MB each), not cores.
    runnerPacedMaxConcurrent: Math.max(1, int(env.RUNNER_PACED_MAX_CONCURRENT, 2 * availableParallelism(), 'RUNNER_PACED_MAX_CONCURRENT')),
    runnerOptimizeMaxConcurrent: env.RUNNER_OPTIMIZE_MAX_CONCURRENT ? Math.max(1, int(env.RUNNER_OPTIMIZE_MAX_CONCURRENT, 1, 'RUNNER_OPTIMIZE_MAX_CONCURRENT')) : null,
    playgroundTimeoutS: Math.max(1, int(env.PLAYGROUND_TIMEOUT_S, 600, 'PLAYGROUND_TIMEOUT_S')),
    // OWASP's recommended argon2id minimum (19 MiB, 2 passes); hashes made under other costs still verify.
    passwordHash: {
      memoryKiB: Math.max(64, int(env.PASSWORD_HASH_MEMORY_KIB, 19_456, 'PASSWORD_HASH_MEMORY_KIB')),
      timeCost: Math.max(1, int(env.PASSWORD_HASH_TIME_COST, 2, 'PASSWORD_HASH_TIME_COST')),
    },
    runnerCacheDir: env.RUNNER_CACHE_DIR || null,
    symbolIdStyle: symbolIdStyle(env.SYMBOL_ID_STYLE),
    symbolIdStyleExplicit: env.SYMBOL_ID_STYLE !== undefined && env.SYMBOL_ID_STYLE !== '',
    apiProfile: apiProfile(env.API_PROFILE),
    hubEventShape: hubEventShape(env.HUB_EVENT_SHAPE),
    sseKeepAliveMs: limits.sseKeepAliveMs,
    replayPlayLookMsMax: limits.replayPlayLookMsMax,
  };
}

/** Defaults for tests and embedded use. */
export function defaultConfig(overrides: Partial<Config> = {}): Config {
  return { ...loadConfig({}), logRequests: false, ...overrides };
}
