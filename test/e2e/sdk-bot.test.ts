// End to end, a bot written the way the public SDKs of the live gateway work (test/support/sdk-bot.ts):
// over a real listening server it logs in with its key, resolves NQ by `symbolId`, starts a replay,
// asks History for "the last 3 days until now" on its own wall clock, connects both hubs with the
// official SignalR client, and trades on quotes during Replay/play (entries with a trailing stop-loss
// bracket, a modify-driven break-even, customTags mapping fills to signals), every REST answer and hub
// payload parsed by strict models (test/support/sdk-models.ts). Its only change for ReplayDesk is the
// base URL: `http://HOST/live` (the live profile by URL, the server's default being the spec).
//
// Playback runs in lock-step with the bot so that nothing depends on the machine's speed: the server's
// clock (which drives Replay/play) moves one bar further only once the bot has received the quote of
// the bar played and has no request in flight. The bot's decisions are recorded with the session time
// each took effect, replayed between Replay/step calls on a fresh server, and must give the same
// fills, orders and balance.

import { afterEach, describe, expect, it } from 'bun:test';
import { hubAuthentication } from '../../src/http/hubs/auth.ts';
import { gatewayHubs } from '../../src/http/hubs/index.ts';
import { PROFILE_PREFIXES } from '../../src/http/shared/profile.ts';
import { waitFor } from '../support/app.ts';
import { barsOf, dayOf, secondsOf } from '../support/bars.ts';
import { startHubServer, type HubServer } from '../support/hub-server.ts';
import { type BarSpec, DAY, OPEN_S, replayApp, ticks } from '../support/replay.ts';
import { type Action, SdkBot } from '../support/sdk-bot.ts';

const servers: HubServer[] = [];
const bots: SdkBot[] = [];
afterEach(async () => {
  for (const b of bots.splice(0)) await b.stop();
  for (const h of servers.splice(0)) await h.stop();
});

/** 30 history bars before the session, 23:30 to 23:59 on 2025-03-02, rising a tick a minute to 20,000. */
const HISTORY_FROM_S = secondsOf('2025-03-02T23:30:00Z');

/** Two overlapping waves around 20,000 (amplitudes 12 and 4 points): trends long enough to trail, turns to stop out. */
function waveBars(n: number): BarSpec[] {
  const out: BarSpec[] = [];
  let prev = 20000;
  for (let i = 0; i < n; i++) {
    const close = 20000 + Math.round((12 * Math.sin((2 * Math.PI * i) / 26) + 4 * Math.sin((2 * Math.PI * i) / 7)) * 4) / 4;
    out.push([prev, Math.max(prev, close) + 0.5, Math.min(prev, close) - 0.5, close]);
    prev = close;
  }
  return out;
}

/** A server on the wall clock of now (its services' clock, which playback follows), with the bars of DAY and the history. */
async function serve(bars: readonly BarSpec[]) {
  const t = await replayApp(bars, { nowMs: Date.now() });
  const history = Array.from({ length: 30 }, (_, i) => {
    const p = ticks(19992.75) + i;
    return [HISTORY_FROM_S + i * 60, p, p, p, p, 3];
  });
  t.s.chunks.put('NQ', dayOf('2025-03-02T00:00:00Z'), 'import', barsOf(history));
  const h = await startHubServer({ hubs: gatewayHubs(t.s), t, ...hubAuthentication(t.s), pathPrefixes: PROFILE_PREFIXES });
  servers.push(h);
  const bot = new SdkBot(`${h.baseUrl}/live`);
  bots.push(bot);
  await bot.login(t.email, t.apiKey);
  return { t, h, bot };
}

type Served = Awaited<ReturnType<typeof serve>>;

/**
 * Replay/start of NQ, then the contract resolved as an SDK resolves it: on the replay clock, which
 * the session just started sets (the front month of the replayed date, the one Replay/start names);
 * the account must be listed, active, tradable.
 */
async function startOn(x: Served) {
  const started = await x.bot.call('Replay/start', { instrumentSymbol: 'NQ', startDate: DAY, timeframe: '1m' });
  const contract = await x.bot.resolveContract();
  expect(contract).toMatchObject({ id: 'CON.F.US.ENQ.H25', name: 'NQH5', symbolId: 'F.US.ENQ', tickSize: 0.25, tickValue: 5 });
  expect(started.instrument).toMatchObject({ contractId: contract.id, name: contract.name });
  x.bot.accountId = started.accountId;
  const accounts = (await x.bot.call('Account/search', { onlyActiveAccounts: true })).accounts;
  expect(accounts.find((a: any) => a.id === started.accountId)).toMatchObject({ balance: 50000, canTrade: true, simulated: true });
  return started;
}

/**
 * Replay/play at speed 10 (20 bars a second of the services' clock) with the clock moved one bar
 * (50 ms) at a time, only when the bar made due has been played, its quote has reached the bot and
 * the bot has no request in flight.
 */
async function playLockStep(x: Served) {
  const userId = (await x.t.s.users.list())[0].id;
  const session = () => x.t.s.replay.liveSessionsOf(userId)[0];
  expect((await x.bot.call('Replay/play', { accountId: x.bot.accountId, speed: 10 })).playing).toBe(true);
  let advanced = 0;
  const deadline = Date.now() + 240_000;
  while (session()?.playTimer !== null && session() !== undefined) {
    if (Date.now() > deadline) throw new Error(`playback did not end in time (bar ${advanced})`);
    const s = session();
    const caughtUp = s.currentIndex >= advanced && !s.busy && x.bot.inFlight === 0 && (advanced === 0 || x.bot.lastQuoteS >= s.nowS);
    if (caughtUp) {
      x.t.clock.advance(50);
      advanced++;
    }
    await Bun.sleep(caughtUp ? 1 : 3);
  }
}

/** The same actions between steps on a fresh server: step to each action's time, send it; then play every bar left. */
async function replayBetweenSteps(bars: readonly BarSpec[], actions: readonly Action[]) {
  const y = await serve(bars);
  await startOn(y);
  const step = (steps: number) => y.bot.call('Replay/step', { accountId: y.bot.accountId, steps });
  let nowS = OPEN_S;
  for (const a of actions) {
    for (let left = (a.timeS - nowS) / 60; left > 0; left -= 100) await step(Math.min(100, left));
    nowS = Math.max(nowS, a.timeS);
    const r = await y.bot.call(a.path, { accountId: y.bot.accountId, ...a.body });
    expect(r.success).toBe(true);
  }
  while ((await step(100)).barsProcessed > 0);
  return y;
}

/** What the two runs must agree on: fills, orders and the balance (ids included: they follow the same commands). */
async function outcome(bot: SdkBot) {
  const strip = (rows: any[]) => rows.map(({ accountId, ...r }) => r);
  const trades = (await bot.call('Trade/search', { accountId: bot.accountId, startTimestamp: '2025-03-01T00:00:00Z' })).trades;
  const orders = (await bot.call('Order/search', { accountId: bot.accountId, startTimestamp: '2025-03-01T00:00:00Z' })).orders;
  const positions = (await bot.call('Position/searchOpen', { accountId: bot.accountId })).positions;
  const balance = (await bot.call('Account/search', { onlyActiveAccounts: true })).accounts.find((a: any) => a.id === bot.accountId).balance;
  return { trades: strip(trades), orders: strip(orders), positions: strip(positions), balance };
}

describe('an SDK-style bot over the live profile', () => {
  it('resolves its contract, reads the last 3 days, trades on quotes during Replay/play, and ends with the fills of the same decisions made between steps', async () => {
    const bars = waveBars(120);
    const x = await serve(bars);
    await startOn(x);

    // "The last 3 days until now" on the bot's wall clock: the bars before the session's time, newest first.
    const history = await x.bot.lastThreeDays(Date.now());
    expect(history.length).toBe(30);
    expect(history[0]).toEqual({ t: '2025-03-02T23:59:00Z', o: 20000, h: 20000, l: 20000, c: 20000, v: 3 });
    expect(history.at(-1).t).toBe('2025-03-02T23:30:00Z');
    expect(history.map((b: any) => b.t)).toEqual(history.map((b: any) => b.t).sort().reverse());

    await x.bot.connect();
    await playLockStep(x);
    const played = await outcome(x.bot);
    await waitFor(() => x.bot.settled && [...x.bot.fillsBySignal.values()].flat().length === played.trades.length, 60_000);
    expect(x.bot.errors).toEqual([]);

    // It traded: several signals, at least one break-even, every fill mapped to its signal by customTag.
    const entries = x.bot.actions.filter((a) => a.path === 'Order/place');
    const breakEvens = x.bot.actions.filter((a) => a.path === 'Order/modify');
    expect(entries.length).toBeGreaterThan(2);
    expect(breakEvens.length).toBeGreaterThan(0);
    expect([...x.bot.fillsBySignal.values()].flat().sort((a, b) => a - b)).toEqual(played.trades.map((f: any) => f.id).sort((a: number, b: number) => a - b));
    for (const fills of x.bot.fillsBySignal.values()) expect(fills.length).toBeLessThanOrEqual(2);
    // A break-even moved a trailing leg whose stop then stood at the entry or better.
    expect(played.orders.filter((o: any) => o.type === 5 && o.updateTimestamp !== o.creationTimestamp).length).toBeGreaterThan(0);

    const actions = [...x.bot.actions].sort((a, b) => a.seq - b.seq);
    const y = await replayBetweenSteps(bars, actions);
    const stepped = await outcome(y.bot);
    expect(stepped).toEqual(played);
    expect(x.bot.parsed).toBeGreaterThan(100);
  }, 300_000);
});
