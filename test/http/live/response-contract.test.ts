// Every live declaration (src/http/sim/live-schemas.ts) is the one a live answer is held to. The
// suite's response contract (test/support/response-contract.ts) checks every answer against the
// schema of the declaration that served it; a profile's declarations share method and path with the
// spec's, so the contract counts answers per declaration (`responseContract.checkedBy`). Here a bot
// under the live profile calls every endpoint that answers differently, successes and the live
// table's own refusals (codes the spec's table does not have), and each live declaration must have
// checked them while the spec's counterparts checked none; then the same calls under the spec move
// only the spec's.
import { describe, expect, it } from 'bun:test';
import type { ContractEndpoint } from '../../../src/http/shared/response-contract.ts';
import { responseContract } from '../../../src/http/shared/response-contract.ts';
import * as live from '../../../src/http/sim/live-schemas.ts';
import { SIM_ENDPOINTS } from '../../../src/http/sim/schemas.ts';
import { liveApp, specPost } from '../../support/live.ts';
import { type BarSpec, type ReplayTestApp } from '../../support/replay.ts';

const LIVE_DECLARATIONS = Object.values(live).filter((v): v is typeof live.orderPlace => typeof v === 'object' && v !== null && 'path' in v && 'responses' in v) as unknown as ContractEndpoint[];
const specOf = (ep: ContractEndpoint) => SIM_ENDPOINTS.find((s) => s.method === ep.method && s.path === ep.path) as unknown as ContractEndpoint;
const count = (ep: ContractEndpoint) => [...(responseContract.checkedBy.get(ep)?.values() ?? [])].reduce((a, b) => a + b, 0);
const counts = () => new Map([...LIVE_DECLARATIONS, ...LIVE_DECLARATIONS.map(specOf)].map((ep) => [ep, count(ep)]));

const BARS: BarSpec[] = [[19995, 20005, 19990, 20000], 20002, 20004];

/** Every endpoint with a live declaration, once with success and once refused where the live table differs. */
async function everyEndpoint(t: ReplayTestApp, accountId: number, call: (path: string, body: Record<string, unknown>) => Promise<any>) {
  const contractId = 'CON.F.US.ENQ.H25';
  const results: any[] = [];
  const go = async (path: string, body: Record<string, unknown>) => results.push([path, await call(path, { accountId, ...body })]);
  await go('Replay/step', { steps: 1 });
  await go('Order/place', { contractId, type: 2, side: 0, size: 2 });
  await go('Order/place', { contractId, type: 2, side: 0, size: 60 }); // live: 3 InsufficientFunds
  await go('Order/place', { contractId: 'CON.F.US.NOPE.H25', type: 2, side: 0, size: 1 }); // live: 8 ContractNotFound
  await go('Order/place', { contractId, type: 1, side: 1, size: 1, limitPrice: 20100 });
  await go('Order/modify', { orderId: 3, limitPrice: 20090 }); // 2 is the margin refusal's record
  await go('Order/modify', { orderId: 99, limitPrice: 20090 });
  await go('Order/searchOpen', {});
  await go('Order/search', {});
  await go('Position/searchOpen', {});
  await go('Position/partialCloseContract', { contractId, size: 1 });
  await go('Position/partialCloseContract', { contractId, size: 5 }); // live: 5 InvalidCloseSize
  await go('Position/closeContract', { contractId });
  await go('Position/closeContract', { contractId });
  await go('Trade/search', {});
  await go('History/retrieveBars', { contractId, unit: 2, unitNumber: 1, limit: 5, includePartialBar: false, live: false });
  return results;
}

describe('the live declarations hold the live answers', () => {
  it('every live declaration checked this file\'s live answers, the spec\'s none; spec answers move only the spec\'s', async () => {
    expect(LIVE_DECLARATIONS.map((ep) => `${ep.method} ${ep.path}`).sort()).toEqual([
      'POST /History/retrieveBars', 'POST /Order/modify', 'POST /Order/place', 'POST /Order/search', 'POST /Order/searchOpen',
      'POST /Position/closeContract', 'POST /Position/partialCloseContract', 'POST /Position/searchOpen', 'POST /Trade/search',
    ]);
    const t = await liveApp(BARS, 0);
    const before = counts();
    const liveAnswers = await everyEndpoint(t, t.accountId, async (path, body) => (await t.post(path, body, t.token)).body);
    // The live table's own codes were answered (and held to the live schemas).
    expect(liveAnswers.map(([path, b]) => [path, b.errorCode])).toEqual([
      ['Replay/step', 0], ['Order/place', 0], ['Order/place', 3], ['Order/place', 8], ['Order/place', 0], ['Order/modify', 0],
      ['Order/modify', 2], ['Order/searchOpen', 0], ['Order/search', 0], ['Position/searchOpen', 0], ['Position/partialCloseContract', 0],
      ['Position/partialCloseContract', 5], ['Position/closeContract', 0], ['Position/closeContract', 2], ['Trade/search', 0],
      ['History/retrieveBars', 0],
    ]);
    const afterLive = counts();
    for (const ep of LIVE_DECLARATIONS) {
      expect([ep.path, (afterLive.get(ep) as number) - (before.get(ep) as number) > 0]).toEqual([ep.path, true]);
      expect([ep.path, afterLive.get(specOf(ep))]).toEqual([ep.path, before.get(specOf(ep))]);
    }

    // The same calls through the spec's base URL: only the spec's declarations count them.
    const x = await liveApp(BARS, 0);
    await everyEndpoint(x, x.accountId, (path, body) => specPost(x, path, body));
    const afterSpec = counts();
    for (const ep of LIVE_DECLARATIONS) {
      expect([ep.path, afterSpec.get(ep)]).toEqual([ep.path, afterLive.get(ep)]);
      expect([ep.path, (afterSpec.get(specOf(ep)) as number) > (afterLive.get(specOf(ep)) as number)]).toEqual([ep.path, true]);
    }
  });
});
