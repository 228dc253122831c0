// GET /api/auth/replay-sessions/:accountId/trailing-stops (desk order tools): the working trailing
// stops of a live session with their trail, whoever placed them, for the desk, whose order view (the
// spec's) lists them as stops.
import { describe, expect, it } from 'bun:test';
import { webCall, webLogin } from '../../support/app.ts';
import { liveApp } from '../../support/live.ts';
import { type BarSpec, openOrders, placeOk, step } from '../../support/replay.ts';

const PASSWORD = 'correct horse battery staple';
const BAR0: BarSpec = [19995, 20005, 19990, 20000];

async function setup() {
  const t = await liveApp([BAR0, 20000, 20000]);
  await t.s.webAuth.setPassword(t.email, PASSWORD);
  const cookie = await webLogin(t, t.email, PASSWORD);
  const read = async (accountId = t.accountId) => (await webCall(t, 'GET', `/api/auth/replay-sessions/${accountId}/trailing-stops`, { cookie })).body;
  return { t, read };
}

describe('GET /api/auth/replay-sessions/:accountId/trailing-stops', () => {
  it('lists a bot’s trailing stop and a trailing stop-loss leg with their trail, newest first; not a plain stop', async () => {
    const { t, read } = await setup();
    expect(await read()).toEqual({ success: true, errorCode: 0, errorMessage: null, trailingStops: [] });
    // A bot (live profile): a sell trailing stop 12 ticks (3 points) behind, a plain sell stop, and a
    // market buy whose stop-loss leg trails by 8 ticks.
    const trail = await placeOk(t, t, { type: 5, side: 1, size: 1, trailPrice: 3 });
    await placeOk(t, t, { type: 4, side: 1, size: 1, stopPrice: 19_950 });
    const entry = await placeOk(t, t, { type: 2, side: 0, size: 1, stopLossBracket: { ticks: -8, type: 5 } });
    await step(t, t);
    const leg = (await openOrders(t, t)).find((o: any) => o.type === 5 && o.id > entry);
    expect(leg).toBeDefined();
    expect(await read()).toEqual({
      success: true, errorCode: 0, errorMessage: null,
      trailingStops: [
        { orderId: leg.id, contractId: t.contractId, trailTicks: 8, trailPrice: 2 },
        { orderId: trail, contractId: t.contractId, trailTicks: 12, trailPrice: 3 },
      ],
    });
  });

  it('answers another user’s or an unknown session as the session read does, and a caller without the cookie 401', async () => {
    const { t, read } = await setup();
    const info = await webCall(t, 'GET', `/api/auth/replay-sessions/${t.accountId + 1000}`, { cookie: await webLogin(t, t.email, PASSWORD) });
    const { success, errorCode, errorMessage } = info.body;
    expect(await read(t.accountId + 1000)).toEqual({ success, errorCode, errorMessage });
    expect(success).toBe(false);
    expect((await webCall(t, 'GET', `/api/auth/replay-sessions/${t.accountId}/trailing-stops`, { cookie: null })).status).toBe(401);
  });
});
