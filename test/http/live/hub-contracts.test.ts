// The contract the hubs name under each profile. Under live, REST names the front month of the
// replayed date (Contract/* on the replay clock; an order, a fill, a position on their own simulated
// time), so the user hub's events and the market hub's quotes name the same one, or a bot that keys
// its books by contract id (or checks a quote's `contract` against the one it resolved) would see two
// contracts; Replay/start names it too. Under the spec every contract is the wall clock's, as before. The wall clock here is in
// a later quarter (NQZ6) than the replay (NQH5), so the two differ.
import { describe, expect, it } from 'bun:test';
import { marketHub } from '../../../src/http/hubs/market-hub.ts';
import { waitFor } from '../../support/app.ts';
import { recordingConnection } from '../../support/hub-recording.ts';
import { userEvents } from '../../support/live.ts';
import { placeOk, replayApp, startSession, step } from '../../support/replay.ts';

const WALL_MS = Date.UTC(2026, 10, 28, 9, 0, 0);

async function scenario(profile: 'live' | 'spec') {
  const t = await replayApp([[19995, 20005, 19990, 20000], 20004, 20004], { nowMs: WALL_MS });
  await t.s.users.setKeyProfile(t.email, profile);
  const x = await startSession(t);
  const events = await userEvents(t, x);
  const market = await recordingConnection(t, marketHub(t.s), t.token);
  expect((await market.invoke('SubscribeContractQuotes', x.contractId)).ok).toBe(true);
  await step(t, x);
  await placeOk(t, x, { type: 2, side: 0 });
  await step(t, x);
  await waitFor(() => events.trades.length === 1 && market.sent.length >= 2);
  const quotes = market.sent.filter((m) => m.target === 'GatewayQuote').map((m) => m.args as [string, any]);
  const contractRest = (await t.post('Contract/searchById', { contractId: x.contractId }, t.token)).body.contract.id;
  return { x, events, quotes, contractRest };
}

describe('contracts named by the hubs', () => {
  it('live: every event and quote names the replayed date\'s contract, the one REST names', async () => {
    const { x, events, quotes, contractRest } = await scenario('live');
    expect(contractRest).toBe('CON.F.US.ENQ.H25');
    expect(x.contractId).toBe('CON.F.US.ENQ.H25');
    const named = [...events.orders, ...events.positions, ...events.trades].map((e) => e.contractId);
    expect(new Set(named)).toEqual(new Set(['CON.F.US.ENQ.H25']));
    expect(quotes.length).toBeGreaterThan(0);
    for (const [id, quote] of quotes) expect([id, quote.contract, quote.symbol]).toEqual(['CON.F.US.ENQ.H25', 'CON.F.US.ENQ.H25', 'F.US.ENQ']);
  });

  it('spec: the wall clock\'s contract, as before', async () => {
    const { x, events, quotes } = await scenario('spec');
    expect(x.contractId).toBe('CON.F.US.ENQ.Z26');
    const named = [...events.orders, ...events.positions, ...events.trades].map((e) => e.contractId);
    expect(new Set(named)).toEqual(new Set(['CON.F.US.ENQ.Z26']));
    for (const [, quote] of quotes) expect([quote.contract, quote.symbol]).toEqual(['CON.F.US.ENQ.Z26', 'NQ']);
  });
});
