// Issue 34's "done when": a bot trading NQ and ES on one challenge account over REST and the hubs
// (the official SignalR client) through a day of replay. The bot plays the synthetic 2025-03-03 in
// 5 m buckets from 02:00 to the end of the data with one Replay/play; on an NQ quote that rose it buys
// 1 NQ and sells 1 ES at market (a spread), on the next NQ quote it closes both; it opens at most six
// times, and not after 08:00 (the quiet hours: a 1-lot ES short can lose the daily $1,000 in one
// 5 m bar of the synthetic US open). Its positions come from the user hub. Afterwards, the expectation is computed independently of the
// server from History/retrieveBars and the orders' own times: a market order fills at its contract's
// last close before the order's time; P&L per contract at $20 (NQ) and $50 (ES) a point, $1.40 a side.
import { afterEach, describe, expect, it } from 'bun:test';
import type { HubConnection } from '@microsoft/signalr';
import { waitFor } from '../../support/app.ts';
import { type ChallengeApp, createChallenge, propFirm } from '../../support/challenge.ts';
import { account } from '../../support/replay.ts';
import { type HubBench, hubBench, stopHubs } from './hubs.ts';
import { ES, multiApp, NQ } from './multi.ts';

afterEach(stopHubs);

const DAY = '2025-03-03';
const START = '2025-03-03T02:00:00Z';
const STOP_OPENING = '2025-03-03T08:00';
const ENTRIES_MAX = 6;
const POINT: Record<string, number> = { [NQ]: 20, [ES]: 50 };
const FEE = 1.4;
const cents = (x: number) => Math.round(x * 100) / 100;

/** The bot: spread entries on rising NQ quotes, exits on the next NQ quote; positions from the user hub. */
class SpreadBot {
  readonly size: Record<string, number> = { [NQ]: 0, [ES]: 0 };
  readonly errors: unknown[] = [];
  trades = 0;
  entries = 0;
  busy = false;
  private previous: number | null = null;

  constructor(private readonly b: HubBench, private readonly accountId: number) {}

  listen(market: HubConnection, user: HubConnection) {
    // A closed position is deleted (action 2) with size 0.
    user.on('GatewayUserPosition', (e: any) => {
      const gone = e.action === 2 || e.data.size === 0;
      this.size[e.data.contractId] = gone ? 0 : e.data.type === 2 ? -e.data.size : e.data.size;
    });
    user.on('GatewayUserTrade', () => this.trades++);
    market.on('GatewayQuote', (contractId: string, q: any) => {
      if (contractId === NQ) this.onNq(q.lastPrice, q.timestamp);
    });
  }

  private onNq(price: number, time: string) {
    const rising = this.previous !== null && price > this.previous;
    this.previous = price;
    if (this.busy) return;
    const flat = this.size[NQ] === 0 && this.size[ES] === 0;
    if (flat && rising && time < STOP_OPENING && this.entries < ENTRIES_MAX) this.act(() => this.open(), { [NQ]: 1, [ES]: -1 });
    else if (!flat) this.act(() => this.close(), { [NQ]: 0, [ES]: 0 });
  }

  /** Sends the orders, then waits for the user hub to show the positions they make. */
  private act(send: () => Promise<void>, want: Record<string, number>) {
    this.busy = true;
    send()
      .then(() => waitFor(() => this.size[NQ] === want[NQ] && this.size[ES] === want[ES], 60_000))
      .catch((e) => this.errors.push(e))
      .finally(() => (this.busy = false));
  }

  private async open() {
    this.entries++;
    for (const [contractId, side] of [[NQ, 0], [ES, 1]] as const) {
      const r = await this.b.post('Order/place', { accountId: this.accountId, contractId, type: 2, side, size: 1 });
      if (!r.success) this.errors.push(r);
    }
  }

  private async close() {
    for (const contractId of [NQ, ES]) {
      const r = await this.b.post('Position/closeContract', { accountId: this.accountId, contractId });
      if (!r.success) this.errors.push(r);
    }
  }
}

/** Each contract's 5 m bars of the day from History (oldest first). */
async function history(b: HubBench): Promise<Record<string, any[]>> {
  const out: Record<string, any[]> = {};
  for (const contractId of [NQ, ES]) {
    const r = await b.post('History/retrieveBars', { contractId, unit: 2, unitNumber: 5, startTime: `${DAY}T00:00:00Z`, endTime: '2025-03-04T00:00:00Z', limit: 20_000 });
    out[contractId] = r.bars;
  }
  return out;
}

interface Fill {
  orderId: number;
  contractId: string;
  side: number;
  size: number;
  price: number;
  fees: number;
}

/** The expected fills of `orders` (market orders) and the balance they leave, by hand from the bars. */
function expectation(orders: any[], bars: Record<string, any[]>): { fills: Fill[]; balance: number } {
  const lastClose = (contractId: string, time: string) =>
    bars[contractId].filter((b) => Date.parse(b.t) + 300_000 <= Date.parse(time)).at(-1).c as number;
  const fills: Fill[] = [...orders].sort((a, b) => a.id - b.id).map((o) => ({
    orderId: o.id, contractId: o.contractId, side: o.side, size: o.size, price: lastClose(o.contractId, o.creationTimestamp), fees: cents(FEE * o.size),
  }));
  // One lot at a time per contract: each closing fill realizes against the opening one.
  const open: Record<string, number | null> = { [NQ]: null, [ES]: null };
  let balance = 50_000;
  for (const f of fills) {
    balance -= f.fees;
    const entry = open[f.contractId];
    if (entry === null) open[f.contractId] = f.price;
    else {
      balance += (f.side === 1 ? f.price - entry : entry - f.price) * POINT[f.contractId];
      open[f.contractId] = null;
    }
  }
  return { fills, balance: cents(balance) };
}

/**
 * The worst equity any bar allowed while a spread was held (NQ at its lows, ES at its highs over the
 * bars between its entry and exit): each round trip is four orders, NQ and ES in, NQ and ES out.
 */
function worstEquity(fills: Fill[], timeOf: Map<number, string>, bars: Record<string, any[]>): number {
  let balance = 50_000;
  let worst = balance;
  for (let i = 0; i + 4 <= fills.length; i += 4) {
    const [nqIn, esIn, nqOut, esOut] = fills.slice(i, i + 4);
    const [from, to] = [timeOf.get(nqIn.orderId)!, [nqOut, esOut].map((f) => timeOf.get(f.orderId)!).sort()[1]];
    const during = (c: string) => bars[c].filter((b) => b.t >= from && b.t < to);
    const lowNq = Math.min(nqIn.price, ...during(NQ).map((b) => b.l));
    const highEs = Math.max(esIn.price, ...during(ES).map((b) => b.h));
    balance -= 4 * FEE;
    worst = Math.min(worst, balance + (lowNq - nqIn.price) * POINT[NQ] + (esIn.price - highEs) * POINT[ES]);
    balance += (nqOut.price - nqIn.price) * POINT[NQ] + (esIn.price - esOut.price) * POINT[ES];
  }
  return worst;
}

describe('a bot trading NQ and ES through a day of replay', () => {
  it('ends with the fills, balance and rule state of an independent computation', async () => {
    const t: ChallengeApp = await multiApp({}, { dataStartDate: DAY, dataEndDate: DAY });
    const c = await createChallenge(t);
    const b = await hubBench(t);
    const x = await b.post('Replay/start', { instrumentSymbols: ['NQ', 'ES'], startDate: DAY, timeframe: '5m', accountId: c });
    expect(x.instruments.map((i: any) => i.contractId)).toEqual([NQ, ES]);
    expect((await b.post('Replay/jumpTo', { accountId: x.accountId, targetTime: START })).success).toBe(true);
    const [market, user] = [await b.connect('market'), await b.connect('user')];
    const bot = new SpreadBot(b, x.accountId);
    bot.listen(market, user);
    for (const m of ['SubscribePositions', 'SubscribeTrades']) await user.invoke(m, x.accountId);
    for (const contractId of [NQ, ES]) await market.invoke('SubscribeContractQuotes', contractId);
    expect((await b.post('Replay/play', { accountId: x.accountId, speed: 50 })).playing).toBe(true);
    const pace = setInterval(() => t.clock.advance(5), 10); // 50 buckets a second of real time
    try {
      await waitFor(() => t.s.replay.liveSessionsOf(t.userId)[0]?.playTimer === null && !bot.busy, 120_000);
    } finally {
      clearInterval(pace);
    }
    expect(bot.errors).toEqual([]);
    expect(bot.entries).toBeGreaterThan(2);
    expect(bot.size).toEqual({ [NQ]: 0, [ES]: 0 });
    expect((await b.post('Position/searchOpen', { accountId: x.accountId })).positions).toEqual([]);

    const bars = await history(b);
    const orders = (await b.post('Order/search', { accountId: x.accountId })).orders;
    const timeOf = new Map<number, string>(orders.map((o: any) => [o.id, o.creationTimestamp]));
    expect(orders.length).toBe(4 * bot.entries);
    const want = expectation(orders, bars);
    const fills = (await b.post('Trade/search', { accountId: x.accountId })).trades;
    expect(fills.map((f: any) => ({ orderId: f.orderId, contractId: f.contractId, side: f.side, size: f.size, price: f.price, fees: f.fees })).sort((p: Fill, q: Fill) => p.orderId - q.orderId)).toEqual(want.fills);
    expect(bot.trades).toBe(fills.length);
    // The scenario never reached the 49,000 daily floor (nor the 48,000 maximum loss), even at the
    // worst bar: the rules stay quiet.
    expect(worstEquity(want.fills, timeOf, bars)).toBeGreaterThan(49_000);
    const paused = await b.post('Replay/pause', { accountId: x.accountId });
    expect(paused.account).toEqual(account(want.balance));
    expect(paused.propFirm).toEqual(propFirm({ tradingDaysCount: 1 }));
    expect((await b.post('Account/search', {})).accounts.find((a: any) => a.id === c).balance).toBe(want.balance);
  }, 120_000);
});
