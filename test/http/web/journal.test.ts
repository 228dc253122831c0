// The journal: GET /api/auth/journal (ended sessions with statistics and the session note),
// GET /api/auth/journal/:accountId (trades with notes, the balance curve) and
// POST /api/auth/journal/:accountId/note, for the user's own sessions only.
import { beforeAll, describe, expect, it } from 'bun:test';
import { limits } from '../../../src/config.ts';
import { JournalStore } from '../../../src/store/journal.ts';
import { foldSession } from '../../../src/service/replay/results.ts';
import { ReplayStore } from '../../../src/store/replay.ts';
import { webCall, webLogin } from '../../support/app.ts';
import { at, type ReplayTestApp, replayApp, type Session, startSession } from '../../support/replay.ts';

const PASSWORD = 'correct horse battery staple';

let t: ReplayTestApp;
let cookie: string;
let sess: Session;
let results: any;
let fills: any[];

// NQ: 100, then up 2 points a bar for a winning long, then down for a losing one (as replay-results' test).
beforeAll(async () => {
  t = await replayApp([100, 100, 102, 104, 104, 100, 98, 98, 98, 98], { historyClose: 100 });
  await t.s.webAuth.setPassword(t.email, PASSWORD);
  cookie = await webLogin(t, t.email, PASSWORD);
  sess = await startSession(t);
  const place = (side: number) => t.post('Order/place', { accountId: sess.accountId, contractId: sess.contractId, type: 2, side, size: 1 }, t.token);
  const step = () => t.post('Replay/step', { accountId: sess.accountId, steps: 1 }, t.token);
  await step();
  await place(0);
  await step();
  await step();
  await place(1);
  await step();
  await place(0);
  await step();
  await step();
  await place(1);
  await step();
  fills = (await t.post('Trade/search', { accountId: sess.accountId, startTimestamp: '2025-01-01T00:00:00Z' }, t.token)).body.trades.reverse();
  expect((await t.post('Replay/end', { accountId: sess.accountId }, t.token)).body.success).toBe(true);
  results = (await webCall(t, 'GET', `/api/auth/replay-results/${sess.accountId}`, { cookie })).body.results;
});

const note = (accountId: number | string, body: unknown, c: string | null = cookie) => webCall(t, 'POST', `/api/auth/journal/${accountId}/note`, { cookie: c, body });
const detail = (accountId: number | string, c: string | null = cookie) => webCall(t, 'GET', `/api/auth/journal/${accountId}`, { cookie: c });

describe('GET /api/auth/journal', () => {
  it('lists the ended session with its instrument, span, timeframe and the statistics replay-results serves', async () => {
    const r = await webCall(t, 'GET', '/api/auth/journal', { cookie });
    expect(r.status).toBe(200);
    expect(r.body.success).toBe(true);
    expect(r.body.sessions).toHaveLength(1);
    const s = r.body.sessions[0];
    expect(s).toMatchObject({
      accountId: sess.accountId,
      contract: { id: sess.contractId, tickSize: 0.25, tickValue: 5 },
      timeframe: '1m',
      startTime: '2025-03-03T00:00:00Z',
      currentTime: at(7),
      barsPlayed: 7,
      status: 'ended',
      endReason: 'ended',
      challengeAccountId: null,
      note: '',
    });
    expect(s.endedAt).toBe(new Date(t.clock.nowMs()).toISOString());
    expect(s.results).toEqual(results);
    expect(s.results.totalTrades).toBe(2);
  });
});

describe('GET /api/auth/journal/:accountId', () => {
  it('answers the round trips with prices from the fills, net P&L, and the balance after each fill', async () => {
    const r = await detail(sess.accountId);
    expect(r.body.success).toBe(true);
    // Its chart history: the one bar at 23:59 the day before, where History reads it from.
    expect([r.body.historyBars, r.body.historyStartTime]).toEqual([1, '2025-03-02T23:59:00Z']);
    // NQ: $20 a point per contract; P&L net of both sides' fees.
    const net = (entry: any, exit: any) => Math.round(((exit.price - entry.price) * 20 - entry.fees - exit.fees) * 100) / 100;
    expect(r.body.trades).toEqual([
      { tradeNumber: 1, side: 'long', size: 1, entryTime: fills[0].creationTimestamp, entryPrice: fills[0].price, exitTime: fills[1].creationTimestamp, exitPrice: fills[1].price, pnl: net(fills[0], fills[1]), fees: fills[0].fees + fills[1].fees, note: '' },
      { tradeNumber: 2, side: 'long', size: 1, entryTime: fills[2].creationTimestamp, entryPrice: fills[2].price, exitTime: fills[3].creationTimestamp, exitPrice: fills[3].price, pnl: net(fills[2], fills[3]), fees: fills[2].fees + fills[3].fees, note: '' },
    ]);
    expect(r.body.trades.map((x: any) => x.pnl)).toEqual([37.2, -82.8]);
    // The starting balance, then one point per fill (four fills at four times).
    expect(r.body.equity).toHaveLength(5);
    expect(r.body.equity[0].balance).toBe(50_000);
    expect(r.body.equity.at(-1).balance).toBe(results.finalBalance);
    const after = [50_000 - 1.4, 50_000 + 37.2, 50_000 + 37.2 - 1.4, 50_000 + 37.2 - 82.8];
    expect(r.body.equity.slice(1)).toEqual(fills.map((f, i) => ({ time: f.creationTimestamp, balance: Math.round(after[i] * 100) / 100 })));
  });
});

describe('POST /api/auth/journal/:accountId/note', () => {
  it('keeps a note on the session and on a trade, shown by the list and the detail; blank deletes', async () => {
    const a = await note(sess.accountId, { tradeNumber: null, text: 'Chased the open. Wait for the first pullback.' });
    expect(a.body).toEqual({ success: true, errorCode: 0, errorMessage: null, tradeNumber: null, text: 'Chased the open. Wait for the first pullback.', updatedAt: expect.any(String) });
    expect((await note(sess.accountId, { tradeNumber: 2, text: 'Held a loser past the stop.' })).body.success).toBe(true);
    expect((await webCall(t, 'GET', '/api/auth/journal', { cookie })).body.sessions[0].note).toBe('Chased the open. Wait for the first pullback.');
    let d = (await detail(sess.accountId)).body;
    expect(d.note).toBe('Chased the open. Wait for the first pullback.');
    expect(d.trades.map((x: any) => x.note)).toEqual(['', 'Held a loser past the stop.']);
    // Rewritten whole, then deleted by blank text.
    await note(sess.accountId, { tradeNumber: 2, text: 'Moved the stop: never again.' });
    expect((await detail(sess.accountId)).body.trades[1].note).toBe('Moved the stop: never again.');
    expect((await note(sess.accountId, { tradeNumber: 2, text: '   ' })).body).toMatchObject({ success: true, text: '' });
    d = (await detail(sess.accountId)).body;
    expect(d.trades[1].note).toBe('');
    expect(await new JournalStore(t.s.sql).notesOf(sess.accountId)).toEqual([{ tradeNumber: 0, text: 'Chased the open. Wait for the first pullback.', updatedMs: t.clock.nowMs() }]);
  });

  it.each([
    ['a trade the session does not have', { tradeNumber: 3, text: 'x' }, 2, 'Trade not found'],
    ['trade number 0', { tradeNumber: 0, text: 'x' }, 2, 'Trade not found'],
    ['a note over 4,000 characters', { tradeNumber: 1, text: 'x'.repeat(4001) }, 3, 'Note too long (at most 4000 characters)'],
    ['text that is not a string', { tradeNumber: 1, text: 5 }, 3, 'Invalid note: tradeNumber must be null or a trade number, text a string'],
    ['no trade number', { text: 'x' }, 3, 'Invalid note: tradeNumber must be null or a trade number, text a string'],
  ])('refuses %s, changing nothing', async (_, body, errorCode, errorMessage) => {
    const before = await new JournalStore(t.s.sql).notesOf(sess.accountId);
    const r = await note(sess.accountId, body);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ success: false, errorCode, errorMessage });
    expect(await new JournalStore(t.s.sql).notesOf(sess.accountId)).toEqual(before);
  });

  it('accepts exactly 4,000 characters', async () => {
    expect((await note(sess.accountId, { tradeNumber: 1, text: 'é'.repeat(4000) })).body.success).toBe(true);
    await note(sess.accountId, { tradeNumber: 1, text: '' });
  });
});

describe('statistics kept once a session has ended', () => {
  const kept = async (accountId: number) =>
    (await t.s.sql.get<{ r: string | null }>('SELECT results_json AS r FROM replay_sessions WHERE account_id = $a', { a: accountId }))?.r ?? null;

  it('are computed when the session ends and read from the store afterwards (the list, the detail\'s figures, replay-results)', async () => {
    const stored = JSON.parse((await kept(sess.accountId)) as string);
    expect(stored.totalTrades).toBe(2);
    expect(stored.finalBalanceCents).toBe(Math.round(results.finalBalance * 100));
    // What the store keeps is what every read shows: changed there, it is read there, not folded again.
    await t.s.sql.run('UPDATE replay_sessions SET results_json = $r WHERE account_id = $a', { a: sess.accountId, r: JSON.stringify({ ...stored, winRate: 12.34 }) });
    expect((await webCall(t, 'GET', '/api/auth/journal', { cookie })).body.sessions[0].results.winRate).toBe(12.34);
    expect((await webCall(t, 'GET', `/api/auth/replay-results/${sess.accountId}`, { cookie })).body.results.winRate).toBe(12.34);
    await t.s.sql.run('UPDATE replay_sessions SET results_json = $r WHERE account_id = $a', { a: sess.accountId, r: JSON.stringify(stored) });
  });

  it('a session ended before they were kept gets them folded at its first read, and kept', async () => {
    const stored = await kept(sess.accountId);
    await t.s.sql.run('UPDATE replay_sessions SET results_json = NULL WHERE account_id = $a', { a: sess.accountId });
    expect((await webCall(t, 'GET', '/api/auth/journal', { cookie })).body.sessions[0].results).toEqual(results);
    expect(await kept(sess.accountId)).toBe(stored);
  });

  it('a live session\'s are folded at each read and never kept', async () => {
    const live = await startSession(t);
    expect((await webCall(t, 'GET', `/api/auth/replay-results/${live.accountId}`, { cookie })).body.results.totalTrades).toBe(0);
    expect(await kept(live.accountId)).toBeNull();
    expect((await t.post('Replay/end', { accountId: live.accountId }, t.token)).body.success).toBe(true);
    expect(JSON.parse((await kept(live.accountId)) as string).totalTrades).toBe(0);
    await t.s.sql.transaction(() => new ReplayStore(t.s.sql).deleteEnded(live.accountId));
  });
});

describe('a session with more fills than a page', () => {
  it(`lists its first ${limits.journalTradesListedMax} trades, counts them all, and folds its fills a page at a time to foldSession's answer`, async () => {
    const other = await startSession(t);
    expect((await t.post('Replay/end', { accountId: other.accountId }, t.token)).body.success).toBe(true);
    // 12,002 fills written after the session's own: 6,001 round trips of one contract, two fills a second.
    const t0 = 1_740_960_000;
    const fills = Array.from({ length: 12_002 }, (_, i) => ({
      id: 1_000 + i, orderId: 1_000 + i, side: (i % 2 === 0 ? 0 : 1) as 0 | 1, size: 1, priceTicks: 80_000 + (i % 9), timeS: t0 + Math.floor(i / 2),
      feeCents: 140, realizedPnlCents: i % 2 === 0 ? 0 : ((i * 37) % 2001) - 1000,
    }));
    const store = new ReplayStore(t.s.sql);
    await t.s.sql.transaction(() => store.insertFills(other.accountId, fills));
    await t.s.sql.run('UPDATE replay_sessions SET results_json = NULL WHERE account_id = $a', { a: other.accountId });
    const balance = (await t.s.accounts.owned((await t.s.users.list()).find((u) => u.email === t.email)!.id, other.accountId))!.balanceCents;
    const row = (await store.session(other.accountId))!;
    const whole = foldSession((await store.searchFills(other.accountId, 0, Number.MAX_SAFE_INTEGER, 1_000_000)).reverse(), balance, row.startS);
    expect(whole.trades.length).toBe(6001);
    const d = (await detail(other.accountId)).body;
    expect(d.trades).toHaveLength(limits.journalTradesListedMax);
    expect(d.trades.map((x: any) => x.tradeNumber)).toEqual(Array.from({ length: limits.journalTradesListedMax }, (_, i) => i + 1));
    expect(d.trades.map((x: any) => Math.round(x.pnl * 100))).toEqual(whole.trades.slice(0, limits.journalTradesListedMax).map((x) => x.pnlCents));
    expect(d.results.totalTrades).toBe(6001);
    expect(d.results).toEqual((await webCall(t, 'GET', `/api/auth/replay-results/${other.accountId}`, { cookie })).body.results);
    expect(Math.round(d.results.maxDrawdown * 100)).toBe(whole.stats.maxDrawdownCents);
    expect(Math.round(d.results.totalPnl * 100)).toBe(whole.stats.totalPnlCents);
    expect(d.equity.length).toBeLessThanOrEqual(limits.journalEquityPointsMax);
    expect(Math.round(d.equity.at(-1).balance * 100)).toBe(balance);
    // A note on trade 6,001, past the list, is still the session's to write.
    expect((await note(other.accountId, { tradeNumber: 6001, text: 'the last one' })).body.success).toBe(true);
    await t.s.sql.transaction(() => store.deleteEnded(other.accountId));
  });
});

describe('notes are bounded per session and per user', () => {
  const store = () => new JournalStore(t.s.sql);
  /** Deletes the notes, and the sessions other than `sess` (ended first), so the tests after see one session. */
  const cleanUp = async (ids: number[]) => {
    await t.s.sql.run(`DELETE FROM journal_notes WHERE account_id IN (${ids.join(', ')})`);
    for (const id of ids.filter((x) => x !== sess.accountId)) {
      await t.post('Replay/end', { accountId: id }, t.token);
      await t.s.sql.transaction(() => new ReplayStore(t.s.sql).deleteEnded(id));
    }
  };

  it(`a new note past ${limits.journalNotesPerSessionMax} on one session is refused; editing and deleting still work`, async () => {
    for (let n = 3; n < 3 + limits.journalNotesPerSessionMax - 1; n++) await store().put(sess.accountId, n, 'x', 0);
    expect((await note(sess.accountId, { tradeNumber: null, text: 'the last one' })).body.success).toBe(true);
    const before = await store().notesOf(sess.accountId);
    expect(await note(sess.accountId, { tradeNumber: 1, text: 'one too many' })).toMatchObject({
      status: 200, body: { success: false, errorCode: 4, errorMessage: `At most ${limits.journalNotesPerSessionMax} notes per session; delete one first (an empty note deletes it)` },
    });
    expect(await store().notesOf(sess.accountId)).toEqual(before);
    expect((await note(sess.accountId, { tradeNumber: null, text: 'rewritten' })).body.success).toBe(true);
    expect((await note(sess.accountId, { tradeNumber: null, text: '' })).body.success).toBe(true);
    expect((await note(sess.accountId, { tradeNumber: 1, text: 'now it fits' })).body.success).toBe(true);
    await cleanUp([sess.accountId]);
  });

  it(`a new note past ${limits.journalNotesPerUserMax} notes of the user's, over all sessions, is refused`, async () => {
    const other = await startSession(t);
    for (let n = 1; n < limits.journalNotesPerUserMax; n++) await store().put(other.accountId, n, 'x', 0);
    expect((await note(sess.accountId, { tradeNumber: null, text: 'the last one' })).body.success).toBe(true);
    expect((await note(sess.accountId, { tradeNumber: 1, text: 'one too many' })).body).toEqual({
      success: false, errorCode: 4, errorMessage: `At most ${limits.journalNotesPerUserMax} notes per user; delete one first (an empty note deletes it)`,
    });
    // Another user's count is their own.
    await cleanUp([sess.accountId, other.accountId]);
  });

  it('a write that would take the user\'s notes past 5 MB (UTF-8) is refused; an edit counts its new text in place of its old', async () => {
    const other = await startSession(t);
    await store().put(other.accountId, 1, 'x'.repeat(limits.journalNoteBytesPerUserMax - 4000), 0);
    // 1,000 characters of 4 bytes: 4,000 bytes, exactly the room left.
    expect((await note(sess.accountId, { tradeNumber: null, text: '😀'.repeat(1000) })).body.success).toBe(true);
    expect((await note(sess.accountId, { tradeNumber: 1, text: 'x' })).body).toEqual({ success: false, errorCode: 5, errorMessage: 'Your notes would exceed 5 MB; delete or shorten some first' });
    expect((await note(sess.accountId, { tradeNumber: null, text: `${'😀'.repeat(999)}abcde` })).body.success).toBe(false);
    // Shortened by one byte: room for a one-byte note, not two.
    expect((await note(sess.accountId, { tradeNumber: null, text: `${'😀'.repeat(999)}abc` })).body.success).toBe(true);
    expect((await note(sess.accountId, { tradeNumber: 1, text: 'xy' })).body.errorCode).toBe(5);
    expect((await note(sess.accountId, { tradeNumber: 1, text: 'x' })).body.success).toBe(true);
    expect((await store().notesOf(sess.accountId)).map((n) => n.tradeNumber)).toEqual([0, 1]);
    await cleanUp([sess.accountId, other.accountId]);
  });
});

describe('isolation', () => {
  it("reads and writes another user's session, an unknown one or a bad id as not found; no cookie is 401", async () => {
    const other = await t.s.users.create({ email: 'other@example.com', plan: 'pro', password: PASSWORD });
    if (!other.ok) throw new Error('setup');
    const theirs = await startSession(t, (await t.post('Auth/loginKey', { userName: 'other@example.com', apiKey: other.value.apiKey })).body.token);
    const otherCookie = await webLogin(t, 'other@example.com', PASSWORD);
    expect((await note(theirs.accountId, { tradeNumber: null, text: 'mine' }, otherCookie)).body.success).toBe(true);
    for (const id of [String(theirs.accountId), '999999', 'abc']) {
      expect((await detail(id)).body).toEqual({ success: false, errorCode: 1, errorMessage: 'Replay session not found' });
      expect((await note(id, { tradeNumber: null, text: 'theirs now' })).body).toEqual({ success: false, errorCode: 1, errorMessage: 'Replay session not found' });
    }
    expect((await detail(theirs.accountId, otherCookie)).body.note).toBe('mine');
    // Their live session is not in either list of ended sessions; mine is not in theirs.
    expect((await webCall(t, 'GET', '/api/auth/journal', { cookie: otherCookie })).body.sessions).toEqual([]);
    expect((await webCall(t, 'GET', '/api/auth/journal', { cookie })).body.sessions.map((s: any) => s.accountId)).toEqual([sess.accountId]);
    expect((await webCall(t, 'GET', '/api/auth/journal')).status).toBe(401);
    expect((await detail(sess.accountId, null)).status).toBe(401);
    expect((await note(sess.accountId, { tradeNumber: null, text: 'x' }, null)).status).toBe(401);
  });

  it('deletes the notes with their session when an old ended session is pruned', async () => {
    await note(sess.accountId, { tradeNumber: 1, text: 'kept until pruned' });
    await t.s.sql.transaction(() => new ReplayStore(t.s.sql).deleteEnded(sess.accountId));
    expect(await new JournalStore(t.s.sql).notesOf(sess.accountId)).toEqual([]);
  });
});
