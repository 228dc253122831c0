// The rate limits and the streaming budget, alike in memory (one node) and in the store (a cluster),
// on both backends; and on PostgreSQL, two nodes (two pools on one database) cannot both admit the
// last call of a window, nor both take the last bars of a day; two nodes' services share the limits.
import { describe, expect, it } from 'bun:test';
import { defaultConfig, limits } from '../../src/config.ts';
import { ManualClock } from '../../src/lib/clock.ts';
import { INVALID } from '../../src/lib/invalid.ts';
import { secondsToUtcMidnight } from '../../src/lib/iso-time.ts';
import { memoryRateLimits, type RateLimits, sharedRateLimits } from '../../src/service/rate-limit.ts';
import { createServices, topologyFor } from '../../src/service/services.ts';
import { openDb } from '../../src/store/db.ts';
import { openPostgres } from '../../src/store/postgres.ts';
import type { Sql } from '../../src/store/sql.ts';
import { describePg, freshDatabase } from '../support/postgres.ts';
import { eachBackend } from '../support/sql-backends.ts';

const T = 1_000_000;
const MIN = 60_000;

type Op =
  | { take: string; at: number; expect: 'ok' | number }
  | { release: string; at: number }
  | { clear: string };

interface Case {
  name: string;
  max: number;
  ops: Op[];
}

/** Each take's expectation: 'ok', or refused with that Retry-After (seconds). */
const CASES: Case[] = [
  {
    name: 'sliding window: a call leaves the window windowMs after it was counted',
    max: 2,
    ops: [
      { take: 'k', at: T, expect: 'ok' },
      { take: 'k', at: T + 5, expect: 'ok' },
      { take: 'k', at: T + 6, expect: 60 },
      { take: 'k', at: T + MIN - 1, expect: 1 },
      { take: 'k', at: T + MIN, expect: 'ok' },
      { take: 'k', at: T + MIN + 4, expect: 1 },
      { take: 'k', at: T + MIN + 5, expect: 'ok' },
    ],
  },
  {
    name: 'a refused call is not counted',
    max: 1,
    ops: [
      { take: 'k', at: T, expect: 'ok' },
      { take: 'k', at: T + 30_000, expect: 30 },
      { take: 'k', at: T + 59_000, expect: 1 },
      { take: 'k', at: T + MIN, expect: 'ok' },
      { take: 'k', at: T + MIN + 30_000, expect: 30 },
    ],
  },
  {
    name: 'retryAfterS: whole seconds until the oldest call leaves, at least 1',
    max: 1,
    ops: [
      { take: 'k', at: T, expect: 'ok' },
      { take: 'k', at: T + 100, expect: 60 },
      { take: 'k', at: T + 1_000, expect: 59 },
      { take: 'k', at: T + 1_001, expect: 59 },
      { take: 'k', at: T + 58_999, expect: 2 },
      { take: 'k', at: T + 59_999, expect: 1 },
    ],
  },
  {
    name: 'keys count apart',
    max: 1,
    ops: [
      { take: 'a', at: T, expect: 'ok' },
      { take: 'b', at: T, expect: 'ok' },
      { take: 'a', at: T + 1, expect: 60 },
      { take: 'b', at: T + 2, expect: 60 },
    ],
  },
  {
    name: 'release withdraws one call at its stamp; an unknown stamp or key changes nothing',
    max: 2,
    ops: [
      { take: 'k', at: T, expect: 'ok' },
      { take: 'k', at: T + 5, expect: 'ok' },
      { take: 'k', at: T + 6, expect: 60 },
      { release: 'k', at: T + 5 },
      { take: 'k', at: T + 7, expect: 'ok' },
      { take: 'k', at: T + 8, expect: 60 },
      { release: 'k', at: T + 123 },
      { release: 'nobody', at: T },
      { take: 'k', at: T + 9, expect: 60 },
    ],
  },
  {
    name: 'release of one of two calls at the same stamp withdraws one',
    max: 2,
    ops: [
      { take: 'k', at: T, expect: 'ok' },
      { take: 'k', at: T, expect: 'ok' },
      { release: 'k', at: T },
      { take: 'k', at: T + 1, expect: 'ok' },
      { take: 'k', at: T + 2, expect: 60 },
      { release: 'k', at: T },
      { release: 'k', at: T },
      { take: 'k', at: T + 3, expect: 'ok' },
      { take: 'k', at: T + 4, expect: 60 },
    ],
  },
  {
    name: 'clear forgets the key, and only it',
    max: 1,
    ops: [
      { take: 'k', at: T, expect: 'ok' },
      { take: 'j', at: T, expect: 'ok' },
      { clear: 'k' },
      { take: 'k', at: T + 10, expect: 'ok' },
      { take: 'k', at: T + 11, expect: 60 },
      { take: 'j', at: T + 12, expect: 60 },
    ],
  },
];

async function play(rl: RateLimits, c: Case): Promise<void> {
  const l = rl.limiter('test', c.max, MIN);
  for (const [i, op] of c.ops.entries()) {
    if ('take' in op) {
      const want = op.expect === 'ok' ? { allowed: true } : { allowed: false, retryAfterS: op.expect };
      expect({ i, got: await l.take(op.take, op.at) }).toEqual({ i, got: want as never });
    } else if ('release' in op) await l.release(op.release, op.at);
    else await l.clear(op.clear);
  }
}

describe('rate limits [memory]', () => {
  for (const c of CASES) it(c.name, () => play(memoryRateLimits(), c));

  it('each scope is made once per instance', () => {
    const rl = memoryRateLimits();
    rl.limiter('history', 20, MIN);
    expect(() => rl.limiter('history', 20, MIN)).toThrow('made twice');
  });
});

eachBackend('rate limits shared through the store', (open, dialect) => {
  for (const c of CASES) it(c.name, async () => play(sharedRateLimits(await open()), c));

  it(`the topology counts in memory on SQLite, in the store on PostgreSQL (${dialect})`, async () => {
    const sql = await open();
    const topology = await topologyFor(sql, false, defaultConfig(), new ManualClock(T), () => {});
    const rl = topology.rateLimits;
    expect(rl.shared).toBe(dialect === 'postgres');
    await rl.limiter('history', 1, MIN).take('7', T);
    expect(await hitRows(sql)).toBe(dialect === 'postgres' ? 1 : 0);
    await topology.stop();
  });

  it('a take drops its key\'s expired calls; every sweepEvery takes drop the whole scope\'s', async () => {
    const sql = await open();
    const rl = sharedRateLimits(sql);
    const l = rl.limiter('test', 5, MIN);
    for (let i = 0; i < 3; i++) await l.take(`quiet${i}`, T);
    await l.take('busy', T);
    await l.take('busy', T + MIN + 1);
    expect(await hitRows(sql)).toBe(4);
    // The 1000th take of the node sweeps the scope: the quiet keys' calls go.
    for (let i = 0; i < 994; i++) await l.take(`k${i % 100}`, T + MIN - 1);
    expect(await hitRows(sql)).toBe(3 + 1 + 100);
    await l.take('busy', T + 2 * MIN);
    expect(await hitRows(sql)).toBe(1 + 1);
  });
});

async function hitRows(sql: Sql): Promise<number> {
  return Number((await sql.get<{ n: number }>('SELECT COUNT(*) AS n FROM rate_hits'))?.n);
}

describePg('rate limits across two nodes (two pools on one PostgreSQL)', () => {
  it('40 takes at once for one key, 20 through each node, max 20: exactly 20 allowed', async () => {
    const url = await freshDatabase();
    const nodes = [await openPostgres(url), await openPostgres(url)];
    try {
      const limiters = nodes.map((sql) => sharedRateLimits(sql).limiter('replay_start', 20, MIN));
      const takes = Array.from({ length: 40 }, (_, i) => limiters[i % 2].take('42', T + (i % 7)));
      const decisions = await Promise.all(takes);
      expect(decisions.filter((d) => d.allowed).length).toBe(20);
      expect(decisions.filter((d) => !d.allowed).every((d) => !d.allowed && d.retryAfterS === 60)).toBe(true);
      const counted = await nodes[0].get<{ n: number }>("SELECT SUM(hits) AS n FROM rate_hits WHERE scope = 'replay_start' AND key = '42'");
      expect(Number(counted?.n)).toBe(20);
      // Either node refuses the 41st, and both admit again once the window has passed.
      expect((await limiters[1].take('42', T + 10)).allowed).toBe(false);
      expect((await limiters[0].take('42', T + MIN + 7)).allowed).toBe(true);
    } finally {
      for (const sql of nodes) await sql.close();
    }
  });

  it('the daily streaming budget is one per user across nodes: its last bars are taken once', async () => {
    const url = await freshDatabase();
    const nodes = [await openPostgres(url), await openPostgres(url)];
    try {
      const clock = new ManualClock(NOON);
      const budgets = nodes.map((sql) => sharedRateLimits(sql).streaming(clock));
      // The day filled to one second's worth short of its bar, a second at a time, alternating nodes.
      for (let i = 0; i < DAY_MAX / SECOND_MAX - 1; i++) {
        clock.advance(1000);
        expect(await budgets[i % 2].take(7, SECOND_MAX)).toBeNull();
      }
      clock.advance(1000);
      const both = await Promise.all(budgets.map((b) => b.take(7, SECOND_MAX)));
      expect(both.filter((r) => r === null).length).toBe(1);
      expect(both.find((r) => r !== null)).toEqual({ kind: 'streaming_daily', retryAfterS: secondsToUtcMidnight(clock.nowMs()) });
    } finally {
      for (const sql of nodes) await sql.close();
    }
  });
});


// ---- The streaming budget ----

const NOON = Date.UTC(2026, 10, 25, 12);
const SECOND_MAX = limits.streamBarsPerSecondMax;
const DAY_MAX = limits.streamBarsPerDayMax;

async function streamingCases(rl: RateLimits): Promise<void> {
  const clock = new ManualClock(NOON);
  const b = rl.streaming(clock);
  const rate = { kind: 'streaming_rate', retryAfterS: 1 } as const;
  const daily = () => ({ kind: 'streaming_daily', retryAfterS: secondsToUtcMidnight(clock.nowMs()) }) as const;
  expect(await b.take(7, 0)).toBeNull();
  // The second: its bar, then refused (and not counted) until the next second; other users apart.
  expect(await b.take(7, SECOND_MAX - 10)).toBeNull();
  expect(await b.take(7, 11)).toEqual(rate);
  expect(await b.take(7, 10)).toBeNull();
  expect(await b.take(7, 1)).toEqual(rate);
  expect(await b.take(8, SECOND_MAX)).toBeNull();
  // The day: filled to 5 bars short, a second at a time.
  for (let used = SECOND_MAX; used < DAY_MAX - 5; ) {
    clock.advance(1000);
    const n = Math.min(SECOND_MAX, DAY_MAX - 5 - used);
    expect(await b.take(7, n)).toBeNull();
    used += n;
  }
  clock.advance(1000);
  expect(await b.take(7, 6)).toEqual(daily());
  expect(await b.take(7, 5)).toBeNull();
  expect(await b.take(7, 1)).toEqual(daily());
  expect(await b.take(7, 0)).toBeNull();
  // Both bars passed: the day's refusal comes first.
  clock.advance(1000);
  expect(await b.take(7, SECOND_MAX + 1)).toEqual(daily());
  // A new UTC day: a full allowance again.
  clock.set(NOON + 12 * 3600_000);
  expect(await b.take(7, SECOND_MAX)).toBeNull();
  expect(await b.take(7, 1)).toEqual(rate);
}

describe('streaming budget [memory]', () => {
  it('per second and per UTC day, refusals not counted, the daily refusal first', () => streamingCases(memoryRateLimits()));
});

eachBackend('streaming budget shared through the store', (open) => {
  it('per second and per UTC day, refusals not counted, the daily refusal first', async () => streamingCases(sharedRateLimits(await open())));

  it('the past days\' rows are dropped by the first take of a day', async () => {
    const sql = await open();
    const clock = new ManualClock(NOON);
    const b = sharedRateLimits(sql).streaming(clock);
    await b.take(7, 10);
    await b.take(8, 10);
    clock.advance(24 * 3600_000);
    await b.take(7, 10);
    const rows = await sql.all<{ user_id: number; bars: number }>('SELECT user_id, bars FROM stream_usage ORDER BY user_id');
    expect(rows.map((r) => [Number(r.user_id), Number(r.bars)])).toEqual([[7, 10]]);
  });
});

// ---- Two nodes' services on one PostgreSQL: the wiring in createServices shares the limits ----

describePg('two nodes\' services on one PostgreSQL', () => {
  it('login failures and strategy saves count once across both nodes (either node refuses the next call past the limit)', async () => {
    const url = await freshDatabase();
    const secret = new TextEncoder().encode('k-limits two nodes secret, 32 bytes+');
    const clock = new ManualClock(NOON);
    const nodes = await Promise.all(
      [0, 1].map(async () =>
        createServices({ config: defaultConfig(), clock, db: openDb(':memory:'), sql: await openPostgres(url), jwtSecret: secret, restoreSessions: false }),
      ),
    );
    try {
      const made = await nodes[0].users.create({ email: 'ann@example.com', plan: 'pro' });
      if (!made.ok) throw new Error(JSON.stringify(made));
      const userId = made.value.user.id;
      // Failed logins of one email from one address, alternating nodes: the limit's 11th is refused on either.
      for (let i = 0; i < limits.loginFailuresPerEmailAddressMax; i++) {
        const r = await nodes[i % 2].auth.login('ann@example.com', 'wrong-key', '10.1.1.1');
        expect(r).toEqual({ ok: false, error: { kind: 'invalid_credentials' } } as never);
      }
      for (const s of nodes) expect(await s.auth.login('ann@example.com', 'wrong-key', '10.1.1.1')).toEqual({ ok: false, error: { kind: 'rate_limited', retryAfterS: 60 } } as never);
      // Strategy saves count whatever their outcome: the limit's worth across both nodes, then 429 on either.
      // An empty body, as the route hands it over: every required field failed its schema.
      const empty = { name: INVALID, code: INVALID, instrument: INVALID, timeframe: INVALID, params: undefined };
      for (let i = 0; i < limits.strategySavesPerWindowMax; i++) {
        const r = await nodes[i % 2].strategies.save(userId, empty);
        expect(r.ok ? 'ok' : r.error.kind).toBe('field_required');
      }
      for (const s of nodes) expect((await s.strategies.save(userId, empty)) as unknown).toEqual({ ok: false, error: { kind: 'rate_limited', retryAfterS: 60 } });
    } finally {
      for (const s of nodes) {
        await s.shutdown();
        s.db.close();
      }
    }
  });
});
