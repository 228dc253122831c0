// Sliding-window rate limits. The services see one asynchronous `RateLimiter` per limit, made by
// the instance's `RateLimits` (the topology's, topology.ts): on one node with its own store the calls
// are counted in memory (`memoryRateLimits`: `SlidingWindowLimiter`, no store write per request); on
// a shared store in the store, shared by every node (`sharedRateLimits`: `SharedRateLimiter` over
// store/rate-hits.ts). Both answer alike: a call is
// counted when allowed, a refused one is not, and Retry-After is the wait until the oldest counted
// call leaves the window.

import type { Clock } from '../lib/clock.ts';
import { RateHitStore } from '../store/rate-hits.ts';
import type { Sql } from '../store/sql.ts';
import { StreamUsageStore } from '../store/stream-usage.ts';
import { MemoryStreamingBudget, SharedStreamingBudget, type StreamingBudget } from './streaming-budget.ts';

export type RateDecision = { allowed: true } | { allowed: false; retryAfterS: number };

export interface RateLimiter {
  /** Counts one call for `key` at `nowMs` when allowed; a refused call is not counted. */
  take(key: string, nowMs: number): Promise<RateDecision>;
  /** Withdraws one call counted for `key` at `stampMs` (a `take` that turned out not to count). */
  release(key: string, stampMs: number): Promise<void>;
  /** Forgets every call counted for `key`. */
  clear(key: string): Promise<void>;
}

/** The limits of one instance: where its rate limiters and its streaming budget count. */
export interface RateLimits {
  /** Whether the counts are shared with other nodes (in the store) rather than in this process. */
  readonly shared: boolean;
  /** The limiter of one limit; `scope` names it in the store, so each scope is made once. */
  limiter(scope: string, max: number, windowMs: number): RateLimiter;
  /** Replay/step's bars per user: per second on this node, per UTC day as `shared` says. */
  streaming(clock: Clock): StreamingBudget;
}

export function memoryRateLimits(): RateLimits {
  const scopes = new Set<string>();
  return {
    shared: false,
    limiter: (scope, max, windowMs) => (claim(scopes, scope), new MemoryRateLimiter(new SlidingWindowLimiter(max, windowMs))),
    streaming: (clock) => new MemoryStreamingBudget(clock),
  };
}

/** Counted in the store, whatever its backend (the tests run it on SQLite too). */
export function sharedRateLimits(sql: Sql): RateLimits {
  const scopes = new Set<string>();
  const hits = new RateHitStore(sql);
  return {
    shared: true,
    limiter: (scope, max, windowMs) => (claim(scopes, scope), new SharedRateLimiter(hits, scope, max, windowMs)),
    streaming: (clock) => new SharedStreamingBudget(new StreamUsageStore(sql), clock),
  };
}

function claim(scopes: Set<string>, scope: string): void {
  if (scopes.has(scope)) throw new Error(`rate limit scope ${scope} made twice`);
  scopes.add(scope);
}

function retryAfterS(oldestMs: number, windowMs: number, nowMs: number): number {
  return Math.max(1, Math.ceil((oldestMs + windowMs - nowMs) / 1000));
}

/** The in-memory limiter behind the asynchronous interface. */
export class MemoryRateLimiter implements RateLimiter {
  constructor(private readonly w: SlidingWindowLimiter) {}

  async take(key: string, nowMs: number): Promise<RateDecision> {
    return this.w.take(key, nowMs);
  }

  async release(key: string, stampMs: number): Promise<void> {
    this.w.release(key, stampMs);
  }

  async clear(key: string): Promise<void> {
    this.w.clear(key);
  }
}

/**
 * Counted in the store, shared by every node. Quiet keys' old calls are dropped by each take's own
 * key and, every `sweepEvery` takes of this node, for the whole scope.
 */
export class SharedRateLimiter implements RateLimiter {
  private takesSinceSweep = 0;

  constructor(
    private readonly hits: RateHitStore,
    private readonly scope: string,
    private readonly max: number,
    private readonly windowMs: number,
    private readonly sweepEvery = 1000,
  ) {}

  async take(key: string, nowMs: number): Promise<RateDecision> {
    if (++this.takesSinceSweep >= this.sweepEvery) {
      this.takesSinceSweep = 0;
      await this.hits.sweep(this.scope, nowMs - this.windowMs);
    }
    const r = await this.hits.take({ scope: this.scope, key, max: this.max, windowMs: this.windowMs }, nowMs);
    return r.counted ? { allowed: true } : { allowed: false, retryAfterS: retryAfterS(r.oldestMs, this.windowMs, nowMs) };
  }

  async release(key: string, stampMs: number): Promise<void> {
    await this.hits.release(this.scope, key, stampMs);
  }

  async clear(key: string): Promise<void> {
    await this.hits.clear(this.scope, key);
  }
}

/** The sliding window in memory, synchronous: one process's count. */

export class SlidingWindowLimiter {
  private readonly hits = new Map<string, number[]>();
  private takesSinceSweep = 0;

  constructor(
    private readonly max: number,
    private readonly windowMs: number,
    private readonly keysMax = 100_000,
  ) {}

  /** Counts one call for `key` at `nowMs` when allowed; a refused call is not counted. */
  take(key: string, nowMs: number): RateDecision {
    // Keys of callers who went quiet are dropped every so often, so the map stays bounded.
    if (++this.takesSinceSweep >= 1000 || this.hits.size >= this.keysMax) this.sweep(nowMs);
    const cut = nowMs - this.windowMs;
    let times = this.hits.get(key);
    if (times) {
      while (times.length > 0 && times[0] <= cut) times.shift();
    } else {
      times = [];
      this.hits.set(key, times);
    }
    if (times.length >= this.max) {
      return { allowed: false, retryAfterS: retryAfterS(times[0], this.windowMs, nowMs) };
    }
    times.push(nowMs);
    return { allowed: true };
  }

  /** Withdraws one call counted for `key` at `stampMs` (a `take` that turned out not to count). */
  release(key: string, stampMs: number): void {
    const times = this.hits.get(key);
    const i = times ? times.lastIndexOf(stampMs) : -1;
    if (times && i >= 0) times.splice(i, 1);
  }

  /** Forgets every call counted for `key`. */
  clear(key: string): void {
    this.hits.delete(key);
  }

  private sweep(nowMs: number): void {
    this.takesSinceSweep = 0;
    const cut = nowMs - this.windowMs;
    for (const [k, times] of this.hits) {
      if (times.length === 0 || times[times.length - 1] <= cut) this.hits.delete(k);
    }
  }
}
