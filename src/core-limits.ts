// The limits of the pure core (lib, domain, data, engine) and of the wire shapes, unit-suffixed, in
// one place. These layers may not import config.ts (it reads the environment and imports the domain),
// and the runner child bundles src/engine for a browser target, so their limits live in this
// import-free file; config.ts spreads them into `limits`, the one catalogue of every limit. Values the
// spec fixes are marked (spec).

import { daysFromCivil } from './lib/civil-date.ts';

export const coreLimits = Object.freeze({
  // Engine: prices beyond ±1e9 ticks are refused so that legs and sentinels never collide in Int32.
  priceTicksAbsMax: 1_000_000_000,
  bracketTicksMax: 1_000_000,

  // Bar columns: times and volumes are Uint32, prices Int32 ticks.
  barTimeSMax: 0xffff_ffff,
  barVolumeMax: 0xffff_ffff,
  barPriceTicksAbsMax: 0x7fff_ffff,
  importFieldsPerLineMax: 64, // fields recorded per line; extra fields are counted but not kept
  rollupCacheBytesMax: 32 * 1024 * 1024, // rollups held in memory (a 1 m day is ~33 KB, a 1 h day ~0.6 KB)
  rollupBuildsQueuedMax: 8_192, // requests waiting for the rollup builder (a cold two-year jump on every instrument is ~5,000 instrument-days)

  // Synthetic generator: days outside [2007-01-01, 2099-12-31] are refused (the DST rules hold from 2007).
  generatorDayMin: daysFromCivil(2007, 1, 1),
  generatorDayMax: daysFromCivil(2099, 12, 31),
  generatorGarchVarianceMax: 6, // a parameter of the price model: changing it changes every generated bar
  generatorIntervalsPerDayMax: 4, // open intervals of trading hours in one UTC day

  // (spec) Replay maximum counts of a timeframe, checked on the canonical form.
  timeframeFixedWidthDaysMax: 30,
  timeframeWeeksMax: 52,
  timeframeMonthsMax: 12,
  timeframeYearsMax: 5,

  jwtLengthCharsMax: 4096, // no token of ours comes near this; longer ones are refused before any decoding
  jwtVerifiedCacheEntriesMax: 10_000, // per kind: a few MB at most, far more than the live bots of an instance

  // Limits the wire shapes state (http/<family>/shapes.ts, which the console type-checks and so may
  // not import config.ts): a strategy's params, a span's years, an equity curve's points.
  replaySpanYearsMax: 2, // (spec) endDate at most 2 years after startDate (same calendar date)
  replayInstrumentsMax: 4, // instruments of one session over several (Replay/start's instrumentSymbols, addInstrument)
  playgroundInstrumentsMax: 4, // a playground run's instrumentSymbols, the main one included
  strategyParamsMax: 50,
  strategyParamKeyMax: 64,
  strategyParamStringMax: 1_000,
  playgroundEquityPointsMax: 2000,

  // The gateway's order model in the engine (trailing stops, custom tags): a trail distance is a
  // bracket-sized distance; a tag is the client's own key (bots put a signal id or a UUID there).
  trailTicksMax: 1_000_000,
  customTagCharsMax: 128,
  // The journal (docs/decisions.md, "Console"): its detail lists a session's first round
  // trips only (its statistics count every one), as a playground run's record keeps its first 5,000.
  journalTradesListedMax: 5000,

  // Unit-suffixed limits that lived beside their code until a tidy rule brought them here (seam-tidy):
  // the synthetic generator's reopen gaps after the daily halt and the weekend, as seconds of
  // trading; an import reports its progress every this many lines (a power of two: a mask test).
  generatorHaltGapS: 20,
  generatorWeekendGapS: 120,
  importProgressEveryLines: 1 << 16,
  // A journal that teaches (issue 30, src/service/journal-review.ts, journal-tags.ts): tags on one
  // session or one trade, a tag's length in characters, tag rows one user's sessions hold in all (the
  // wire shapes state these); stop orders read for the initial stops of one session's trades; UTC
  // days of stored bars read for one trade's excursions (a trade held longer reads its first days).
  journalTagsPerTargetMax: 10,
  journalTagCharsMax: 32,
  journalTagRowsPerUserMax: 20_000,
  journalStopOrdersReadMax: 20_000,
  journalExcursionDaysMax: 31,

  // desk (issue 30): the console's own read of a live session's bars (POST
  // /api/auth/replay-sessions/:accountId/bars), counted apart from History's, so a trader skipping
  // through a day never spends a bot's History budget; a month of 1 m bars is one request.
  consoleSessionBarsRequestsPerWindowMax: 600,
  consoleSessionBarsWindowMs: 60_000,
  consoleSessionBarsPerRequestMax: 50_000,

  // Drawings and the risk/reward tool (issue 30): a text note's length on the chart, in characters
  // (config.ts's file length is ratcheted, so the wire-shape limit lives here).
  drawingTextCharsMax: 200,
  // Latency under load (issue 32, lat): a call's hub events are fanned out after it answered, this
  // long a loop turn, the rest next turn (service/events/fanout.ts).
  replayEventSliceMs: 2,
  // History off the loop (issue 32, hw): History answers over 1,000 bars are encoded by this many
  // workers (http/shared/bars-worker.ts); a worker already holding `barsWorkerQueuedMax` answers, or
  // silent for `barsWorkerAnswerMsMax` (then replaced), leaves the answer to the sliced path.
  barsWorkers: 1,
  barsWorkerQueuedMax: 8,
  barsWorkerAnswerMsMax: 10_000,
  barsWorkerNice: 10, // the workers' CPU priority on Linux (0 the process's, 19 the lowest)
  // Replay/branch (issue 30): how many days before a branch's time it looks for the session's last
  // bar (a time in a gap: a daily halt, a weekend, a holiday) to branch at that bar's close.
  branchGapLookbackDaysMax: 7,
  // The fan-out's bound (issue 32): past this many events waiting, a call hands its events over by
  // publishing the queue down to the bound first (src/service/events/fanout.ts), delaying its own answer
  // instead of letting memory and every subscriber's lateness grow without end.
  replayEventQueuedMax: 50_000,
  // Bun.serve closes a connection whose request has not been answered for idleTimeout seconds (10 by
  // default), which cut forwarded requests waiting out a paused owner's 10 s lease: the client saw a
  // reset instead of the 503. Above every bounded wait of a request (the hop, a PostgreSQL transaction).
  httpIdleTimeoutS: 60,
  // Server CPU per request (issue 32, cpu): a serving node's WAL is checkpointed by a worker thread
  // this often (src/store/wal-checkpoints.ts); its own commits checkpoint only once the WAL holds the
  // backstop's pages (SQLite's default of 1,000 held the event loop 5–120 ms a time under load).
  sqliteCheckpointIntervalMs: 50,
  sqliteWalBackstopPages: 10_000,
  sqliteCheckpointStopWaitMs: 5_000, // a checkpointer that has not closed its connection by then is ended
  authPrincipalsKeptMax: 10_000, // bearer tokens whose user and row are kept between calls (src/service/auth-principals.ts)
});
