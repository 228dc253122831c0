// The store contract for a session's chart drawings, on SQLite and on PostgreSQL with the same calls
// and the same answers: written whole, read back exactly (ticks past 2^31, negative prices, times
// past 2^31 seconds' worth of milliseconds), one row per account, cleared by an empty write.

import { expect, it } from 'bun:test';
import { AccountStore } from '../../src/store/accounts.ts';
import { type Drawings, DrawingsStore } from '../../src/store/drawings.ts';
import type { Sql } from '../../src/store/sql.ts';
import { UserStore } from '../../src/store/users.ts';
import { eachBackendShared } from '../support/sql-backends.ts';

/** A millisecond time past 2^31 seconds' worth of milliseconds: BIGINT on PostgreSQL. */
const T0 = 1_795_642_997_327;

let made = 0;
async function accountId(sql: Sql): Promise<number> {
  const u = await new UserStore(sql).insert({ email: `draw-${++made}@x.io`, plan: 'pro', verified: true, disabled: false, passwordHash: null, apiKeyHash: `key-draw-${made}`, nowMs: T0 });
  return (await new AccountStore(sql).insert({ userId: u.id, kind: 'replay', name: 'r', balanceCents: 5_000_000, nowMs: T0 })).id;
}

const LINES: Drawings = {
  hlinesTicks: [84_010, -4, 3_000_000_000],
  trends: [{ t1S: 1_740_690_000, p1Ticks: 84_000, t2S: 1_740_693_600, p2Ticks: 84_120 }, { t1S: 1_740_693_600, p1Ticks: 0, t2S: 1_740_690_000, p2Ticks: -10 }],
};

eachBackendShared('stores: replay drawings', (db) => {
  it('answers null for a session without drawings, the lines exactly as written, and replaces them whole', async () => {
    const store = new DrawingsStore(db());
    const a = await accountId(db());
    const b = await accountId(db());
    expect(await store.of(a)).toBeNull();
    await store.put(a, LINES, T0);
    await store.put(b, { hlinesTicks: [1], trends: [] }, T0 + 5);
    expect(await store.of(a)).toStrictEqual({ ...LINES, updatedMs: T0 });
    await store.put(a, { hlinesTicks: [], trends: LINES.trends.slice(1) }, T0 + 1);
    expect(await store.of(a)).toStrictEqual({ hlinesTicks: [], trends: LINES.trends.slice(1), updatedMs: T0 + 1 });
    expect(await store.of(b)).toStrictEqual({ hlinesTicks: [1], trends: [], updatedMs: T0 + 5 });
  });

  it('clears the row on an empty write and on delete', async () => {
    const store = new DrawingsStore(db());
    const a = await accountId(db());
    await store.put(a, LINES, T0);
    await store.put(a, { hlinesTicks: [], trends: [] }, T0 + 1);
    expect(await store.of(a)).toBeNull();
    await store.put(a, LINES, T0 + 2);
    await store.delete(a);
    expect(await store.of(a)).toBeNull();
    expect(await db().get<{ n: number }>('SELECT COUNT(*) AS n FROM replay_drawings WHERE account_id = $a', { a })).toEqual({ n: 0 });
  });

  it('keeps the newer kinds exactly (a note with quotes and a line break), and only when there are some', async () => {
    const store = new DrawingsStore(db());
    const a = await accountId(db());
    const shapes: Drawings = {
      hlinesTicks: [],
      trends: [],
      rects: [{ t1S: 1_740_690_000, p1Ticks: 3_000_000_000, t2S: 1_740_693_600, p2Ticks: -7 }],
      rays: [{ tS: 1_740_690_060, pTicks: 84_010 }],
      fibs: [{ t1S: 1_740_690_000, p1Ticks: 84_000, t2S: 1_740_693_600, p2Ticks: 84_400 }],
      texts: [{ tS: 1_740_690_120, pTicks: 84_005, text: 'Say "no"\nthen wait ✓' }],
    };
    await store.put(a, shapes, T0);
    expect(await store.of(a)).toStrictEqual({ ...shapes, updatedMs: T0 });
    await store.put(a, { ...LINES, rects: [], rays: [], fibs: [], texts: [] }, T0 + 1);
    expect(await store.of(a)).toStrictEqual({ ...LINES, updatedMs: T0 + 1 });
  });

  it("keeps a user's drawings per instrument, apart from other users' and instruments', and clears them on an empty write", async () => {
    const store = new DrawingsStore(db());
    const users = new UserStore(db());
    const u = await users.insert({ email: `inst-${++made}@x.io`, plan: 'pro', verified: true, disabled: false, passwordHash: null, apiKeyHash: `key-inst-${made}`, nowMs: T0 });
    const v = await users.insert({ email: `inst-${++made}@x.io`, plan: 'pro', verified: true, disabled: false, passwordHash: null, apiKeyHash: `key-inst-${made}`, nowMs: T0 });
    expect(await store.ofInstrument(u.id, 'NQ')).toBeNull();
    await store.putInstrument(u.id, 'NQ', LINES, T0);
    await store.putInstrument(u.id, 'ES', { hlinesTicks: [5], trends: [] }, T0 + 1);
    await store.putInstrument(v.id, 'NQ', { hlinesTicks: [6], trends: [] }, T0 + 2);
    expect(await store.ofInstrument(u.id, 'NQ')).toStrictEqual({ ...LINES, updatedMs: T0 });
    expect(await store.ofInstrument(u.id, 'ES')).toStrictEqual({ hlinesTicks: [5], trends: [], updatedMs: T0 + 1 });
    expect(await store.ofInstrument(v.id, 'NQ')).toStrictEqual({ hlinesTicks: [6], trends: [], updatedMs: T0 + 2 });
    await store.putInstrument(u.id, 'NQ', { hlinesTicks: [7], trends: [] }, T0 + 3);
    expect(await store.ofInstrument(u.id, 'NQ')).toStrictEqual({ hlinesTicks: [7], trends: [], updatedMs: T0 + 3 });
    await store.putInstrument(u.id, 'NQ', { hlinesTicks: [], trends: [] }, T0 + 4);
    expect(await store.ofInstrument(u.id, 'NQ')).toBeNull();
    expect(await db().get<{ n: number }>('SELECT COUNT(*) AS n FROM instrument_drawings WHERE user_id = $u', { u: u.id })).toEqual({ n: 1 });
  });

  it('refuses drawings of an account that does not exist (the foreign key)', async () => {
    await expect(new DrawingsStore(db()).put(999_999_999, LINES, T0)).rejects.toThrow();
  });
});
