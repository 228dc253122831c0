// Per-user growth of replay accounts: every Replay/start adds an account, so a user keeps only the
// newest ended ones (limits.endedReplayAccountsKeptPerUserMax), with their sessions, orders and
// fills; a challenge's latest session stays whatever its age (docs/decisions.md, "Replay").
import { describe, expect, it } from 'bun:test';
import { limits } from '../../../src/config.ts';
import { replayApp, startSession, WALL_MS } from '../../support/replay.ts';

const count = (t: { s: { db: any } }, sql: string, params: Record<string, unknown>) => (t.s.db.query(sql).get(params) as { n: number }).n;

describe('ended replay accounts', () => {
  it(`a start deletes the user's ended replay accounts beyond the newest ${limits.endedReplayAccountsKeptPerUserMax}, oldest first`, async () => {
    const t = await replayApp([20_000, 20_010, 20_020, 20_030]);
    const userId = (await t.s.users.list()).find((u) => u.email === t.email)!.id;
    // The oldest: a challenge's only session (kept), then a played session with an order and a fill.
    const challengeId = (await t.s.challenges.create(userId, '50K', 'evaluation', 'standard')).account.id;
    const insertEnded = (createdMs: number, challenge: number | null) => {
      const id = Number(t.s.db.query(`INSERT INTO accounts (user_id, kind, name, balance_cents, active, created_ms) VALUES ($u, 'replay', 'old', 5000000, 0, $c)`)
        .run({ u: userId, c: createdMs }).lastInsertRowid);
      t.s.db.query(`INSERT INTO replay_sessions (account_id, session_id, user_id, symbol, timeframe, start_s, end_s, cursor_s, current_index, total_bars,
          history_bars, status, end_reason, challenge_id, engine_core, created_ms, last_activity_ms, ended_ms)
        VALUES ($id, $sid, $u, 'NQ', '1m', 0, 60, 60, 1, 1, 0, 'ended', 'user', $ch, '{}', $c, $c, $c)`)
        .run({ id, sid: `rs_old_${id}`, u: userId, ch: challenge, c: createdMs });
      return id;
    };
    const challengeSession = insertEnded(WALL_MS - 2000, challengeId);
    const played = await startSession(t);
    await t.post('Replay/step', { accountId: played.accountId }, t.token);
    await t.post('Order/place', { accountId: played.accountId, contractId: played.contractId, type: 2, side: 0, size: 1 }, t.token);
    await t.post('Replay/step', { accountId: played.accountId }, t.token);
    expect((await t.post('Replay/end', { accountId: played.accountId }, t.token)).body.success).toBe(true);
    // The buy and Replay/end's closing sell.
    expect(count(t, 'SELECT COUNT(*) AS n FROM fills WHERE account_id = $a', { a: played.accountId })).toBe(2);
    // As many newer ended accounts as the bound: the played one and the challenge's are now beyond it.
    for (let i = 0; i < limits.endedReplayAccountsKeptPerUserMax; i++) insertEnded(WALL_MS + 1 + i, null);

    const fresh = await startSession(t);

    // The played account went with its orders and fills; the challenge's latest session stayed.
    for (const table of ['accounts WHERE id', 'replay_sessions WHERE account_id', 'orders WHERE account_id', 'fills WHERE account_id']) {
      expect({ table, n: count(t, `SELECT COUNT(*) AS n FROM ${table} = $a`, { a: played.accountId }) }).toEqual({ table, n: 0 });
    }
    expect((await t.post('Trade/search', { accountId: played.accountId }, t.token)).body.success).toBe(false);
    expect(count(t, 'SELECT COUNT(*) AS n FROM replay_sessions WHERE account_id = $a', { a: challengeSession })).toBe(1);
    expect(count(t, `SELECT COUNT(*) AS n FROM replay_sessions WHERE user_id = $u AND status = 'ended' AND challenge_id IS NULL`, { u: userId }))
      .toBe(limits.endedReplayAccountsKeptPerUserMax);
    // The live session and the challenge account are untouched.
    expect((await t.post('Replay/step', { accountId: fresh.accountId }, t.token)).body.success).toBe(true);
    expect(count(t, 'SELECT COUNT(*) AS n FROM accounts WHERE id = $a', { a: challengeId })).toBe(1);
  });
});
