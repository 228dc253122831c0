// Earlier family: Account/search.
import { describe, expect, it } from 'bun:test';
import { AccountStore } from '../../../src/store/accounts.ts';
import { makeApp } from '../../support/app.ts';
import { envelope, failure, legacyLogin, legacyPost } from '../../support/legacy.ts';

describe('Account/search', () => {
  it('is empty for a new user', async () => {
    const t = await makeApp();
    const token = await legacyLogin(t);
    expect((await legacyPost(t, 'Account/search', {}, token)).body).toEqual({ accounts: [], ...envelope });
  });

  it('lists the user’s own accounts with the Account fields, active first; onlyActiveAccounts true keeps the active ones', async () => {
    const t = await makeApp();
    const token = await legacyLogin(t);
    const store = new AccountStore(t.s.sql);
    const me = (await t.s.users.list())[0].id;
    const other = await t.s.users.create({ email: 'other@example.com' });
    if (!other.ok) throw new Error('setup');
    const ended = await store.insert({ userId: me, kind: 'replay', name: 'Replay NQ 1', balanceCents: 5_012_345, nowMs: 0 });
    await store.setActive(ended.id, false);
    const live = await store.insert({ userId: me, kind: 'replay', name: 'Replay NQ 2', balanceCents: 5_000_000, nowMs: 0 });
    const challenge = (await t.s.challenges.create(me, '50K', 'performance', 'standard')).account.id;
    await store.insert({ userId: other.value.user.id, kind: 'replay', name: 'Not mine', balanceCents: 1, nowMs: 0 });

    const liveRow = { id: live.id, name: 'Replay NQ 2', balance: 50000, canTrade: true, isVisible: true, simulated: true };
    const endedRow = { id: ended.id, name: 'Replay NQ 1', balance: 50123.45, canTrade: false, isVisible: true, simulated: true };
    for (const body of [{}, { onlyActiveAccounts: false }, { onlyActiveAccounts: null }]) {
      const all = await legacyPost(t, 'Account/search', body, token);
      expect(all.body).toEqual({
        accounts: [liveRow, { id: challenge, name: expect.any(String), balance: 50000, canTrade: true, isVisible: true, simulated: true }, endedRow],
        ...envelope,
      });
    }
    const active = await legacyPost(t, 'Account/search', { onlyActiveAccounts: true }, token);
    expect(active.body.accounts.map((a: any) => a.id)).toEqual([live.id, challenge]);
    // The same answer as the current family's.
    expect(active.body).toEqual((await t.post('Account/search', { onlyActiveAccounts: true }, token)).body);
  });

  const NOT_BOOLEAN: [string, unknown][] = [['a string', 'yes'], ['a number', 1], ['an object', {}]];
  it.each(NOT_BOOLEAN)('onlyActiveAccounts %s → 1 onlyActiveAccounts must be a boolean', async (_n, v) => {
    const t = await makeApp();
    const token = await legacyLogin(t);
    const r = await legacyPost(t, 'Account/search', { onlyActiveAccounts: v }, token);
    expect(r.body).toEqual(failure(1, 'onlyActiveAccounts must be a boolean'));
  });

  it('without a valid token answers 401', async () => {
    const t = await makeApp();
    const r = await legacyPost(t, 'Account/search', {}, 'nope');
    expect(r.status).toBe(401);
    expect(r.body).toEqual(failure(401, 'Unauthorized'));
  });
});
