// A trading bot written the way the public SDKs of the live gateway work (project-x-py, projectx-sdk,
// topstepx-cli, glitch-topstep): REST with `fetch` under a base URL it only ever appends
// `/api/Group/op` to, both hubs with the official SignalR client (`@microsoft/signalr`, WebSockets,
// negotiation skipped, the token as `access_token`), every answer and payload parsed by strict models
// (sdk-models.ts), its contract resolved by `symbolId`, fills mapped to its signals by `customTag`.
//
// Its strategy, on quotes: when flat, a rising quote opens a signal (alternately long and short) with
// a market order carrying a trailing stop-loss (type 5, 20 ticks) and a take-profit (type 1, 40 ticks);
// once in profit by 8 ticks it moves the stop to break-even by changing the trailing leg's trailPrice
// (the best price reached minus the entry). It records each action with the session time it took
// effect (read from the user hub: an entry's creation, a modify's update), so the same decisions can be
// replayed between steps.

import { HttpTransportType, type HubConnection, HubConnectionBuilder, LogLevel } from '@microsoft/signalr';
import { OrderEvent, parseAnswer, parseStrict, type Path, Position, Quote, Trade, Wrapped } from './sdk-models.ts';

export const SYMBOL_ID = 'F.US.ENQ';
export const TICK = 0.25;
const TRAIL_TICKS = 20;
const TARGET_TICKS = 40;
const BREAK_EVEN_TICKS = 8;

/** A decision as it took effect: the order of its effect among the user events, its session time, its request. */
export interface Action {
  seq: number;
  timeS: number;
  path: 'Order/place' | 'Order/modify';
  body: Record<string, unknown>;
}

interface Signal {
  tag: string;
  side: 0 | 1;
  entryId: number | null;
  entryPrice: number | null;
  state: 'pending' | 'open' | 'closed';
  slId: number | null;
  slStop: number | null;
  slUpdated: string | null;
  trail: number;
  breakEven: boolean;
}

interface PendingModify {
  body: Record<string, unknown>;
  sinceUpdate: string;
  ok: boolean | null;
  /** The update that showed the modify: the first event of the leg, still working, with a new updateTimestamp. */
  effect: { seq: number; timeS: number } | null;
  /** The leg ended (filled, canceled) before any update showed a modify. */
  endedFirst: boolean;
}

const sec = (iso: string) => Date.parse(iso) / 1000;

export class SdkBot {
  token = '';
  accountId = 0;
  contractId = '';
  /** REST answers and hub payloads that passed the strict models. */
  parsed = 0;
  inFlight = 0;
  lastQuoteS = 0;
  positionSize = 0;
  readonly signals: Signal[] = [];
  readonly actions: Action[] = [];
  /** Fills (trade ids) by the signal they belong to. */
  readonly fillsBySignal = new Map<string, number[]>();
  readonly errors: string[] = [];
  private readonly bySignalOrder = new Map<number, Signal>();
  private readonly modifies = new Map<number, PendingModify>();
  private readonly hubs: HubConnection[] = [];
  private eventSeq = 0;
  private previousPrice: number | null = null;

  constructor(private readonly base: string) {}

  /** POST `${base}/api/${path}`, parsed strictly; throws on a refusal unless `refusable`. */
  async call(path: Path, body: Record<string, unknown>, refusable = false): Promise<any> {
    const res = await fetch(`${this.base}/api/${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(this.token ? { authorization: `Bearer ${this.token}` } : {}) },
      body: JSON.stringify(body),
    });
    const answer = parseAnswer(path, (await res.json()) as { success?: unknown });
    this.parsed++;
    if (!answer.success && !refusable) throw new Error(`${path} refused: ${JSON.stringify(answer)}`);
    return answer;
  }

  async login(userName: string, apiKey: string): Promise<void> {
    this.token = (await this.call('Auth/loginKey', { userName, apiKey })).token;
  }

  /** The contract whose symbolId is F.US.ENQ among Contract/available (one SDK's `get_instrument("NQ")`). */
  async resolveContract(): Promise<any> {
    const contracts = (await this.call('Contract/available', { live: false })).contracts as any[];
    const found = contracts.find((c) => c.symbolId === SYMBOL_ID);
    if (!found) throw new Error(`no contract ${SYMBOL_ID}`);
    this.contractId = found.id;
    return found;
  }

  /** 1 m bars of "the last 3 days until now" on the bot's wall clock, as the SDKs ask for them. */
  async lastThreeDays(nowMs: number): Promise<any[]> {
    const body = {
      contractId: this.contractId, live: false, startTime: new Date(nowMs - 3 * 86_400_000).toISOString(), endTime: new Date(nowMs).toISOString(),
      unit: 2, unitNumber: 1, limit: 20_000, includePartialBar: false,
    };
    return (await this.call('History/retrieveBars', body)).bars;
  }

  /** Both hubs, subscribed to the account's orders, positions and trades and to the contract's quotes. */
  async connect(): Promise<void> {
    const user = await this.hub('user');
    user.on('GatewayUserOrder', (e) => this.guard(() => this.onOrder(this.mine(parseStrict(Wrapped(OrderEvent), e, 'GatewayUserOrder')))));
    user.on('GatewayUserTrade', (e) => this.guard(() => this.onTrade(this.mine(parseStrict(Wrapped(Trade), e, 'GatewayUserTrade')).data)));
    user.on('GatewayUserPosition', (e) => this.guard(() => {
      this.positionSize = this.mine(parseStrict(Wrapped(Position), e, 'GatewayUserPosition')).data.size;
    }));
    for (const m of ['SubscribeOrders', 'SubscribePositions', 'SubscribeTrades']) await user.invoke(m, this.accountId);
    const market = await this.hub('market');
    market.on('GatewayQuote', (id: string, q: unknown) => this.guard(() => this.onQuote(id, parseStrict(Quote, q, 'GatewayQuote'))));
    await market.invoke('SubscribeContractQuotes', this.contractId);
  }

  async stop(): Promise<void> {
    for (const c of this.hubs.splice(0)) await c.stop().catch(() => {});
  }

  /** Whether every modify sent has its answer and its effect seen (or was refused). */
  get settled(): boolean {
    return this.inFlight === 0 && [...this.modifies.values()].every((m) => m.ok === false || (m.ok === true && (m.effect !== null || m.endedFirst)));
  }

  private async hub(name: 'user' | 'market'): Promise<HubConnection> {
    const c = new HubConnectionBuilder()
      .withUrl(`${this.base}/hubs/${name}`, { skipNegotiation: true, transport: HttpTransportType.WebSockets, accessTokenFactory: () => this.token })
      .configureLogging(LogLevel.None)
      .build();
    this.hubs.push(c);
    await c.start();
    return c;
  }

  /** A user event of the bot's account and contract (a bot keys its books by them); anything else is an error. */
  private mine<E extends { data: { accountId: number; contractId: string } }>(e: E): E {
    if (e.data.accountId !== this.accountId || e.data.contractId !== this.contractId) {
      this.errors.push(`an event of account ${e.data.accountId}, contract ${e.data.contractId}`);
    }
    return e;
  }

  /** A handler's failure (a payload a strict model refused) is kept for the test to report. */
  private guard(f: () => void): void {
    try {
      f();
      this.parsed++;
    } catch (e) {
      this.errors.push(String(e));
    }
  }

  private onQuote(contractId: string, q: any): void {
    if (contractId !== this.contractId || q.contract !== this.contractId || q.symbol !== SYMBOL_ID) {
      this.errors.push(`a quote of ${contractId} / ${q.contract} / ${q.symbol}`);
    }
    this.lastQuoteS = sec(q.timestamp);
    const price = q.lastPrice as number;
    const rising = this.previousPrice !== null && price > this.previousPrice;
    this.previousPrice = price;
    const current = this.signals.at(-1);
    if (current?.state === 'open') this.maybeBreakEven(current, price);
    else if ((current === undefined || current.state === 'closed') && this.positionSize === 0 && rising) this.enter();
  }

  private enter(): void {
    const side = (this.signals.length % 2) as 0 | 1;
    const dir = side === 0 ? 1 : -1;
    const signal: Signal = {
      tag: `signal-${this.signals.length + 1}`, side, entryId: null, entryPrice: null, state: 'pending', slId: null, slStop: null,
      slUpdated: null, trail: TRAIL_TICKS * TICK, breakEven: false,
    };
    this.signals.push(signal);
    const body = {
      contractId: this.contractId, type: 2, side, size: 1, customTag: signal.tag,
      stopLossBracket: { ticks: -dir * TRAIL_TICKS, type: 5 }, takeProfitBracket: { ticks: dir * TARGET_TICKS, type: 1 },
    };
    this.send('Order/place', body, (r) => {
      if (!r.success) signal.state = 'closed';
      else if (signal.entryId === null) {
        signal.entryId = r.orderId;
        this.bySignalOrder.set(r.orderId, signal);
      }
    });
  }

  private maybeBreakEven(s: Signal, price: number): void {
    if (s.breakEven || s.slId === null || s.slStop === null || s.entryPrice === null || s.slUpdated === null) return;
    const dir = s.side === 0 ? 1 : -1;
    // Not yet in profit enough, or the trailing stop already protects the entry: nothing to do.
    if (dir * (price - s.entryPrice) < BREAK_EVEN_TICKS * TICK || dir * (s.slStop - s.entryPrice) >= 0) return;
    // The best price reached, as far as the bot has seen it: the trailing leg's stop plus its trail, or the quote.
    const extreme = dir > 0 ? Math.max(s.slStop + s.trail, price) : Math.min(s.slStop - s.trail, price);
    const trailPrice = dir * (extreme - s.entryPrice);
    s.breakEven = true;
    const pending: PendingModify = { body: { orderId: s.slId, trailPrice }, sinceUpdate: s.slUpdated, ok: null, effect: null, endedFirst: false };
    this.modifies.set(s.slId, pending);
    this.send('Order/modify', pending.body, (r) => {
      pending.ok = r.success === true;
      if (pending.ok) s.trail = trailPrice;
      this.recordModify(pending);
    });
  }

  /** A request the strategy makes while quotes keep coming; `then` sees its answer. */
  private send(path: 'Order/place' | 'Order/modify', body: Record<string, unknown>, then: (answer: any) => void): void {
    this.inFlight++;
    this.call(path, { accountId: this.accountId, ...body }, true)
      .then(then, (e) => this.errors.push(String(e)))
      .finally(() => this.inFlight--);
  }

  private onOrder(e: { action: number; data: any }): void {
    const o = e.data;
    const seq = ++this.eventSeq;
    const tagged = o.customTag === undefined ? undefined : this.signals.find((s) => s.tag === o.customTag);
    if (tagged && e.action === 0) {
      tagged.entryId = o.id;
      this.bySignalOrder.set(o.id, tagged);
      const body = { contractId: this.contractId, type: o.type, side: o.side, size: o.size, customTag: o.customTag };
      const brackets = { stopLossBracket: { ticks: -(o.side === 0 ? 1 : -1) * TRAIL_TICKS, type: 5 }, takeProfitBracket: { ticks: (o.side === 0 ? 1 : -1) * TARGET_TICKS, type: 1 } };
      this.actions.push({ seq, timeS: sec(o.creationTimestamp), path: 'Order/place', body: { ...body, ...brackets } });
    }
    const parent = o.parentOrderId === undefined ? undefined : this.bySignalOrder.get(o.parentOrderId);
    if (parent) {
      this.bySignalOrder.set(o.id, parent);
      if (o.type === 5) this.onStopLeg(parent, o, seq);
    }
  }

  private onStopLeg(s: Signal, o: any, seq: number): void {
    s.slId = o.id;
    s.slStop = o.stopPrice ?? s.slStop;
    s.slUpdated ??= o.updateTimestamp;
    const pending = this.modifies.get(o.id);
    // The first change of the leg after the modify was sent is the modify, the leg still working (a
    // fill or cancel before it refuses the modify): updateTimestamp is the last change, a modify included.
    if (pending && pending.effect === null && !pending.endedFirst && o.updateTimestamp !== pending.sinceUpdate) {
      if (o.status === 1) pending.effect = { seq, timeS: sec(o.updateTimestamp) };
      else pending.endedFirst = true;
      this.recordModify(pending);
    }
    s.slUpdated = o.updateTimestamp;
  }

  private recordModify(p: PendingModify): void {
    if (p.ok !== true) return;
    if (p.effect !== null) this.actions.push({ ...p.effect, path: 'Order/modify', body: p.body });
    else if (p.endedFirst) this.errors.push(`Order/modify of ${p.body.orderId} succeeded, but no update of the order showed it`);
  }

  private onTrade(f: any): void {
    const s = this.bySignalOrder.get(f.orderId);
    if (!s) {
      this.errors.push(`a fill of order ${f.orderId} that maps to no signal`);
      return;
    }
    this.fillsBySignal.set(s.tag, [...(this.fillsBySignal.get(s.tag) ?? []), f.id]);
    if (f.orderId === s.entryId) {
      s.entryPrice = f.price;
      s.state = 'open';
    } else s.state = 'closed';
  }
}
