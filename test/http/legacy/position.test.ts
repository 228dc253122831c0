// Earlier family: Position/searchOpen, closeContract, partialCloseContract (errors by message, errorCode 1).
import { describe, expect, it } from 'bun:test';
import type { BarSpec } from '../../support/replay.ts';
import { envelope, failure } from '../../support/legacy.ts';
import { legacyPlaceOk, legacyPositions, legacyTrades, legacyTradingApp, otherLegacyUser } from '../../support/legacy-trading.ts';

const BAR0: BarSpec = [19995, 20005, 19990, 20000];

async function long(size: number) {
  const t = await legacyTradingApp([BAR0, 20000]);
  await legacyPlaceOk(t, t, { type: 2, side: 0, size });
  return t;
}

describe('Position/searchOpen', () => {
  it('shows accountId, contractId, type, size and averagePrice', async () => {
    const t = await long(3);
    expect(await legacyPositions(t, t)).toEqual([{ accountId: t.accountId, contractId: t.contractId, type: 1, size: 3, averagePrice: 20000 }]);
  });

  it('a short position is type 2; no position is an empty list', async () => {
    const t = await legacyTradingApp([BAR0, 20000]);
    expect(await legacyPositions(t, t)).toEqual([]);
    await legacyPlaceOk(t, t, { type: 2, side: 1, size: 2 });
    expect((await legacyPositions(t, t)).map((p) => [p.type, p.size])).toEqual([[2, 2]]);
  });

  it("another user's account is refused", async () => {
    const t = await long(1);
    const other = await otherLegacyUser(t);
    expect((await t.call('Position/searchOpen', { accountId: other.accountId })).body).toEqual(failure(1, 'Account not found'));
  });
});

describe('Position/closeContract', () => {
  it('closes the whole position at the market', async () => {
    const t = await long(2);
    expect((await t.call('Position/closeContract', { accountId: t.accountId, contractId: t.contractId })).body).toEqual(envelope);
    expect(await legacyPositions(t, t)).toEqual([]);
    expect((await legacyTrades(t, t)).map((f) => [f.side, f.size])).toEqual([[0, 2], [1, 2]]);
  });

  it.each([
    ['no position', false, {}, 'No position found for contract'],
    ['unknown account', true, { accountId: 999_999 }, 'Account not found'],
    ['unknown contract', true, { contractId: 'CON.F.US.XYZ.H25' }, 'Contract not found'],
    ['missing contract', true, { contractId: undefined }, 'Contract not found'],
    ['a contract the session does not trade', true, { contractId: 'CON.F.US.CL.H25' }, 'No position found for contract'],
  ])('%s → errorCode 1 "%s"', async (_n, withPosition, over, message) => {
    const t = withPosition ? await long(1) : await legacyTradingApp([BAR0, 20000]);
    const r = await t.call('Position/closeContract', { accountId: t.accountId, contractId: t.contractId, ...over });
    expect(r.body).toEqual(failure(1, message));
    expect((await legacyPositions(t, t)).length).toBe(withPosition ? 1 : 0);
  });
});

describe('Position/partialCloseContract', () => {
  it('closes part of the position', async () => {
    const t = await long(3);
    expect((await t.call('Position/partialCloseContract', { accountId: t.accountId, contractId: t.contractId, size: 2 })).body).toEqual(envelope);
    expect((await legacyPositions(t, t)).map((p) => p.size)).toEqual([1]);
  });

  it.each([
    ['size larger than the position', true, { size: 4 }, 'Size exceeds current position'],
    ['size 0', true, { size: 0 }, 'Size must be greater than 0'],
    ['negative size', true, { size: -2 }, 'Size must be greater than 0'],
    ['missing size', true, { size: undefined }, 'Size must be greater than 0'],
    ['fractional size', true, { size: 1.5 }, 'Size must be a whole number'],
    ['no position', false, { size: 1 }, 'No position found for contract'],
    ['unknown account', true, { accountId: 999_999, size: 1 }, 'Account not found'],
    ['unknown contract', true, { contractId: 'CON.F.US.XYZ.H25', size: 1 }, 'Contract not found'],
  ])('%s → errorCode 1 "%s"', async (_n, withPosition, over, message) => {
    const t = withPosition ? await long(3) : await legacyTradingApp([BAR0, 20000]);
    const r = await t.call('Position/partialCloseContract', { accountId: t.accountId, contractId: t.contractId, ...over });
    expect(r.body).toEqual(failure(1, message));
    expect((await legacyPositions(t, t)).map((p) => p.size)).toEqual(withPosition ? [3] : []);
  });
});
