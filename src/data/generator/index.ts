// The deterministic synthetic market: bars at an instrument's stored resolution for any UTC day,
// the same on every machine, so the server is useful on its first start with no data of the user's.
//
// The model, one part per file (each states its assumptions in its header):
// - calendar.ts: the origin day (2024-01-01), the range of days served and the span to generate.
//   Holidays are not modelled: every weekday trades its full session.
// - daily-anchors.ts: the latent price at each UTC midnight, a GARCH-like daily walk inside a
//   per-symbol band, computed lazily in day order from the origin and cached per symbol.
// - intraday.ts: one UTC day's walk, pinned to the next day's anchor by a Brownian bridge, and its bars.
// - profiles.ts: per-symbol bands and volumes, intraday volatility shapes and scheduled release times.
// - prng.ts: seeds, sfc32 and the normal and exponential tables.
//
// Determinism across machines: seeds come from (symbol, UTC day) through integer hashing and sfc32,
// and generation uses only IEEE-754 operations that are exactly rounded in every JavaScript engine
// (+ − × ÷, Math.sqrt, Math.floor). The normal and exponential tables are built at load time with a
// logarithm written in those operations; Math.log/exp/pow are never used, in any of these files.

/** Bump whenever generated output changes, so cached generated days are rebuilt. */
export const GENERATOR_VERSION = 1;

export {
  GENERATOR_ORIGIN_DAY,
  generatorSpan,
  type GeneratorSpan,
  type GeneratorSpanOptions,
} from './calendar.ts';
export { generatorAnchorTicks } from './daily-anchors.ts';
export { generateDay } from './intraday.ts';
