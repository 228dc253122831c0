// The ladder walk's older name: the one-feed walk now lives in the bar walker (walker.ts), which
// says why skipping quiet buckets is exact. Kept so the ladder tests and benches read unchanged.

export { type LadderHost, scanQuietBuckets, walkLadder } from './walker.ts';
