// The store contract, part 1, on SQLite and on PostgreSQL with the same calls and the same expected
// answers: users, issued JWTs, accounts, replay sessions with their orders and fills, challenges and
// payouts. Exact values and types (numbers, booleans, null), orders with ties, NULL parameters,
// conflicts, and what deletes leave. One migrated database per backend, shared by the file's tests:
// each test keeps apart by users of its own.

import { expect, it } from 'bun:test';
import type { ChallengeState } from '../../src/challenge/state.ts';
import { type Fill, type Order, OrderSide, OrderStatus, OrderType } from '../../src/engine/types.ts';
import { AccountStore } from '../../src/store/accounts.ts';
import { ChallengeStore, type PayoutRow } from '../../src/store/challenges.ts';
import { IssuedJwtStore } from '../../src/store/issued-jwts.ts';
import { JournalStore } from '../../src/store/journal.ts';
import { ReplayStore, type SessionRow } from '../../src/store/replay.ts';
import type { Sql } from '../../src/store/sql.ts';
import { type NewUser, type UserRow, UserStore } from '../../src/store/users.ts';
import { eachBackendShared } from '../support/sql-backends.ts';

/** A millisecond time past 2^31 seconds' worth of milliseconds: BIGINT on PostgreSQL. */
const T0 = 1_795_642_997_327;

let made = 0;
function newUser(tag: string, over: Partial<NewUser> = {}): NewUser {
  return { email: `${tag}-${++made}@x.io`, plan: 'pro', verified: true, disabled: false, passwordHash: null, apiKeyHash: `key-${tag}-${made}`, nowMs: T0, ...over };
}

async function userId(sql: Sql, tag: string): Promise<number> {
  return (await new UserStore(sql).insert(newUser(tag))).id;
}

function order(id: number, over: Partial<Order> = {}): Order {
  return {
    id, type: OrderType.Limit, side: OrderSide.Buy, size: 2, limitTicks: 84_000, stopTicks: null, status: OrderStatus.Open, fillVolume: 0,
    filledPriceTicks: null, createdS: 1_740_690_000, updatedS: null, slTicks: null, tpTicks: null, parentId: null, ocoId: null, triggered: false,
    prioritySeq: id, trailTicks: null, trailExtremeTicks: null, slType: null, customTag: null, linkId: null, passive: false,
    legsAnchorTicks: null, ...over,
  };
}

function fill(id: number, orderId: number, timeS: number): Fill {
  return { id, orderId, side: OrderSide.Sell, size: 1, priceTicks: 84_010, timeS, feeCents: 225, realizedPnlCents: -5_000 };
}

function session(accountId: number, userId: number, over: Partial<SessionRow> = {}): SessionRow {
  return {
    accountId, sessionId: `ses_${accountId}`, userId, symbol: 'NQ', timeframe: '1m', startS: 1_740_690_000, endS: 1_740_776_400,
    cursorS: 1_740_690_000, currentIndex: 0, totalBars: 1380, historyBars: 200, status: 'active', endReason: null, challengeId: null,
    engineCore: '{"v":1}', createdMs: T0, lastActivityMs: T0, endedMs: null, resultsJson: null,
    parentAccountId: null, branchS: null, practiceOf: null, practiceState: null, ...over,
  };
}

eachBackendShared('stores: users and issued JWTs', (db) => {
  it('users: insert answers the row (numbers, booleans), found by any ASCII case of the email, by id; unknown is null', async () => {
    const users = new UserStore(db());
    const u = await users.insert(newUser('ann', { email: 'Ann.Lee@Example.io', plan: 'free', verified: false, disabled: true, passwordHash: 'pw1', apiKeyHash: 'k-ann' }));
    expect(u).toStrictEqual({ id: u.id, email: 'Ann.Lee@Example.io', plan: 'free', verified: false, disabled: true, createdMs: T0, hasApiKey: true });
    expect(typeof u.id).toBe('number');
    expect(await users.byEmail('ann.lee@example.IO')).toStrictEqual(u);
    expect(await users.byId(u.id)).toStrictEqual(u);
    expect(await users.byEmail('nobody@example.io')).toBeNull();
    expect(await users.byId(u.id + 10_000)).toBeNull();
    expect(await users.apiKeyHashOf('ANN.LEE@example.io')).toStrictEqual({ user: u, apiKeyHash: 'k-ann' });
    expect(await users.passwordHashOf('ann.lee@example.io')).toStrictEqual({ user: u, passwordHash: 'pw1' });
    expect(await users.apiKeyHashOf('nobody@example.io')).toBeNull();
    expect(await users.passwordHashOf('nobody@example.io')).toBeNull();
  });

  it('users: an email taken in another case, or an API-key hash taken, is refused; a user without password reads null', async () => {
    const users = new UserStore(db());
    const u = await users.insert(newUser('bob', { email: 'bob@example.io', apiKeyHash: 'k-bob' }));
    await expect(users.insert(newUser('bob2', { email: 'BOB@EXAMPLE.IO' }))).rejects.toThrow();
    await expect(users.insert(newUser('bob3', { apiKeyHash: 'k-bob' }))).rejects.toThrow();
    expect(await users.passwordHashOf('bob@example.io')).toStrictEqual({ user: u, passwordHash: null });
  });

  it('users: of two sign-ups racing for one email (in two cases) exactly one is stored', async () => {
    const users = new UserStore(db());
    const tries = await Promise.allSettled([users.insert(newUser('race', { email: 'race@x.io' })), users.insert(newUser('race', { email: 'RACE@x.io' }))]);
    expect(tries.filter((t) => t.status === 'fulfilled').length).toBe(1);
    const stored = tries.find((t) => t.status === 'fulfilled') as PromiseFulfilledResult<UserRow>;
    expect(await users.byEmail('Race@X.io')).toStrictEqual(stored.value);
  });

  it('users: set hashes, patch plan and flags (an empty patch changes nothing), list by id, count', async () => {
    const users = new UserStore(db());
    const before = await users.count();
    const a = await users.insert(newUser('cat', { email: 'zoë-ünïcode@x.io' }));
    const b = await users.insert(newUser('dan'));
    expect(await users.count()).toBe(before + 2);
    expect(typeof (await users.count())).toBe('number');
    await users.setPasswordHash(a.id, 'pw-new');
    await users.setApiKeyHash(a.id, 'k-new', T0 + 5);
    expect(await users.passwordHashOf('zoë-ünïcode@x.io')).toStrictEqual({ user: a, passwordHash: 'pw-new' });
    expect((await users.apiKeyHashOf('zoë-ünïcode@x.io'))?.apiKeyHash).toBe('k-new');
    await users.update(a.id, {});
    expect(await users.byId(a.id)).toStrictEqual(a);
    await users.update(a.id, { plan: 'free', disabled: true, verified: false });
    const patched: UserRow = { ...a, plan: 'free', disabled: true, verified: false };
    expect(await users.byId(a.id)).toStrictEqual(patched);
    await users.update(a.id, { disabled: false });
    const listed = (await users.list()).filter((u) => u.id === a.id || u.id === b.id);
    expect(listed).toStrictEqual([{ ...patched, disabled: false }, b]);
    const all = await users.list();
    expect(all.map((u) => u.id)).toEqual([...all.map((u) => u.id)].sort((x, y) => x - y));
  });

  it('issued JWTs: insert, get, revoke once (true, then false), revoke all of a user, prune a day past expiry; the two tables stay apart', async () => {
    const u = await userId(db(), 'jwt');
    const other = await userId(db(), 'jwt-other');
    const tokens = new IssuedJwtStore(db(), 'tokens');
    const web = new IssuedJwtStore(db(), 'web_sessions');
    await tokens.insert(`t1-${u}`, u, T0, T0 + 3_600_000);
    await tokens.insert(`t2-${u}`, u, T0, T0 + 3_600_000);
    await tokens.insert(`t3-${u}`, other, T0, T0 + 3_600_000);
    await web.insert(`w1-${u}`, u, T0, T0 + 1_000);
    expect(await tokens.get(`t1-${u}`)).toStrictEqual({ userId: u, expiresMs: T0 + 3_600_000, revoked: false });
    expect(await web.get(`t1-${u}`)).toBeNull();
    expect(await tokens.get(`w1-${u}`)).toBeNull();
    await expect(tokens.insert(`t1-${u}`, u, T0, T0)).rejects.toThrow();
    expect(await tokens.revoke(`t1-${u}`, T0 + 1)).toBe(true);
    expect(await tokens.revoke(`t1-${u}`, T0 + 2)).toBe(false);
    expect(await tokens.revoke('no-such', T0 + 2)).toBe(false);
    expect(await tokens.get(`t1-${u}`)).toStrictEqual({ userId: u, expiresMs: T0 + 3_600_000, revoked: true });
    await tokens.revokeAllForUser(u, T0 + 3);
    expect((await tokens.get(`t2-${u}`))?.revoked).toBe(true);
    expect((await tokens.get(`t3-${u}`))?.revoked).toBe(false);
    expect((await web.get(`w1-${u}`))?.revoked).toBe(false);
    // Pruning keeps what expired less than a day ago.
    await web.prune(T0 + 1_000 + 86_400_000);
    expect(await web.get(`w1-${u}`)).not.toBeNull();
    await web.prune(T0 + 1_001 + 86_400_000);
    expect(await web.get(`w1-${u}`)).toBeNull();
    expect(await tokens.get(`t3-${u}`)).not.toBeNull();
  });
});

eachBackendShared('stores: accounts, replay, challenges', (db) => {
  it('accounts: insert answers the row; list oldest first (active only on ask); balance, rename, active; only a replay account deletes', async () => {
    const accounts = new AccountStore(db());
    const u = await userId(db(), 'acc');
    const a = await accounts.insert({ userId: u, kind: 'replay', name: 'Replay ✓ 日本', balanceCents: 5_000_000, nowMs: T0 });
    const c = await accounts.insert({ userId: u, kind: 'challenge', name: 'Challenge', balanceCents: 15_000_000, nowMs: T0 + 1 });
    expect(a).toStrictEqual({ id: a.id, userId: u, kind: 'replay', name: 'Replay ✓ 日本', balanceCents: 5_000_000, active: true, createdMs: T0 });
    expect(typeof a.id).toBe('number');
    expect(await accounts.byId(a.id)).toStrictEqual(a);
    expect(await accounts.byId(a.id + 10_000)).toBeNull();
    await accounts.setBalance(a.id, 2 ** 53 - 1);
    await accounts.setBalance(c.id, -1_234_567);
    await accounts.setActive(a.id, false);
    await accounts.rename(c.id, 'Évaluation');
    const a2 = { ...a, balanceCents: 2 ** 53 - 1, active: false };
    const c2 = { ...c, balanceCents: -1_234_567, name: 'Évaluation' };
    expect(await accounts.listForUser(u, false)).toStrictEqual([a2, c2]);
    expect(await accounts.listForUser(u, true)).toStrictEqual([c2]);
    expect(await accounts.listForUser(u + 10_000, false)).toStrictEqual([]);
    await accounts.deleteReplay(c.id);
    await accounts.deleteReplay(a.id);
    expect(await accounts.listForUser(u, false)).toStrictEqual([c2]);
  });

  it('replay: a session reads back field for field (NULLs as null); update, touch; counts and lists of active sessions', async () => {
    const accounts = new AccountStore(db());
    const replay = new ReplayStore(db());
    const u = await userId(db(), 'ses');
    const a1 = (await accounts.insert({ userId: u, kind: 'replay', name: 'r1', balanceCents: 1, nowMs: T0 })).id;
    const a2 = (await accounts.insert({ userId: u, kind: 'replay', name: 'r2', balanceCents: 1, nowMs: T0 })).id;
    const s1 = session(a1, u);
    await replay.insertSession(s1);
    expect(await replay.session(a1)).toStrictEqual(s1);
    expect(await replay.session(a2)).toBeNull();
    await expect(replay.insertSession(s1)).rejects.toThrow();
    await replay.insertSession(session(a2, u, { challengeId: 77, endReason: null }));
    expect(await replay.activeCountOf(u)).toBe(2);
    expect(await replay.activeCountOf(u + 10_000)).toBe(0);
    await replay.touch(a1, T0 + 9);
    expect(await replay.session(a1)).toStrictEqual({ ...s1, lastActivityMs: T0 + 9 });
    const moved = { accountId: a1, cursorS: 1_740_690_060, currentIndex: 1, engineCore: '{"v":2,"é":"✓"}', status: 'ended' as const, endReason: 'end of data', lastActivityMs: T0 + 10, endedMs: T0 + 10 };
    await replay.updateSession(moved);
    expect(await replay.session(a1)).toStrictEqual({ ...s1, ...moved });
    expect(await replay.activeCountOf(u)).toBe(1);
    const mine = (await replay.activeSessions()).filter((s) => s.userId === u);
    expect(mine).toStrictEqual([session(a2, u, { challengeId: 77 })]);
    expect(await replay.activeSessionOfChallenge(77)).toStrictEqual(session(a2, u, { challengeId: 77 }));
    expect(await replay.activeSessionOfChallenge(78)).toBeNull();
  });

  it('replay: the latest session of a challenge breaks created_ms ties by account; endedBeyond keeps the newest and each challenge\'s latest; deleteEnded', async () => {
    const accounts = new AccountStore(db());
    const replay = new ReplayStore(db());
    const u = await userId(db(), 'old');
    const ids: number[] = [];
    for (let i = 0; i < 5; i++) ids.push((await accounts.insert({ userId: u, kind: 'replay', name: `r${i}`, balanceCents: 0, nowMs: T0 })).id);
    const ch = 9_000 + ids[0];
    // Sessions 0 and 1 of the challenge share a creation time; 1 (the higher account) is its latest.
    const ended = { status: 'ended' as const, endReason: 'closed', endedMs: T0 };
    await replay.insertSession(session(ids[0], u, { ...ended, challengeId: ch, createdMs: T0 }));
    await replay.insertSession(session(ids[1], u, { ...ended, challengeId: ch, createdMs: T0 }));
    await replay.insertSession(session(ids[2], u, { ...ended, createdMs: T0 + 1 }));
    await replay.insertSession(session(ids[3], u, { ...ended, createdMs: T0 + 2 }));
    await replay.insertSession(session(ids[4], u, { createdMs: T0 + 3 }));
    expect(await replay.latestSessionOfChallenge(ch)).toBe(ids[1]);
    expect(await replay.latestSessionOfChallenge(ch + 1)).toBeNull();
    // Keeping the newest ended one (3): 2 and 0 go; 1 stays as the challenge's latest; 4 is active.
    expect((await replay.endedBeyond(u, 1)).sort((x, y) => x - y)).toStrictEqual([ids[0], ids[2]]);
    expect((await replay.endedBeyond(u, 0)).sort((x, y) => x - y)).toStrictEqual([ids[0], ids[2], ids[3]]);
    expect(await replay.endedBeyond(u, 10)).toStrictEqual([]);
    await replay.upsertOrders(ids[2], [order(1)]);
    await replay.insertFills(ids[2], [fill(1, 1, 1_740_690_000)]);
    await replay.deleteEnded(ids[2]);
    await replay.deleteEnded(ids[4]);
    expect(await replay.session(ids[2])).toBeNull();
    expect(await replay.order(ids[2], 1)).toBeNull();
    expect(await replay.searchFills(ids[2], 0, Number.MAX_SAFE_INTEGER, 10)).toStrictEqual([]);
    expect(await replay.session(ids[4])).not.toBeNull();
  });

  it('replay: an ended session keeps its statistics (a live one never); the journal\'s notes count per user and session, in UTF-8 bytes, less the note a write replaces', async () => {
    const accounts = new AccountStore(db());
    const replay = new ReplayStore(db());
    const notes = new JournalStore(db());
    const u = await userId(db(), 'kept');
    const ids = [0, 0, 0];
    for (let i = 0; i < 3; i++) ids[i] = (await accounts.insert({ userId: u, kind: 'replay', name: `k${i}`, balanceCents: 0, nowMs: T0 })).id;
    await replay.insertSession(session(ids[0], u, { status: 'ended', endReason: 'ended', endedMs: T0 }));
    await replay.insertSession(session(ids[1], u));
    await replay.keepResults(ids[0], '{"totalTrades":3,"é":"✓"}');
    await replay.keepResults(ids[1], '{"totalTrades":9}');
    expect((await replay.session(ids[0]))?.resultsJson).toBe('{"totalTrades":3,"é":"✓"}');
    expect((await replay.session(ids[1]))?.resultsJson).toBeNull();
    expect((await replay.endedOf(u, 10)).map((r) => r.resultsJson)).toStrictEqual(['{"totalTrades":3,"é":"✓"}']);
    expect(await notes.usage(u, ids[0], 0)).toStrictEqual({ count: 0, bytes: 0, inSession: 0, replaces: false });
    await notes.put(ids[0], 0, 'é', T0);
    await notes.put(ids[0], 1, 'abc', T0);
    await notes.put(ids[1], 1, '😀', T0);
    // Another user's notes and a session without a row count for nobody here.
    const other = await userId(db(), 'kept-other');
    const theirs = (await accounts.insert({ userId: other, kind: 'replay', name: 'o', balanceCents: 0, nowMs: T0 })).id;
    await replay.insertSession(session(theirs, other));
    await notes.put(theirs, 0, 'zzzz', T0);
    expect(await notes.usage(u, ids[0], 5)).toStrictEqual({ count: 3, bytes: 9, inSession: 2, replaces: false });
    expect(await notes.usage(u, ids[0], 1)).toStrictEqual({ count: 2, bytes: 6, inSession: 1, replaces: true });
    expect(await notes.usage(u, ids[1], 1)).toStrictEqual({ count: 2, bytes: 5, inSession: 0, replaces: true });
    expect(await notes.usage(u, ids[2], 0)).toStrictEqual({ count: 3, bytes: 9, inSession: 0, replaces: false });
  });

  it('replay: orders upsert (a conflict rewrites the moving fields only), read one, search newest first with ties by id and inclusive bounds', async () => {
    const replay = new ReplayStore(db());
    const u = await userId(db(), 'ord');
    const a = (await new AccountStore(db()).insert({ userId: u, kind: 'replay', name: 'r', balanceCents: 0, nowMs: T0 })).id;
    const o1 = order(1, { createdS: 100 });
    const o2 = order(2, { createdS: 200, type: OrderType.Stop, side: OrderSide.Sell, limitTicks: null, stopTicks: -2_147_483_648, slTicks: 40, tpTicks: 80 });
    const o3 = order(3, { createdS: 200, type: OrderType.Market, limitTicks: null, parentId: 2, ocoId: 4, status: OrderStatus.Pending });
    await replay.upsertOrders(a, [o1, o2, o3]);
    expect(await replay.order(a, 2)).toStrictEqual(o2);
    expect(await replay.order(a, 9)).toBeNull();
    // A conflict: status, fill and trigger change; type, side and creation time stay as first written.
    const filled = { ...o1, status: OrderStatus.Filled, fillVolume: 2, filledPriceTicks: 84_000.5, updatedS: 150, triggered: true, size: 3 };
    await replay.upsertOrders(a, [{ ...filled, type: OrderType.Stop, side: OrderSide.Sell, createdS: 999 }]);
    expect(await replay.order(a, 1)).toStrictEqual(filled);
    expect(await replay.searchOrders(a, 0, 1_000, 10)).toStrictEqual([o3, o2, filled]);
    expect(await replay.searchOrders(a, 100, 200, 2)).toStrictEqual([o3, o2]);
    expect(await replay.searchOrders(a, 101, 199, 10)).toStrictEqual([]);
    expect(await replay.searchOrders(a, 100, 100, 10)).toStrictEqual([filled]);
    expect(await replay.searchOrders(a + 10_000, 0, 1_000, 10)).toStrictEqual([]);
  });

  it("replay: the gateway's order fields (trail, extreme, stop-loss type, tag, link) round trip; a ratchet and a link rewrite theirs; a tag is unique per account", async () => {
    const replay = new ReplayStore(db());
    const u = await userId(db(), 'gw');
    const accounts = new AccountStore(db());
    const a = (await accounts.insert({ userId: u, kind: 'replay', name: 'r', balanceCents: 0, nowMs: T0 })).id;
    const b = (await accounts.insert({ userId: u, kind: 'replay', name: 'r2', balanceCents: 0, nowMs: T0 })).id;
    const trail = order(1, { type: OrderType.TrailingStop, side: OrderSide.Sell, limitTicks: null, stopTicks: 83_990, trailTicks: 10, trailExtremeTicks: 84_000, customTag: 'sig-1' });
    const entry = order(2, { slTicks: 8, tpTicks: 16, slType: OrderType.TrailingStop, customTag: null, status: OrderStatus.Rejected, updatedS: 1_740_690_001 });
    await replay.upsertOrders(a, [trail, entry]);
    expect(await replay.order(a, 1)).toStrictEqual(trail);
    expect(await replay.order(a, 2)).toStrictEqual(entry);
    const moved = { ...trail, stopTicks: 84_010, trailExtremeTicks: 84_020, trailTicks: 10, linkId: 1 };
    await replay.upsertOrders(a, [moved]);
    expect(await replay.order(a, 1)).toStrictEqual(moved);
    expect([await replay.hasOrderTagged(a, 'sig-1'), await replay.hasOrderTagged(a, 'sig-2'), await replay.hasOrderTagged(b, 'sig-1')]).toStrictEqual([true, false, false]);
    await replay.upsertOrders(b, [order(1, { customTag: 'sig-1' })]);
    await expect(replay.upsertOrders(a, [order(3, { customTag: 'sig-1' })])).rejects.toThrow();
  });

  it('replay: fills insert once (a second id is refused), search newest first with ties by id', async () => {
    const replay = new ReplayStore(db());
    const u = await userId(db(), 'fill');
    const a = (await new AccountStore(db()).insert({ userId: u, kind: 'replay', name: 'r', balanceCents: 0, nowMs: T0 })).id;
    const f = [fill(1, 1, 300), fill(2, 1, 400), fill(3, 2, 400)];
    await replay.insertFills(a, f);
    await replay.insertFills(a, []);
    await expect(replay.insertFills(a, [fill(2, 1, 500)])).rejects.toThrow();
    expect(await replay.searchFills(a, 0, 1_000, 10)).toStrictEqual([f[2], f[1], f[0]]);
    expect(await replay.searchFills(a, 300, 400, 2)).toStrictEqual([f[2], f[1]]);
    expect(await replay.searchFills(a, 300, 300, 10)).toStrictEqual([f[0]]);
    // The replay results read every fill with the widest bounds there are.
    expect(await replay.searchFills(a, 0, Number.MAX_SAFE_INTEGER, 2)).toStrictEqual([f[2], f[1]]);
    // A fold pages them oldest first by id, between the lowest and highest.
    expect(await replay.fillIdRange(a)).toStrictEqual({ lo: 1, hi: 3 });
    expect(await replay.fillIdRange(a + 10_000)).toStrictEqual({ lo: 0, hi: 0 });
    expect(await replay.fillsAfter(a, 0, 2)).toStrictEqual([f[0], f[1]]);
    expect(await replay.fillsAfter(a, 2, 2)).toStrictEqual([f[2]]);
    expect(await replay.fillsAfter(a, 3, 2)).toStrictEqual([]);
  });

  it('challenges: state as JSON with a version; save with the expected version is a compare-and-set; payouts newest first, ties by insertion', async () => {
    const challenges = new ChallengeStore(db());
    const u = await userId(db(), 'ch');
    const a = (await new AccountStore(db()).insert({ userId: u, kind: 'challenge', name: 'c', balanceCents: 0, nowMs: T0 })).id;
    const state = { version: 1, planKey: '50k', status: 'active', balanceCents: 5_000_000, floorCents: 4_800_000, drawdownLocked: false, currentTradeDate: null, note: 'ünï ✓' } as unknown as ChallengeState;
    await challenges.insert(a, '50k', state, T0);
    await expect(challenges.insert(a, '50k', state, T0)).rejects.toThrow();
    expect(await challenges.get(a)).toStrictEqual({ accountId: a, planKey: '50k', state, version: 1 });
    expect(await challenges.get(a + 10_000)).toBeNull();
    const s2 = { ...state, balanceCents: 5_100_000 } as ChallengeState;
    expect(await challenges.save(a, s2, 1)).toBe(true);
    expect(await challenges.save(a, state, 1)).toBe(false);
    expect(await challenges.save(a, s2)).toBe(true);
    expect(await challenges.save(a + 10_000, s2)).toBe(false);
    expect(await challenges.get(a)).toStrictEqual({ accountId: a, planKey: '50k', state: s2, version: 3 });
    const p = (id: string, ms: number): PayoutRow => ({ id: `${id}-${a}`, accountId: a, amountCents: 100_000, balanceBeforeCents: 5_100_000, balanceAfterCents: 5_000_000, status: 'paid', simTradeDate: 20_150, requestedMs: ms });
    await challenges.insertPayout(p('p1', T0));
    await challenges.insertPayout(p('p2', T0 + 5));
    await challenges.insertPayout(p('p3', T0));
    await expect(challenges.insertPayout(p('p1', T0))).rejects.toThrow();
    expect(await challenges.payouts(a)).toStrictEqual([p('p2', T0 + 5), p('p3', T0), p('p1', T0)]);
    expect(await challenges.payouts(a + 10_000)).toStrictEqual([]);
  });

  it('challenges: of two saves racing from the same version exactly one writes', async () => {
    const challenges = new ChallengeStore(db());
    const u = await userId(db(), 'cas');
    const a = (await new AccountStore(db()).insert({ userId: u, kind: 'challenge', name: 'c', balanceCents: 0, nowMs: T0 })).id;
    const state = (n: number) => ({ version: 1, planKey: '50k', balanceCents: n }) as unknown as ChallengeState;
    await challenges.insert(a, '50k', state(0), T0);
    const wrote = await Promise.all([1, 2, 3, 4].map((n) => challenges.save(a, state(n), 1)));
    expect(wrote.filter(Boolean).length).toBe(1);
    const row = await challenges.get(a);
    expect(row).toStrictEqual({ accountId: a, planKey: '50k', state: state(wrote.indexOf(true) + 1), version: 2 });
  });

  it('payouts written at once still take one insertion order (equal times: newest insert first)', async () => {
    const challenges = new ChallengeStore(db());
    const u = await userId(db(), 'pay');
    const a = (await new AccountStore(db()).insert({ userId: u, kind: 'challenge', name: 'c', balanceCents: 0, nowMs: T0 })).id;
    const p = (i: number): PayoutRow => ({ id: `race${i}-${a}`, accountId: a, amountCents: i, balanceBeforeCents: 0, balanceAfterCents: 0, status: 'paid', simTradeDate: 1, requestedMs: T0 });
    await Promise.all(Array.from({ length: 8 }, (_, i) => challenges.insertPayout(p(i))));
    const seqs = await db().all<{ id: string; seq: number }>('SELECT id, seq FROM payouts WHERE account_id = $a ORDER BY seq DESC', { a });
    expect(new Set(seqs.map((r) => r.seq)).size).toBe(8);
    expect((await challenges.payouts(a)).map((r) => r.id)).toStrictEqual(seqs.map((r) => r.id));
  });
});
