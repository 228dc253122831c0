// Replay/branch (issue 30, "Rewind, by branching"; docs/decisions.md "Branching"): a new session
// whose state is exactly the original's at the close of a bar it has played, before the commands
// sent at that time. Known data: NQ 1 m bars from 14:30 on 2025-03-03, a wave around 20,000 (bar i
// closes at 20,000 + round(6·sin(i/2.5)) points); the session's clock after k steps is at(k).
// Orders under the live profile, whose order model has modify, trailing stops and linked brackets.
import { describe, expect, it } from 'bun:test';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { webCall, webLogin } from '../../support/app.ts';
import { barsOf, dayOf } from '../../support/bars.ts';
import { accountEntry, challengeApp, createChallenge, dayRows, failure, market, pause, roundTrip, startOn } from '../../support/challenge.ts';
import { LIVE } from '../../support/live.ts';
import { at, type BarSpec, DAY, OPEN_S, ticks, openOrders, orders, positions, type ReplayTestApp, replayApp, type Session, snapshot, startSession, step, trades } from '../../support/replay.ts';

const BARS_N = 30;
const END = 24;

/** The wave: bar i opens at the previous close, closes at 20,000 + round(6·sin(i/2.5)), ranges 2 points past both. */
function waveBars(): BarSpec[] {
  const out: BarSpec[] = [];
  let prev = 20000;
  for (let i = 0; i < BARS_N; i++) {
    const c = 20000 + Math.round(6 * Math.sin(i / 2.5));
    out.push([prev, Math.max(prev, c) + 2, Math.min(prev, c) - 2, c]);
    prev = c;
  }
  return out;
}

type Action = (t: ReplayTestApp, x: Session) => Promise<unknown>;

const call = (path: string, body: Record<string, unknown>): Action => async (t, x) => {
  const r = await t.post(path, { accountId: x.accountId, ...body }, t.token);
  return strip(r.body);
};
const placeAt = (body: Record<string, unknown>): Action => async (t, x) => call('Order/place', { contractId: x.contractId, size: 1, ...body })(t, x);

/**
 * The commands, by the number of bars played when they are sent: a market entry with a stop-loss
 * and take-profit, a limit, a stop with brackets (its legs suspended until it fills), a trailing
 * stop, modifies and cancels before and after the branch bars (7, 10), a partial close, a flip.
 * The engine fills whole orders (no volume model): the partial close is the partial exit. Orders
 * are numbered 1, 2, … as placed (each entry's legs take the next ids).
 */
const SCRIPT: Record<number, Action[]> = {
  1: [placeAt({ type: 2, side: 0, size: 2, stopLossBracket: { ticks: -40 }, takeProfitBracket: { ticks: 60 } })],
  3: [placeAt({ type: 1, side: 0, limitPrice: 19997 }), placeAt({ type: 4, side: 1, stopPrice: 19994, stopLossBracket: { ticks: 16 }, takeProfitBracket: { ticks: -24 } })],
  5: [placeAt({ type: 5, side: 1, trailPrice: 9 }), placeAt({ type: 1, side: 1, limitPrice: 20030 })],
  6: [call('Order/modify', { orderId: 4, limitPrice: 19999 }), call('Order/cancel', { orderId: 9 })],
  8: [call('Position/partialCloseContract', { contractId: 'CON.F.US.ENQ.H25', size: 1 })],
  10: [call('Order/cancel', { orderId: 7 }), placeAt({ type: 2, side: 1, size: 1 }), call('Order/modify', { orderId: 5, stopPrice: 19996 })],
  13: [placeAt({ type: 1, side: 1, limitPrice: 20004, stopLossBracket: { ticks: 12 }, takeProfitBracket: { ticks: -20 } })],
  16: [placeAt({ type: 2, side: 0, size: 1 })],
  19: [call('Position/closeContract', { contractId: 'CON.F.US.ENQ.H25' })],
};

/** A body without the fields naming the account (the branch's differ by design). */
function strip(v: any): any {
  if (Array.isArray(v)) return v.map(strip);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).filter(([k]) => k !== 'accountId').map(([k, x]) => [k, strip(x)]));
  return v;
}

/** What a trader can read of a session: every order, the working ones, positions, fills, the account snapshot. */
async function stateOf(t: ReplayTestApp, x: Session) {
  const from = { startTimestamp: '2025-03-01T00:00:00Z' };
  return strip({
    orders: await orders(t, x, from),
    open: await openOrders(t, x),
    positions: await positions(t, x),
    trades: await trades(t, x, from),
    account: await snapshot(t, x),
  });
}

/** Plays from `fromBar` bars played to `toBar`, sending each bar's commands first; answers the commands' replies and each step's fills. */
async function play(t: ReplayTestApp, x: Session, fromBar: number, toBar: number, script = SCRIPT) {
  const log: unknown[] = [];
  for (let k = fromBar; k < toBar; k++) {
    for (const a of script[k] ?? []) log.push([k, await a(t, x)]);
    const r = await step(t, x);
    log.push([k, strip({ filled: r.filledOrders, account: r.account, index: r.currentIndex })]);
  }
  return log;
}

const PASSWORD = 'correct horse battery staple';

async function cookieOf(t: ReplayTestApp): Promise<string> {
  await t.s.webAuth.setPassword(t.email, PASSWORD);
  return webLogin(t, t.email, PASSWORD);
}

async function liveTrader(dbPath?: string) {
  const t = await replayApp(waveBars(), { historyClose: 20000, config: LIVE, dbPath });
  return Object.assign(t, await startSession(t));
}

const branch = async (t: ReplayTestApp, accountId: number, time: string, token = t.token) => (await t.post('Replay/branch', { accountId, time }, token)).body;

async function branchOk(t: ReplayTestApp, x: Session, time: string): Promise<Session & { body: any }> {
  const b = await branch(t, x.accountId, time);
  if (!b.success) throw new Error(`Replay/branch failed: ${JSON.stringify(b)}`);
  return { accountId: b.accountId, contractId: x.contractId, body: b };
}

describe('Replay/branch: the state at a bar', () => {
  it('a branch at bar N, replayed with the same commands to the same end, ends exactly as the original (orders, fills, positions, balance)', async () => {
    const t = await liveTrader();
    for (const n of [10, 7]) {
      const x = await startSession(t);
      const before = await play(t, x, 0, n);
      const atN = await stateOf(t, x);
      const after = await play(t, x, n, END);
      const end = await stateOf(t, x);
      // The script did what it says: fills of entries, legs, a partial close, a modify and a cancel.
      expect(end.trades.length).toBeGreaterThanOrEqual(6);
      expect(before.length + after.length).toBeGreaterThan(END);

      const b = await branchOk(t, x, at(n));
      expect(b.body).toMatchObject({ success: true, parentAccountId: x.accountId, branchTime: at(n), currentIndex: n, practiceOf: null });
      // The branch's state at N is what the original answered at N: before the commands sent at N.
      expect(await stateOf(t, b)).toEqual(atN);
      // The same commands at the same times: the same replies, fills and snapshots, the same end.
      expect(await play(t, b, n, END)).toEqual(after);
      expect(await stateOf(t, b)).toEqual(end);
    }
  });

  it('leaves the original untouched, after branching and after trading on the branch', async () => {
    const t = await liveTrader();
    const x = t;
    await play(t, x, 0, 12);
    const original = await stateOf(t, x);
    const b = await branchOk(t, x, at(9));
    expect(await stateOf(t, x)).toEqual(original);
    await call('Position/closeContract', { contractId: x.contractId })(t, b);
    await placeAt({ type: 2, side: 1, size: 3 })(t, b);
    await step(t, b, 5);
    expect(await stateOf(t, x)).toEqual(original);
    expect((await step(t, x)).currentIndex).toBe(13);
  });

  it('refuses, changing nothing: unknown or another user\'s account, a bad time, a time not played or off the grid, too many live sessions', async () => {
    const t = await liveTrader();
    await play(t, t, 0, 6);
    const fail = (errorCode: number, errorMessage: string) => ({ success: false, errorCode, errorMessage });
    const other = await t.s.users.create({ email: 'other@example.com', plan: 'pro' });
    if (!other.ok) throw new Error('no second user');
    const otherToken = (await t.post('Auth/loginKey', { userName: 'other@example.com', apiKey: other.value.apiKey })).body.token;
    const played = 'time must be the close of a bar this session has played: after 2025-03-03T00:00:00Z and at most 2025-03-03T14:36:00Z';
    const cases: [unknown, unknown, any][] = [
      [999_999, at(3), fail(1, 'Account not found')],
      [t.accountId, at(3, 30), fail(2, 'time must be the close of a 1m bar of this session')],
      [t.accountId, at(7), fail(2, played)],
      [t.accountId, '2025-03-03T00:00:00Z', fail(2, played)],
      [t.accountId, 'yesterday', fail(2, 'Invalid time')],
      [t.accountId, 12, fail(2, 'Invalid time')],
    ];
    for (const [accountId, time, want] of cases) expect((await t.post('Replay/branch', { accountId, time }, t.token)).body).toEqual(want);
    expect(await branch(t, t.accountId, at(3), otherToken)).toEqual(fail(1, 'Account not found'));
    // A user's live sessions are counted as Replay/start counts them (10).
    for (let i = 0; i < 9; i++) await startSession(t);
    expect(await branch(t, t.accountId, at(3))).toEqual(fail(4, 'Maximum of 10 live replay sessions reached; end one with Replay/end'));
    const accounts = (await t.post('Account/search', { onlyActiveAccounts: false }, t.token)).body.accounts;
    expect(accounts).toHaveLength(10);
  });

  it('branches an ended session (a review): its state at the bar, before Replay/end flattened it', async () => {
    const t = await liveTrader();
    await play(t, t, 0, 9);
    const at9 = await stateOf(t, t);
    expect(at9.positions.length).toBe(1);
    expect((await t.post('Replay/end', { accountId: t.accountId }, t.token)).body.success).toBe(true);
    const b = await branchOk(t, t, at(9));
    expect(await stateOf(t, b)).toEqual(at9);
    // The journal lists an ended branch with where it left from.
    expect((await t.post('Replay/end', { accountId: b.accountId }, t.token)).body.success).toBe(true);
    const journal = (await webCall(t, 'GET', '/api/auth/journal', { cookie: await cookieOf(t) })).body.sessions;
    expect(journal.map((j: any) => [j.accountId, j.branch])).toEqual([[b.accountId, { parentAccountId: t.accountId, time: at(9), practiceOf: null }], [t.accountId, undefined]]);
  });

  it('a branch of a branch may go back before its own branch time (its parent\'s checkpoints come with it)', async () => {
    const t = await liveTrader();
    await play(t, t, 0, 4);
    const at4 = await stateOf(t, t);
    await play(t, t, 4, 12);
    const b = await branchOk(t, t, at(11));
    const bb = await branchOk(t, b, at(4));
    expect(bb.body.parentAccountId).toBe(b.accountId);
    expect(await stateOf(t, bb)).toEqual(at4);
  });

  it('a session that kept no checkpoint (started before branching) is refused', async () => {
    const t = await liveTrader();
    await play(t, t, 0, 3);
    await t.s.sql.run('DELETE FROM replay_checkpoints WHERE account_id = $a', { a: t.accountId });
    expect(await branch(t, t.accountId, at(2))).toEqual({ success: false, errorCode: 7, errorMessage: 'This session was started before branching existed and cannot be branched' });
  });
});

describe('Replay/branch of a session over several instruments', () => {
  it('branches NQ and ES on one ledger: the same state at N, the same end after the same commands', async () => {
    const t = await replayApp(waveBars(), { historyClose: 20000, config: LIVE });
    const es = waveBars().map((b, i) => [OPEN_S + i * 60 + 60, ...(b as readonly number[]).map((p) => ticks(p - 14_000)), 1]);
    t.s.chunks.put('ES', dayOf(`${DAY}T00:00:00Z`), 'import', barsOf(es));
    const started = (await t.post('Replay/start', { instrumentSymbols: ['NQ', 'ES'], startDate: DAY, timeframe: '1m' }, t.token)).body;
    const x = { accountId: started.accountId, contractId: started.instruments[0].contractId };
    const ES = started.instruments[1].contractId;
    const script: Record<number, Action[]> = {
      1: [placeAt({ type: 2, side: 0, stopLossBracket: { ticks: -20 }, takeProfitBracket: { ticks: 30 } })],
      2: [placeAt({ contractId: ES, type: 1, side: 0, limitPrice: 5997, size: 2 })],
      4: [placeAt({ contractId: ES, type: 5, side: 1, trailPrice: 4 })],
      7: [call('Position/partialCloseContract', { contractId: ES, size: 1 }), placeAt({ type: 4, side: 1, stopPrice: 19995 })],
      9: [call('Order/modify', { orderId: 5, trailPrice: 2 }), placeAt({ contractId: ES, type: 2, side: 1, size: 1 })],
      12: [call('Position/closeContract', { contractId: x.contractId })],
    };
    await play(t, x, 0, 8, script);
    const at8 = await stateOf(t, x);
    const after = await play(t, x, 8, 16, script);
    const end = await stateOf(t, x);
    expect(end.trades.length).toBeGreaterThanOrEqual(4);
    const b = await branchOk(t, x, at(8));
    expect(await stateOf(t, b)).toEqual(at8);
    expect(await play(t, b, 8, 16, script)).toEqual(after);
    expect(await stateOf(t, b)).toEqual(end);
  });
});

describe('Replay/branch: listing, drawings, restart', () => {
  it('the session listing names the parent and the branch time; drawings are copied; a restart restores the branch as it was', async () => {
    const dbPath = join(mkdtempSync(join(tmpdir(), 'branch-')), 'rd.sqlite');
    const t = await liveTrader(dbPath);
    const cookie = await cookieOf(t);
    const lines = { horizontalLines: [{ price: 20001 }], trendLines: [] };
    expect((await webCall(t, 'PUT', `/api/auth/replay-sessions/${t.accountId}/drawings`, { cookie, body: lines })).body.success).toBe(true);
    await play(t, t, 0, 8);
    const b = await branchOk(t, t, at(6));
    const info = await webCall(t, 'GET', `/api/auth/replay-sessions/${b.accountId}`, { cookie });
    expect(info.body).toMatchObject({ accountId: b.accountId, currentTime: at(6), currentIndex: 6, branch: { parentAccountId: t.accountId, time: at(6), practiceOf: null } });
    expect((await webCall(t, 'GET', `/api/auth/replay-sessions/${t.accountId}`, { cookie })).body.branch).toBeUndefined();
    const drawn = await webCall(t, 'GET', `/api/auth/replay-sessions/${b.accountId}/drawings`, { cookie });
    expect(drawn.body).toMatchObject({ horizontalLines: [{ price: 20001 }], trendLines: [] });
    const state = await stateOf(t, b);
    await t.s.shutdown();

    const t2 = await replayApp(waveBars(), { historyClose: 20000, config: LIVE, dbPath });
    await t2.s.replay.restoreLive();
    expect(await stateOf(t2, b)).toEqual(state);
    const cookie2 = await cookieOf(t2);
    expect((await webCall(t2, 'GET', `/api/auth/replay-sessions/${b.accountId}`, { cookie: cookie2 })).body.branch).toEqual({ parentAccountId: t.accountId, time: at(6), practiceOf: null });
    // It trades on from there as the original did.
    expect((await step(t2, b)).currentIndex).toBe(7);
  });
});

/** A 50K evaluation's session from 2025-03-04 over `rows`. */
async function challengeSession(rows: Parameters<typeof challengeApp>[0]) {
  const t = await challengeApp(rows);
  const c = await createChallenge(t);
  return { t, c, x: await startOn(t, c, '2025-03-04') };
}

describe('Replay/branch of a challenge session: practice, never a second attempt', () => {
  it('is marked practice (its rules shown and applied on its own copy), is refused every payout, and never touches the challenge\'s evaluation', async () => {
    // Day 1 a winning round trip on the parent; day 2 falls 100 points after its first bar.
    const { t, c, x } = await challengeSession([...dayRows('2025-03-04', 20_010), ...dayRows('2025-03-05', 19_900)]);
    await roundTrip(t, x, 1);
    await step(t, x);
    const parent = await pause(t, x);
    const challengeBefore = await t.s.challenges.byId(c);
    const entryBefore = await accountEntry(t, c);

    const b = await branchOk(t, x, '2025-03-05T15:01:00Z');
    expect(b.body).toMatchObject({ parentAccountId: x.accountId, practiceOf: c, propFirm: parent.propFirm, account: parent.account });
    const cookie = await cookieOf(t);
    const info = (await webCall(t, 'GET', `/api/auth/replay-sessions/${b.accountId}`, { cookie })).body;
    expect([info.challenge, info.branch]).toEqual([null, { parentAccountId: x.accountId, time: '2025-03-05T15:01:00Z', practiceOf: c }]);

    const practice = failure(2, `This account is a practice branch of challenge account ${c}: practice accounts never take withdrawals`);
    expect((await t.post('Payout/eligibility', { accountId: b.accountId }, t.token)).body).toEqual(practice);
    expect((await t.post('Payout/request', { accountId: b.accountId, amount: 100 }, t.token)).body).toEqual(practice);
    expect((await t.post('Payout/history', { accountId: b.accountId }, t.token)).body).toEqual(practice);

    // The practice branch loses 300 points on 3 contracts: its own rules fail it, and end it.
    await market(t, b, 3);
    const lost = await step(t, b);
    expect(lost.violations).toHaveLength(1);
    expect(lost.propFirm.status).not.toBe('active');
    // The challenge is as it was: its state, its account, its live session's rules.
    expect(await t.s.challenges.byId(c)).toEqual(challengeBefore);
    expect(await accountEntry(t, c)).toEqual(entryBefore);
    expect(await pause(t, x)).toEqual(parent);
    expect((await step(t, x)).propFirm.status).toBe('active');
  });

  it('refuses a time at which the challenge\'s rules decided (the bar of the violation), and branches the bar before it', async () => {
    const { t, c, x } = await challengeSession(dayRows('2025-03-04', 19_900));
    await step(t, x);
    await market(t, x, 3);
    expect((await step(t, x)).violations).toHaveLength(1);
    expect(await branch(t, x.accountId, '2025-03-04T15:02:00Z')).toEqual(failure(7, "The challenge's evaluation was decided at this bar; branch at an earlier bar"));
    const b = await branchOk(t, x, '2025-03-04T15:01:00Z');
    expect(b.body).toMatchObject({ practiceOf: c, account: { positions: 0 }, propFirm: { status: 'active' } });
    expect((await t.s.challenges.byId(c))?.state.status).not.toBe('active');
  });

  it('the challenge account\'s id stands for its live session, as for orders: the same practice branch as its session\'s id', async () => {
    const { t, c, x } = await challengeSession([...dayRows('2025-03-04', 20_010), ...dayRows('2025-03-05', 19_900)]);
    await roundTrip(t, x, 1);
    await step(t, x);
    const viaSession = await branchOk(t, x, '2025-03-05T15:01:00Z');
    const viaChallenge = await branchOk(t, { accountId: c, contractId: x.contractId }, '2025-03-05T15:01:00Z');
    expect(viaChallenge.body).toMatchObject({ parentAccountId: x.accountId, practiceOf: c });
    const strip = (b: any) => ({ ...b, accountId: 0, sessionId: '', account: { ...b.account, id: 0, name: '' } });
    expect(strip(viaChallenge.body)).toEqual(strip(viaSession.body));
  });
});
