import { describe, expect, it } from 'bun:test';
import { AccountStore } from '../../../src/store/accounts.ts';
import { makeApp } from '../../support/app.ts';

describe('Account/search', () => {
  it('is empty for a new user', async () => {
    const t = await makeApp();
    const token = await t.login();
    const r = await t.post('Account/search', { onlyActiveAccounts: true }, token);
    expect(r.body).toEqual({ accounts: [], success: true, errorCode: 0, errorMessage: null });
  });

  it('lists only the user’s own accounts with the gateway fields; active first', async () => {
    const t = await makeApp();
    const token = await t.login();
    const store = new AccountStore(t.s.sql);
    const me = (await t.s.users.list())[0].id;
    const other = await t.s.users.create({ email: 'other@example.com' });
    if (!other.ok) throw new Error('setup');
    const ended = await store.insert({ userId: me, kind: 'replay', name: 'Replay NQ 1', balanceCents: 5_012_345, nowMs: 0 });
    await store.setActive(ended.id, false);
    const live = await store.insert({ userId: me, kind: 'replay', name: 'Replay NQ 2', balanceCents: 5_000_000, nowMs: 0 });
    await store.insert({ userId: other.value.user.id, kind: 'replay', name: 'Not mine', balanceCents: 1, nowMs: 0 });

    const all = await t.post('Account/search', {}, token);
    expect(all.body.accounts).toEqual([
      { id: live.id, name: 'Replay NQ 2', balance: 50000, canTrade: true, isVisible: true, simulated: true },
      { id: ended.id, name: 'Replay NQ 1', balance: 50123.45, canTrade: false, isVisible: true, simulated: true },
    ]);
    const active = await t.post('Account/search', { onlyActiveAccounts: true }, token);
    expect(active.body.accounts.map((a: any) => a.id)).toEqual([live.id]);
  });

  it('lists only the newest 50 ended replay accounts, and every live or challenge account', async () => {
    const t = await makeApp();
    const token = await t.login();
    const store = new AccountStore(t.s.sql);
    const me = (await t.s.users.list())[0].id;
    const ended: number[] = [];
    for (let i = 0; i < 55; i++) {
      const a = await store.insert({ userId: me, kind: 'replay', name: `R${i}`, balanceCents: 1, nowMs: 0 });
      await store.setActive(a.id, false);
      ended.push(a.id);
    }
    const live = await store.insert({ userId: me, kind: 'replay', name: 'live', balanceCents: 1, nowMs: 0 });
    const challenge = (await t.s.challenges.create(me, '50K', 'evaluation', 'standard')).account.id;
    const ids = (await t.post('Account/search', {}, token)).body.accounts.map((a: any) => a.id);
    // Active first (the live replay account, then the challenge), then the newest 50 ended, by id.
    expect(ids).toEqual([live.id, challenge, ...ended.slice(5)]);
  });

  it('rejects a non-boolean onlyActiveAccounts', async () => {
    const t = await makeApp();
    const token = await t.login();
    const r = await t.post('Account/search', { onlyActiveAccounts: 'yes' }, token);
    expect(r.body).toEqual({ success: false, errorCode: 1, errorMessage: 'onlyActiveAccounts must be a boolean' });
  });
});
