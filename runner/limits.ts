// The runner's limits, unit-suffixed: its own catalogue, since runner/ imports nothing of src/ (the
// server's are in src/config.ts; the sandbox's per-child caps come from the server, SandboxLimits).

/**
 * What a child loaded ahead of need for a single run prefaults: a year of 1-minute bars keeps about
 * 20 MB of columns, 11 days of 1-second bars about 50 MB. Each first touch of a page is a page fault
 * (5–15 µs here, zeroing included), paid during the run otherwise.
 */
export const PREFAULT_MB = 64;

/**
 * The JS heap's young generation, MB a semi-space. A child's JS garbage is small and short-lived
 * (call results, order records); V8's default lets the young generation grow to 16 MB and hands its
 * pages back after collections, so a long run kept faulting in fresh pages (about 5,000 for a year
 * of sma_cross). At 2 MB the same few pages stay mapped and in cache: about 1,500 faults, and 7–9%
 * less child CPU (bench/playground-child.bench.ts).
 */
export const YOUNG_SEMI_SPACE_MB = 2;

/** A snapshot-building child's frame (the snapshot itself). */
export const SNAPSHOT_FRAME_BYTES_MAX = 256 * 1024 * 1024;
// Bounds on a stuck child, not estimates of speed: both must hold on a loaded machine, where a
// 5 s snapshot build takes a minute and a 0.5 s restore 20 s (load average 10-15 on 2 cores).
export const SNAPSHOT_BUILD_TIMEOUT_MS = 600_000;
export const READY_TIMEOUT_MS = 180_000;
/** A serving child's frames are small: actions, logs, fine-bar requests. */
export const SERVE_FRAME_BYTES_MAX = 4 * 1024 * 1024;
export const SERVE_TOTAL_BYTES_MAX = 64 * 1024 * 1024;

/** A child's stderr kept for its failure report: the first and the last this many bytes. */
export const STDERR_TAIL_BYTES = 8192;
