// The store contract, part 3, on SQLite and on PostgreSQL with the same calls and the same expected
// answers: what the cluster-wide limits count (History usage, streamed bars, sliding-window calls)
// and the session leases. One migrated database per backend, shared by the file's tests: each test
// keeps apart by keys of its own.

import { expect, it } from 'bun:test';
import { LeaseStore } from '../../src/store/leases.ts';
import type { Sql, SqlParams } from '../../src/store/sql.ts';
import { RateHitStore } from '../../src/store/rate-hits.ts';
import { StreamUsageStore } from '../../src/store/stream-usage.ts';
import { UsageStore } from '../../src/store/usage.ts';
import { eachBackendShared } from '../support/sql-backends.ts';

const DAY = 20_510;
const T0 = 1_795_642_997_327;
/** Slack for the database's clock against ours (the machine is busy: generous). */
const CLOCK_SLACK_MS = 30_000;

eachBackendShared('stores: usage and rate limits', (db) => {
  it('History usage: zeros for a day without calls, adds up per user and day', async () => {
    const usage = new UsageStore(db());
    expect(await usage.get(1, DAY)).toStrictEqual({ bars: 0, sourceBars: 0 });
    await usage.add(1, DAY, 100, 6_000);
    await usage.add(1, DAY, 2 ** 40, 0);
    await usage.add(1, DAY + 1, 5, 5);
    await usage.add(2, DAY, 7, 7);
    expect(await usage.get(1, DAY)).toStrictEqual({ bars: 100 + 2 ** 40, sourceBars: 6_000 });
    expect(await usage.get(1, DAY + 1)).toStrictEqual({ bars: 5, sourceBars: 5 });
    expect(await usage.get(2, DAY)).toStrictEqual({ bars: 7, sourceBars: 7 });
  });

  it('streamed bars: taken only within the max (exactly the max is taken), per user and day; sweep drops earlier days and counts them', async () => {
    const s = new StreamUsageStore(db());
    expect(await s.get(11, DAY)).toBe(0);
    expect(await s.addWithin(11, DAY, 11, 10)).toBe(false);
    expect(await s.get(11, DAY)).toBe(0);
    expect(await s.addWithin(11, DAY, 6, 10)).toBe(true);
    expect(await s.addWithin(11, DAY, 5, 10)).toBe(false);
    expect(await s.addWithin(11, DAY, 4, 10)).toBe(true);
    expect(await s.addWithin(11, DAY, 0, 10)).toBe(true);
    expect(await s.addWithin(11, DAY, 1, 10)).toBe(false);
    expect(await s.get(11, DAY)).toBe(10);
    expect(await s.addWithin(11, DAY + 1, 3, 10)).toBe(true);
    expect(await s.addWithin(12, DAY - 1, 3, 10)).toBe(true);
    expect(await s.addWithin(13, DAY - 2, 3, 10)).toBe(true);
    expect(await s.sweepBefore(DAY)).toBe(2);
    expect(await s.get(12, DAY - 1)).toBe(0);
    expect(await s.get(11, DAY)).toBe(10);
    expect(await s.sweepBefore(DAY)).toBe(0);
  });

  it('rate hits: counts up to max in the window (calls at one instant too), refuses with the oldest call, frees with the window', async () => {
    const r = new RateHitStore(db());
    const w = { scope: 'api', key: 'user:ü✓', max: 3, windowMs: 1_000 };
    expect(await r.take(w, T0)).toStrictEqual({ counted: true });
    expect(await r.take(w, T0)).toStrictEqual({ counted: true });
    expect(await r.take(w, T0 + 400)).toStrictEqual({ counted: true });
    expect(await r.take(w, T0 + 999)).toStrictEqual({ counted: false, oldestMs: T0 });
    // Another key and another scope count apart.
    expect(await r.take({ ...w, key: 'user:other' }, T0 + 999)).toStrictEqual({ counted: true });
    expect(await r.take({ ...w, scope: 'login' }, T0 + 999)).toStrictEqual({ counted: true });
    // At T0 + 1000 the two calls at T0 leave the window.
    expect(await r.take(w, T0 + 1_000)).toStrictEqual({ counted: true });
    expect(await r.take(w, T0 + 1_001)).toStrictEqual({ counted: true });
    expect(await r.take(w, T0 + 1_002)).toStrictEqual({ counted: false, oldestMs: T0 + 400 });
  });

  it('rate hits: release withdraws one call (none there: nothing), clear forgets a key, sweep drops a scope\'s old calls and counts rows', async () => {
    const r = new RateHitStore(db());
    const w = { scope: 'rel', key: 'k1', max: 2, windowMs: 10_000 };
    await r.take(w, T0);
    await r.take(w, T0 + 1);
    expect(await r.take(w, T0 + 2)).toStrictEqual({ counted: false, oldestMs: T0 });
    await r.release('rel', 'k1', T0);
    await r.release('rel', 'k1', T0);
    await r.release('rel', 'k1', T0 + 5);
    expect(await r.take(w, T0 + 3)).toStrictEqual({ counted: true });
    // The released call's row holds 0 hits: it is no longer the oldest.
    expect(await r.take(w, T0 + 4)).toStrictEqual({ counted: false, oldestMs: T0 + 1 });
    await r.clear('rel', 'k1');
    expect(await r.take(w, T0 + 5)).toStrictEqual({ counted: true });
    await r.take({ ...w, key: 'k2' }, T0 + 1);
    await r.take({ ...w, scope: 'rel2' }, T0 + 1);
    expect(await r.sweep('rel', T0 + 5)).toBe(2);
    expect(await r.sweep('rel', T0 + 5)).toBe(0);
    expect(await r.sweep('rel2', T0 + 1)).toBe(1);
  });

  it('concurrent adds: History usage sums every one; streamed bars take exactly up to the max', async () => {
    const usage = new UsageStore(db());
    const s = new StreamUsageStore(db());
    await Promise.all(Array.from({ length: 10 }, () => usage.add(21, DAY, 3, 1)));
    expect(await usage.get(21, DAY)).toStrictEqual({ bars: 30, sourceBars: 10 });
    const taken = await Promise.all(Array.from({ length: 12 }, () => s.addWithin(21, DAY, 1, 5)));
    expect(taken.filter(Boolean).length).toBe(5);
    expect(await s.get(21, DAY)).toBe(5);
  });

  it('rate hits: concurrent takes of one key admit exactly max', async () => {
    const r = new RateHitStore(db());
    const w = { scope: 'race', key: 'k', max: 5, windowMs: 60_000 };
    const takes = await Promise.all(Array.from({ length: 12 }, (_, i) => r.take(w, T0 + i)));
    expect(takes.filter((t) => t.counted).length).toBe(5);
  });
});

eachBackendShared('stores: session leases', (db) => {
  it('acquire takes a free lease on the database clock; another node sees the holder; the holder re-acquires and extends', async () => {
    const leases = new LeaseStore(db());
    const before = Date.now();
    const a = (await leases.acquire(101, 'node-a', 'http://127.0.0.1:1', 60_000))!;
    expect(a).toStrictEqual({ nodeId: 'node-a', nodeUrl: 'http://127.0.0.1:1', expiresMs: a.expiresMs, commits: 0 });
    expect(Number.isInteger(a.expiresMs)).toBe(true);
    expect(a.expiresMs).toBeGreaterThanOrEqual(before + 60_000 - CLOCK_SLACK_MS);
    expect(a.expiresMs).toBeLessThanOrEqual(Date.now() + 60_000 + CLOCK_SLACK_MS);
    expect(await leases.acquire(101, 'node-b', 'http://127.0.0.1:2', 60_000)).toStrictEqual(a);
    expect(await leases.holder(101)).toStrictEqual(a);
    expect(await leases.holder(102)).toBeNull();
    const again = (await leases.acquire(101, 'node-a', 'http://127.0.0.1:9', 120_000))!;
    expect(again).toMatchObject({ nodeId: 'node-a', nodeUrl: 'http://127.0.0.1:9' });
    expect(again.expiresMs).toBeGreaterThan(a.expiresMs);
    expect(await leases.extend(101, 'node-a', 60_000)).toBe(true);
    expect(await leases.extend(101, 'node-b', 60_000)).toBe(false);
    expect(await leases.extend(102, 'node-a', 60_000)).toBe(false);
  });

  it('counts the commits made under a lease (each fence), not its renewals, and keeps the count when the lease changes hands', async () => {
    const leases = new LeaseStore(db());
    await leases.acquire(111, 'node-a', 'http://a', 60_000);
    expect(await leases.extend(111, 'node-a', 60_000)).toBe(true);
    expect(await leases.extend(111, 'node-a', 60_000)).toBe(true);
    expect(await leases.extend(111, 'node-b', 60_000)).toBe(false);
    await leases.renewAll('node-a', 60_000);
    await leases.acquire(111, 'node-a', 'http://a', 60_000);
    expect((await leases.holder(111))?.commits).toBe(2);
    // Lapsed: no holder, but the row says whose it was and how far it went.
    await leases.renewAll('node-a', -1_000);
    expect(await leases.holder(111)).toBeNull();
    expect(await leases.look(111)).toMatchObject({ nodeId: 'node-a', nodeUrl: 'http://a', live: false, commits: 2 });
    expect(await leases.acquire(111, 'node-b', 'http://b', 60_000)).toMatchObject({ nodeId: 'node-b', commits: 2 });
    expect(await leases.extend(111, 'node-b', 60_000)).toBe(true);
    expect(await leases.look(111)).toMatchObject({ nodeId: 'node-b', live: true, commits: 3 });
    expect(await leases.look(112)).toBeNull();
  });

  it('nodes racing for a free lease: one takes it, and every node is told the same holder', async () => {
    const leases = new LeaseStore(db());
    const answers = await Promise.all(['n1', 'n2', 'n3', 'n4', 'n5'].map((n) => leases.acquire(401, n, `http://${n}`, 60_000)));
    const holder = await leases.holder(401);
    expect(holder).not.toBeNull();
    expect(answers).toStrictEqual(answers.map(() => holder!));
  });

  it('an expired lease reads as free, goes to the next node that asks, and its old holder can no longer extend it', async () => {
    const leases = new LeaseStore(db());
    await leases.acquire(201, 'node-a', 'http://a', -1_000);
    expect(await leases.holder(201)).toBeNull();
    // Expired but untaken: still the old holder's to extend.
    expect(await leases.extend(201, 'node-a', -1_000)).toBe(true);
    const b = await leases.acquire(201, 'node-b', 'http://b', 60_000);
    expect(b).toMatchObject({ nodeId: 'node-b', nodeUrl: 'http://b' });
    expect(await leases.holder(201)).toStrictEqual(b);
    expect(await leases.extend(201, 'node-a', 60_000)).toBe(false);
  });

  it('a lease that expires between the refused take and the look at its holder is taken, not answered as nobody\'s', async () => {
    const sql = db();
    // The other node's lease is live when the take is refused, and expires before the holder is
    // read: the store's clock moves on between the two statements, as it does on a busy machine.
    const racing: Sql = Object.create(sql);
    let refused = false;
    racing.get = async <T,>(text: string, params?: SqlParams): Promise<T | null> => {
      const r = await sql.get<T>(text, params);
      if (!refused && text.includes('INSERT INTO session_leases') && r === null) {
        refused = true;
        await sql.run('UPDATE session_leases SET expires_ms = 0 WHERE account_id = 501');
      }
      return r;
    };
    const leases = new LeaseStore(racing);
    await new LeaseStore(sql).acquire(501, 'node-a', 'http://a', 60_000);
    const taken = await leases.acquire(501, 'node-b', 'http://b', 60_000);
    expect(refused).toBe(true);
    expect(taken).toMatchObject({ nodeId: 'node-b', nodeUrl: 'http://b' });
    expect((await leases.holder(501))?.nodeId).toBe('node-b');
  });

  it('renewAll answers the node\'s accounts; release and releaseAll delete only the node\'s own leases', async () => {
    const leases = new LeaseStore(db());
    for (const a of [301, 302, 303]) await leases.acquire(a, 'node-r', 'http://r', 60_000);
    await leases.acquire(304, 'node-s', 'http://s', 60_000);
    expect((await leases.renewAll('node-r', 60_000)).sort()).toStrictEqual([301, 302, 303]);
    expect(await leases.renewAll('node-none', 60_000)).toStrictEqual([]);
    await leases.release(301, 'node-s');
    expect((await leases.holder(301))?.nodeId).toBe('node-r');
    await leases.release(301, 'node-r');
    expect(await leases.holder(301)).toBeNull();
    await leases.releaseAll('node-r');
    expect(await leases.holder(302)).toBeNull();
    expect(await leases.holder(303)).toBeNull();
    expect((await leases.holder(304))?.nodeId).toBe('node-s');
    expect(await leases.renewAll('node-r', 60_000)).toStrictEqual([]);
  });
});
