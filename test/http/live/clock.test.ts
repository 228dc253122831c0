// The live profile's clock of requests that name no account (src/service/replay-clock.ts): Contract
// and History take the simulated time of the user's live session acted on last, by any of the user's
// tokens or the console; the wall clock when none is live. Contracts name the front month on that
// clock's date (NQH5 during a March 2025 replay, NQZ6 on the wall clock of 2026-11-28).
import { describe, expect, it } from 'bun:test';
import { makeApp, type TestApp, webCall, webLogin } from '../../support/app.ts';
import { barsOf, dayOf, secondsOf } from '../../support/bars.ts';

const WALL_MS = Date.UTC(2026, 10, 28, 9, 0, 0); // the front month on this date is Z26
const OPEN_S = secondsOf('2025-03-03T14:30:00Z');
const SECOND = 1000;

/**
 * A live-profile server on 2026-11-28 holding NQ on 2025-03-03 (one 1 s bar a minute from 14:30, as
 * test/support/replay.ts) and synthetic days 2024-01-08 and 09; the trader signed in with two tokens
 * of one key and to the console.
 */
async function clockApp() {
  const t = await makeApp({ nowMs: WALL_MS, config: { apiProfile: 'live', dataStartDate: '2024-01-08', dataEndDate: '2024-01-09' } });
  const p = 80_000;
  t.s.chunks.put('NQ', dayOf('2025-03-03T00:00:00Z'), 'import', barsOf(Array.from({ length: 30 }, (_, i) => [OPEN_S + i * 60, p, p, p, p, 1])));
  const [bot1, bot2] = [await t.login(), await t.login()];
  expect((await t.s.webAuth.setPassword(t.email, 'a long enough password')).ok).toBe(true);
  const cookie = await webLogin(t, t.email, 'a long enough password');
  return Object.assign(t, { bot1, bot2, cookie });
}

type ClockApp = Awaited<ReturnType<typeof clockApp>>;

/** The name Contract/searchById gives NQ: the front month on the request's clock. */
async function nqName(t: TestApp, token: string): Promise<string> {
  const r = await t.post('Contract/searchById', { contractId: 'CON.F.US.ENQ.H25' }, token);
  expect(r.body.success).toBe(true);
  return r.body.contract.name;
}

async function start(t: ClockApp, token: string, startDate: string): Promise<number> {
  const r = await t.post('Replay/start', { instrumentSymbol: 'NQ', startDate, timeframe: '1m' }, token);
  expect(r.body.success).toBe(true);
  return r.body.accountId;
}

async function ok(t: TestApp, path: string, body: unknown, token: string) {
  const r = await t.post(path, body, token);
  expect(r.body).toMatchObject({ success: true });
  return r.body;
}

/** The console steps a session with its cookie (the spec's shapes, the same services). */
async function consoleStep(t: ClockApp, accountId: number) {
  const r = await webCall(t, 'POST', '/api/sim/Replay/step', { cookie: t.cookie, headers: { origin: 'http://localhost' }, body: { accountId, steps: 1 } });
  expect(r.body.success).toBe(true);
}

/** The newest 1 m bar live History serves with no bounds: the last bar before the clock. */
async function newestBar(t: TestApp, token: string): Promise<string> {
  const r = await t.post('History/retrieveBars', { contractId: 'CON.F.US.ENQ.H25', unit: 2, unitNumber: 1, limit: 1, includePartialBar: false }, token);
  expect(r.body.success).toBe(true);
  return r.body.bars[0]?.t;
}

describe('the clock of a request that names no account', () => {
  it('follows the live session acted on last by any token or the console; an ended one drops out; none is the wall clock', async () => {
    const t = await clockApp();
    expect(await nqName(t, t.bot1)).toBe('NQZ6');

    const march = await start(t, t.bot1, '2025-03-03');
    expect(await nqName(t, t.bot2)).toBe('NQH5');
    t.clock.advance(SECOND);
    const january = await start(t, t.bot2, '2024-01-08');
    expect([await nqName(t, t.bot1), await nqName(t, t.bot2)]).toEqual(['NQH4', 'NQH4']);

    // Acted on last, although the other was started later.
    t.clock.advance(SECOND);
    await ok(t, 'Replay/step', { accountId: march, steps: 1 }, t.bot1);
    expect([await nqName(t, t.bot1), await nqName(t, t.bot2)]).toEqual(['NQH5', 'NQH5']);
    // Exactly its time: the end of the 14:30 bar, the one bar played.
    expect(await newestBar(t, t.bot2)).toBe('2025-03-03T14:30:00Z');

    // The console acts on the other one.
    t.clock.advance(SECOND);
    await consoleStep(t, january);
    expect(await nqName(t, t.bot1)).toBe('NQH4');

    // An order, and a bot polling positions (a read that keeps the session from idling), count too.
    t.clock.advance(SECOND);
    await ok(t, 'Order/place', { accountId: march, contractId: 'CON.F.US.ENQ.H25', type: 1, side: 0, size: 1, limitPrice: 19000 }, t.bot2);
    expect(await nqName(t, t.bot1)).toBe('NQH5');
    t.clock.advance(SECOND);
    await ok(t, 'Position/searchOpen', { accountId: january }, t.bot2);
    expect(await nqName(t, t.bot1)).toBe('NQH4');

    // Ending the session acted on last hands the clock to the one still live.
    t.clock.advance(SECOND);
    await ok(t, 'Replay/end', { accountId: january }, t.bot1);
    expect(await nqName(t, t.bot2)).toBe('NQH5');
    expect(await newestBar(t, t.bot2)).toBe('2025-03-03T14:30:00Z');

    // None live: the wall clock.
    t.clock.advance(SECOND);
    await ok(t, 'Replay/end', { accountId: march }, t.bot2);
    expect(await nqName(t, t.bot1)).toBe('NQZ6');
  });

  it('two sessions acted on in the same millisecond: the one started later', async () => {
    const t = await clockApp();
    await start(t, t.bot1, '2024-01-08');
    await start(t, t.bot2, '2025-03-03');
    expect(await nqName(t, t.bot1)).toBe('NQH5');
  });

  it('a refused command changes nothing, so it does not count', async () => {
    const t = await clockApp();
    const march = await start(t, t.bot1, '2025-03-03');
    t.clock.advance(SECOND);
    await start(t, t.bot1, '2024-01-08');
    t.clock.advance(SECOND);
    const refused = await t.post('Order/cancel', { accountId: march, orderId: 999 }, t.bot1);
    expect(refused.body).toMatchObject({ success: false, errorCode: 2 });
    expect(await nqName(t, t.bot1)).toBe('NQH4');
  });
});

describe('Contract/* under the live profile', () => {
  it('names the contract that traded on the replayed date (NQH5 / CON.F.US.ENQ.H25 during a March 2025 replay), the wall clock\'s without one', async () => {
    const t = await clockApp();
    const wall = await t.post('Contract/search', { searchText: 'NQZ6' }, t.bot1);
    // MNQ matches too.
    expect(wall.body.contracts.map((c: any) => [c.id, c.name])).toEqual([['CON.F.US.ENQ.Z26', 'NQZ6'], ['CON.F.US.MNQ.Z26', 'MNQZ6']]);
    const march = await start(t, t.bot1, '2025-03-03');
    for (const path of ['Contract/search', 'Contract/available']) {
      const r = await t.post(path, { searchText: 'NQH5', live: false }, t.bot1);
      expect(r.body.contracts.map((c: any) => [c.id, c.name, c.symbolId])).toEqual([
        ['CON.F.US.ENQ.H25', 'NQH5', 'F.US.ENQ'],
        ['CON.F.US.MNQ.H25', 'MNQH5', 'F.US.MNQ'],
      ]);
    }
    const all = await t.post('Contract/available', { live: false }, t.bot1);
    expect(all.body.contracts.find((c: any) => c.symbolId === 'F.US.EP')).toMatchObject({ id: 'CON.F.US.EP.H25', name: 'ESH5' });
    const byId = await t.post('Contract/searchById', { contractId: 'CON.F.US.ENQ.Z26' }, t.bot1);
    expect(byId.body.contract).toMatchObject({ id: 'CON.F.US.ENQ.Z26', name: 'NQH5' });

    // The console's own requests keep the spec's clock: the wall clock's front month.
    const viaConsole = await webCall(t, 'POST', '/api/sim/Contract/searchById', { cookie: t.cookie, headers: { origin: 'http://localhost' }, body: { contractId: 'CON.F.US.ENQ.H25' } });
    expect(viaConsole.body.contract).toMatchObject({ id: 'CON.F.US.ENQ.H25', name: 'NQZ6', symbolId: 'NQ' });

    // Orders take either month, the replayed date's or today's (a received ID is matched on its symbol).
    await ok(t, 'Replay/step', { accountId: march, steps: 1 }, t.bot1);
    for (const contractId of ['CON.F.US.ENQ.H25', 'CON.F.US.ENQ.Z26']) {
      await ok(t, 'Order/place', { accountId: march, contractId, type: 1, side: 0, size: 1, limitPrice: 19000 }, t.bot1);
    }
    expect((await ok(t, 'Order/searchOpen', { accountId: march }, t.bot1)).orders.length).toBe(2);
  });
});
