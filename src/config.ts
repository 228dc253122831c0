// Every limit and default of the service, unit-suffixed, in one place. Values the spec fixes are
// marked (spec); the others are our decisions, recorded in docs/decisions.md.
// Only `loadConfig` reads the environment, and only src/main.ts and the admin CLI call it.

import { availableParallelism } from 'node:os';
import { parseSymbolIdStyle, SYMBOL_ID_STYLES, type SymbolIdStyle } from './domain/symbol-id.ts';

export const limits = Object.freeze({
  tokenTtlS: 24 * 3600, // (spec) tokens live 24 hours
  apiKeyBytes: 32, // 256-bit API keys (issue: at least 128 bits)
  apiKeyLengthMax: 128,
  emailLengthMax: 254,

  // Login throttle, per sliding window (API-key and web logins counted apart): failed attempts per
  // email and per client address; logins whose secret matched, per user.
  loginFailuresPerEmailMax: 10,
  loginFailuresPerAddressMax: 30,
  loginSuccessesPerUserMax: 120, // 40 bots restarting together, three times over in one minute
  loginWindowMs: 60_000,

  validatePerAccountMax: 60, // (spec) Auth/validate 60 calls per minute per account
  validateWindowMs: 60_000,

  contractSearchMax: 50, // (spec)
  endedReplayAccountsListedMax: 50, // Account/search lists the newest ended replay accounts only

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
  replaySpanYearsMax: 2, // (spec) endDate at most 2 years after startDate (same calendar date)
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

  // Web login (cookie sessions live tokenTtlS, like bearer tokens) and playground strategies.
  passwordLengthMax: 256, // longer passwords are refused before hashing
  playgroundScriptBytesMax: 200 * 1024, // (spec) script size 200 KB, UTF-8 bytes
  strategyNameMax: 100,
  strategyParamsMax: 50,
  strategyParamKeyMax: 64,
  strategyParamStringMax: 1_000,
  strategyRunsListedMax: 200,
});

export interface Config {
  host: string;
  port: number;
  dataDir: string;
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
  /** Playground executions running at once, all users together; over it a run gets HTTP 503. */
  runnerMaxConcurrent: number;
  /** A playground execution is killed after this long (spec: 10 minutes). */
  playgroundTimeoutS: number;
  /** The runner bundle, the Pyodide snapshot and Deno's cache; null = `<dataDir>/runner`. */
  runnerCacheDir: string | null;
  /** `symbolId` in Contract and Order responses: `plain` (`NQ`, the spec's) or `gateway` (`F.US.ENQ`). */
  symbolIdStyle: SymbolIdStyle;
  /**
   * Workers generating synthetic days' rollups off the main thread (cold replay steps, the start-up
   * warm-up); 0 = build them on the main thread.
   */
  rollupWorkers: number;
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

function symbolIdStyle(v: string | undefined): SymbolIdStyle {
  if (v === undefined || v === '') return 'plain';
  const style = parseSymbolIdStyle(v);
  if (!style) throw new Error(`SYMBOL_ID_STYLE must be one of ${SYMBOL_ID_STYLES.join(', ')}, got ${JSON.stringify(v)}`);
  return style;
}

export function loadConfig(env: Record<string, string | undefined>): Config {
  return {
    host: env.HOST || '127.0.0.1',
    port: int(env.PORT, 8080, 'PORT'),
    dataDir: env.DATA_DIR || './data',
    customTimeframes: bool(env.CUSTOM_TIMEFRAMES, false),
    dataStartDate: env.DATA_START_DATE || '2024-01-01',
    dataEndDate: env.DATA_END_DATE || null,
    slippageTicks: int(env.SLIPPAGE_TICKS, 0, 'SLIPPAGE_TICKS'),
    trustProxy: bool(env.TRUST_PROXY, false),
    logRequests: bool(env.LOG_REQUESTS, true),
    runnerPoolSize: int(env.RUNNER_POOL_SIZE, 1, 'RUNNER_POOL_SIZE'),
    rollupWorkers: int(env.ROLLUP_WORKERS, 1, 'ROLLUP_WORKERS'),
    runnerMaxConcurrent: Math.max(1, int(env.RUNNER_MAX_CONCURRENT, availableParallelism(), 'RUNNER_MAX_CONCURRENT')),
    playgroundTimeoutS: Math.max(1, int(env.PLAYGROUND_TIMEOUT_S, 600, 'PLAYGROUND_TIMEOUT_S')),
    runnerCacheDir: env.RUNNER_CACHE_DIR || null,
    symbolIdStyle: symbolIdStyle(env.SYMBOL_ID_STYLE),
  };
}

/** Defaults for tests and embedded use. */
export function defaultConfig(overrides: Partial<Config> = {}): Config {
  return { ...loadConfig({}), logRequests: false, ...overrides };
}
