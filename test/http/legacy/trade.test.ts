// Earlier family: Trade/search, oldest first, string IDs.
import { describe, expect, it } from 'bun:test';
import type { BarSpec } from '../../support/replay.ts';
import { failure } from '../../support/legacy.ts';
import { legacyPlaceOk, legacyStep, legacyTrades, legacyTradingApp, otherLegacyUser } from '../../support/legacy-trading.ts';

const BAR0: BarSpec = [19995, 20005, 19990, 20000];

describe('Trade/search', () => {
  it('lists fills oldest first with id, orderId, accountId, contractId, side, size, price, timestamp', async () => {
    const t = await legacyTradingApp([BAR0, 20010, 20020]);
    const buy = await legacyPlaceOk(t, t, { type: 2, side: 0, size: 2 });
    await legacyStep(t, t);
    const sell = await legacyPlaceOk(t, t, { type: 2, side: 1, size: 2 });
    expect(await legacyTrades(t, t)).toEqual([
      { id: `${t.accountId}-1`, orderId: buy, accountId: t.accountId, contractId: t.contractId, side: 0, size: 2, price: 20000, timestamp: '2025-03-03T14:31:00Z' },
      { id: `${t.accountId}-2`, orderId: sell, accountId: t.accountId, contractId: t.contractId, side: 1, size: 2, price: 20010, timestamp: '2025-03-03T14:32:00Z' },
    ]);
  });

  it('an account without fills has none; an unknown or foreign account is refused', async () => {
    const t = await legacyTradingApp([BAR0]);
    expect(await legacyTrades(t, t)).toEqual([]);
    const other = await otherLegacyUser(t);
    expect((await t.call('Trade/search', { accountId: other.accountId })).body).toEqual(failure(1, 'Account not found'));
    expect((await t.call('Trade/search', { accountId: 999_999 })).body).toEqual(failure(1, 'Account not found'));
  });
});
