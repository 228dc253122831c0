// The gateway's market hub (`/hubs/market`). There is no live market here: a subscription on a
// contract follows the user's live replay session on that instrument (the one started last,
// ReplayService.feedingSession) as it advances: a quote per played bar, synthetic trades and depth
// from the same bar, and on subscribing to quotes the current quote at once (docs/realtime.md).
// `SubscribeReplayBars(accountId)` is ReplayDesk's own: the console's chart follows a session's
// played bars and its clock (`currentTime`, the simulated now, after every move); no client gets an event it did not subscribe to.

import { instrumentForContractId } from '../../domain/contract-id.ts';
import { findInstrument, type Instrument } from '../../domain/instrument.ts';
import { isoFromEpochS } from '../../lib/iso-time.ts';
import type { Unsubscribe } from '../../service/events/bus.ts';
import { barsTopic, marketTopic, type ReplayEvent } from '../../service/events/types.ts';
import type { Services } from '../../service/services.ts';
import type { HubConnection, HubDefinition, HubMethod, MethodResult } from './signalr/hub.ts';
import { hubBars, hubDepth, hubQuote, hubTrades } from './present.ts';
import { sharedArgs } from './shared-args.ts';
import { closeOnRevocation, failed, idArg } from './user-hub.ts';
import type { ApiProfile } from '../../domain/api-profile.ts';
import type { Contract } from '../../service/contracts.ts';
import { profileOf, symbolIdStyleOf } from '../shared/profile.ts';

type Feed = 'quotes' | 'trades' | 'depth';

/** One instrument's subscriptions on a connection; events carry the contract id as the client sent it. */
interface InstrumentSubs {
  inst: Instrument;
  contractIds: Map<Feed, string>;
  unsubscribe: Unsubscribe;
}

interface MarketSubs {
  bySymbol: Map<string, InstrumentSubs>;
  bars: Map<number, Unsubscribe>;
  auth: Unsubscribe;
}

const OK: MethodResult = { ok: true };
const subsOf = (c: HubConnection) => c.state.get('market') as MarketSubs;

/** `[contractId, payload]`, built once per event, target, contract id and view (shared-args.ts). */
function argsFor(e: ReplayEvent, target: string, contractId: string, view: string, build: () => unknown): unknown[] {
  return sharedArgs(e, target, contractId, view, () => [contractId, build()]);
}

function deliver(s: Services, c: HubConnection, e: ReplayEvent, sub: InstrumentSubs): void {
  if (e.kind !== 'tick') return;
  const inst = sub.inst;
  // `symbol` and `symbolId` take the connection's profile's form (http/shared/profile.ts), and the
  // quote's `contract` its contract (quoteContract).
  const profile = profileOf(s.config, c.principal);
  // The symbol-id style follows from the profile (the server's config being fixed): the profile is the view.
  const view: string = profile;
  const contract = () => quoteContract(s, inst, profile, e.quote.timeS);
  const sinceMs = s.replay.events.publishingSinceMs;
  // Quotes and books of earlier bars of one call would be merged into the last one anyway.
  const quoteId = e.last ? sub.contractIds.get('quotes') : undefined;
  if (quoteId !== undefined) {
    const args = argsFor(e, 'GatewayQuote', quoteId, view, () => hubQuote(inst, contract(), e.quote));
    c.send('GatewayQuote', args, { coalesceKey: `q:${inst.symbol}`, sinceMs });
  }
  if (e.bar === null) return; // a jump's or a subscription's quote: no bar was played
  const bar = e.bar;
  const tradeId = sub.contractIds.get('trades');
  if (tradeId !== undefined) c.send('GatewayTrade', argsFor(e, 'GatewayTrade', tradeId, view, () => hubTrades(inst, contract(), bar, e.quote.timeS)), { sinceMs });
  const depthId = e.last ? sub.contractIds.get('depth') : undefined;
  if (depthId !== undefined) {
    const args = argsFor(e, 'GatewayDepth', depthId, view, () => hubDepth(inst, e.quote, bar.volume));
    c.send('GatewayDepth', args, { coalesceKey: `d:${inst.symbol}`, sinceMs });
  }
}

function subscribe(s: Services, feed: Feed, method: string): HubMethod {
  return (c, args) => {
    const contractId = args[0];
    const inst = instrumentForContractId(contractId, profileOf(s.config, c.principal));
    if (!inst || typeof contractId !== 'string') return failed(method, 'Contract not found');
    const subs = subsOf(c);
    let sub = subs.bySymbol.get(inst.symbol);
    if (!sub) {
      const entry: InstrumentSubs = { inst, contractIds: new Map(), unsubscribe: () => {} };
      entry.unsubscribe = s.topology.events.subscribe(marketTopic(c.principal.user.id, inst.symbol), (e) => deliver(s, c, e, entry));
      subs.bySymbol.set(inst.symbol, (sub = entry));
    }
    sub.contractIds.set(feed, contractId);
    // After the quotes already on their way (service/replay/events.ts fans a call's events out after it answered).
    if (feed === 'quotes') {
      const entry = sub;
      s.replay.events.afterPublished(() => entry.contractIds.get('quotes') === contractId && sendCurrentQuote(s, c, entry, contractId));
    }
    return OK;
  };
}

function unsubscribe(feed: Feed): HubMethod {
  return (c, args) => {
    const inst = instrumentForContractId(args[0], 'all');
    const subs = subsOf(c);
    const sub = inst ? subs.bySymbol.get(inst.symbol) : undefined;
    if (!sub) return OK;
    sub.contractIds.delete(feed);
    if (sub.contractIds.size === 0) {
      sub.unsubscribe();
      subs.bySymbol.delete(sub.inst.symbol);
    }
    return OK;
  };
}

function subscribeReplayBars(s: Services): HubMethod {
  return async (c, args) => {
    const accountId = idArg(args[0]);
    const owned = accountId === null ? null : await s.accounts.owned(c.principal.user.id, accountId);
    if (!owned || accountId === null) return failed('SubscribeReplayBars', 'Account not found');
    const subs = subsOf(c);
    if (subs.bars.has(accountId)) return OK;
    // The event names its instrument: the account may get its session only after subscribing.
    const deliverBars = (e: ReplayEvent) => {
      const inst = e.kind === 'bars' ? findInstrument(e.symbol, 'all') : undefined;
      if (e.kind !== 'bars' || !inst) return;
      // A session over several instruments adds each one's bars, by symbol.
      const bySymbol = e.bySymbol && Object.fromEntries(e.bySymbol.map((x) => [x.symbol, hubBars(findInstrument(x.symbol, 'all') ?? inst, x.bars)]));
      c.send('ReplayDeskBars', [accountId, {
        bars: hubBars(inst, e.bars), currentIndex: e.currentIndex, currentTime: isoFromEpochS(e.nowS), ended: e.ended, ...(bySymbol ? { barsBySymbol: bySymbol } : {}),
      }], { sinceMs: s.replay.events.publishingSinceMs });
    };
    subs.bars.set(accountId, s.topology.events.subscribe(barsTopic(accountId), deliverBars));
    return OK;
  };
}

const unsubscribeReplayBars: HubMethod = (c, args) => {
  const accountId = idArg(args[0]);
  const subs = subsOf(c);
  if (accountId !== null) {
    subs.bars.get(accountId)?.();
    subs.bars.delete(accountId);
  }
  return OK;
};

export function marketHub(s: Services): HubDefinition {
  return {
    path: '/hubs/market',
    methods: {
      SubscribeContractQuotes: subscribe(s, 'quotes', 'SubscribeContractQuotes'),
      UnsubscribeContractQuotes: unsubscribe('quotes'),
      SubscribeContractTrades: subscribe(s, 'trades', 'SubscribeContractTrades'),
      UnsubscribeContractTrades: unsubscribe('trades'),
      SubscribeContractMarketDepth: subscribe(s, 'depth', 'SubscribeContractMarketDepth'),
      UnsubscribeContractMarketDepth: unsubscribe('depth'),
      // topstepx-cli calls these names, which the gateway does not have: served as aliases (docs/decisions.md, "Hubs").
      SubscribeContractDepth: subscribe(s, 'depth', 'SubscribeContractDepth'),
      UnsubscribeContractDepth: unsubscribe('depth'),
      // tradingiq's health check: answered with a plain completion (docs/decisions.md, "Hubs").
      ping: () => OK,
      SubscribeReplayBars: subscribeReplayBars(s),
      UnsubscribeReplayBars: unsubscribeReplayBars,
    },
    onConnected(c) {
      c.state.set('market', { bySymbol: new Map(), bars: new Map(), auth: closeOnRevocation(s, c) } satisfies MarketSubs);
    },
    onDisconnected(c) {
      const subs = c.state.get('market') as MarketSubs | undefined;
      if (!subs) return;
      for (const sub of subs.bySymbol.values()) sub.unsubscribe();
      for (const u of subs.bars.values()) u();
      subs.bySymbol.clear();
      subs.bars.clear();
      subs.auth();
    },
  };
}

/**
 * A new quote subscription gets the current quote at once (the gateway does not promise this; a
 * client that waits for its first quote would otherwise wait for the next bar).
 */
function sendCurrentQuote(s: Services, c: HubConnection, sub: InstrumentSubs, contractId: string): void {
  const session = s.replay.feedingSession(c.principal.user.id, sub.inst.symbol);
  const leg = session?.legs.find((l) => l.inst === sub.inst);
  const quote = session && leg ? s.replay.events.currentQuote(session, leg) : null;
  if (quote === null) return;
  const contract = quoteContract(s, sub.inst, profileOf(s.config, c.principal), quote.timeS);
  c.send('GatewayQuote', [contractId, hubQuote(sub.inst, contract, quote)], { coalesceKey: `q:${sub.inst.symbol}` });
}

/**
 * The contract a quote names: under the live profile the front month on the quote's simulated date,
 * as Contract/* names it on the replay clock; under the spec the wall clock's.
 */
function quoteContract(s: Services, inst: Instrument, profile: ApiProfile, timeS: number): Contract {
  const style = symbolIdStyleOf(s.config, profile);
  return s.contracts.contractFor(inst, profile === 'live' ? { style, atMs: timeS * 1000 } : { style });
}
