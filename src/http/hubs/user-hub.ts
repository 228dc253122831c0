// The gateway's user hub (`/hubs/user`): a connection subscribes to its user's accounts and to the
// orders, positions and trades of accounts it owns, and receives GatewayUserAccount / Order /
// Position / Trade events as the engine makes the changes (service/replay/events.ts). No snapshot on
// subscribe and no replay after a reconnect, like the gateway: clients reconcile through REST.

import type { Services } from '../../service/services.ts';
import { accountsTopic, authTopic, type ReplayEvent, userTopic } from '../../service/events/types.ts';
import type { Unsubscribe } from '../../service/events/bus.ts';
import { findInstrument } from '../../domain/instrument.ts';
import type { HubConnection, HubDefinition, HubMethod, MethodResult } from './signalr/hub.ts';
import { hubAccount, hubOrder, hubPosition, hubTrade, shaped } from './present.ts';
import { sharedArgs } from './shared-args.ts';
import type { ApiProfile } from '../../domain/api-profile.ts';
import { profileOf, symbolIdStyleOf } from '../shared/profile.ts';

type Stream = 'orders' | 'positions' | 'trades';

/** Per connection: the bus subscriptions and, per account, the streams asked for. */
interface UserSubs {
  accounts: Unsubscribe | null;
  byAccount: Map<number, { streams: Set<Stream>; unsubscribe: Unsubscribe }>;
  auth: Unsubscribe;
}

const OK: MethodResult = { ok: true };

export function failed(method: string, reason: string): MethodResult {
  return { ok: false, error: `Failed to invoke '${method}' due to an error on the server. HubException: ${reason}` };
}

/** An account id as sent: a whole number, or its decimal string (some clients send strings). */
export function idArg(v: unknown): number | null {
  const n = typeof v === 'string' && /^\s*\d{1,15}\s*$/.test(v) ? Number(v) : v;
  return typeof n === 'number' && Number.isSafeInteger(n) && n > 0 ? n : null;
}

const subsOf = (c: HubConnection) => c.state.get('user') as UserSubs;

// A connection's profile is its principal's (http/shared/profile.ts), read per event: the principal's
// user row is refreshed at every revalidation (AuthService.stillValid), so a key's profile change
// reaches its connections within `limits.hubRevalidateEveryMs`. Under the live profile an entity names
// the contract REST names for it: the front month when it happened in simulated time (an order's
// placement, a fill, a position's opening), not the wall clock's.
function deliver(s: Services, c: HubConnection, e: ReplayEvent, streams: Set<Stream>): void {
  const shape = s.config.hubEventShape;
  const profile = profileOf(s.config, c.principal);
  const at = (simS: number) => (profile === 'live' ? simS : undefined);
  // Built once per event and profile, whatever the number of connections (shared-args.ts).
  const opts = { sinceMs: s.replay.events.publishingSinceMs };
  const send = (target: string, build: () => unknown) => c.send(target, sharedArgs(e, target, '', profile, () => [build()]), opts);
  if (e.kind === 'order' && streams.has('orders')) {
    const order = sharedArgs(e, 'order', '', profile, () => [hubOrder(e, contractOf(s, e.symbol, profile, at(e.gatewayOrder.createdS)), profile)])[0];
    if (order !== null) send('GatewayUserOrder', () => shaped(shape, e.action, order));
  } else if (e.kind === 'position' && streams.has('positions')) {
    send('GatewayUserPosition', () => shaped(shape, e.action, hubPosition(e, contractOf(s, e.symbol, profile, at(e.opening?.openedS ?? e.timeS)), profile)));
  } else if (e.kind === 'trade' && streams.has('trades')) {
    send('GatewayUserTrade', () => shaped(shape, 0, hubTrade(e, contractOf(s, e.symbol, profile, at(e.fill.timeS)))));
  }
}

function subscribe(s: Services, stream: Stream): HubMethod {
  const method = `Subscribe${stream[0].toUpperCase()}${stream.slice(1)}`;
  return async (c, args) => {
    const accountId = idArg(args[0]);
    if (accountId === null || !await s.accounts.owned(c.principal.user.id, accountId)) return failed(method, 'Account not found');
    const subs = subsOf(c);
    let entry = subs.byAccount.get(accountId);
    if (!entry) {
      const streams = new Set<Stream>();
      const unsubscribe = s.topology.events.subscribe(userTopic(accountId), (e) => deliver(s, c, e, streams));
      subs.byAccount.set(accountId, (entry = { streams, unsubscribe }));
    }
    entry.streams.add(stream);
    return OK;
  };
}

/** Unsubscribing what was never subscribed is fine, and extra arguments are ignored. */
function unsubscribe(stream: Stream): HubMethod {
  return (c, args) => {
    const accountId = idArg(args[0]);
    const subs = subsOf(c);
    const entry = accountId === null ? undefined : subs.byAccount.get(accountId);
    if (!entry) return OK;
    entry.streams.delete(stream);
    if (entry.streams.size === 0) {
      entry.unsubscribe();
      subs.byAccount.delete(accountId as number);
    }
    return OK;
  };
}

function subscribeAccounts(s: Services): HubMethod {
  return (c) => {
    const subs = subsOf(c);
    subs.accounts ??= s.topology.events.subscribe(accountsTopic(c.principal.user.id), (e) => {
      if (e.kind !== 'account') return;
      const args = sharedArgs(e, 'GatewayUserAccount', '', '', () => [shaped(s.config.hubEventShape, 1, hubAccount(e))]);
      c.send('GatewayUserAccount', args, { sinceMs: s.replay.events.publishingSinceMs });
    });
    return OK;
  };
}

const unsubscribeAccounts: HubMethod = (c) => {
  const subs = subsOf(c);
  subs.accounts?.();
  subs.accounts = null;
  return OK;
};

export function userHub(s: Services): HubDefinition {
  return {
    path: '/hubs/user',
    methods: {
      SubscribeAccounts: subscribeAccounts(s),
      UnsubscribeAccounts: unsubscribeAccounts,
      SubscribeOrders: subscribe(s, 'orders'),
      UnsubscribeOrders: unsubscribe('orders'),
      SubscribePositions: subscribe(s, 'positions'),
      UnsubscribePositions: unsubscribe('positions'),
      SubscribeTrades: subscribe(s, 'trades'),
      UnsubscribeTrades: unsubscribe('trades'),
    },
    onConnected(c) {
      c.state.set('user', { accounts: null, byAccount: new Map(), auth: closeOnRevocation(s, c, true) } satisfies UserSubs);
    },
    onDisconnected(c) {
      const subs = c.state.get('user') as UserSubs | undefined;
      if (!subs) return;
      subs.accounts?.();
      for (const entry of subs.byAccount.values()) entry.unsubscribe();
      subs.byAccount.clear();
      subs.auth();
    },
  };
}

/**
 * Closes the connection when its token (or every token of its user) is revoked. With `logoutEvent`
 * (the user hub), `GatewayLogout(reason)` goes out first, as the live user hub may send it when a
 * session ends (its payload is not known; one string argument breaks no handler that reads a field).
 */
export function closeOnRevocation(s: Services, c: HubConnection, logoutEvent = false): Unsubscribe {
  return s.topology.events.subscribe(authTopic(c.principal.user.id), (e) => {
    if (e.kind !== 'auth_revoked') return;
    if (e.jtiHash !== null && e.jtiHash !== c.principal.jtiHash) return;
    if (logoutEvent) c.send('GatewayLogout', [e.reason]);
    c.close(`Unauthorized: ${e.reason}`, false);
  });
}

/** The contract an event names: the front month at `atS` (simulated epoch seconds), else on the wall clock. */
export function contractOf(s: Services, symbol: string, profile: ApiProfile = 'spec', atS?: number) {
  const inst = findInstrument(symbol, 'all');
  if (!inst) throw new Error(`event for an unknown instrument ${symbol}`);
  return s.contracts.contractFor(inst, { style: symbolIdStyleOf(s.config, profile), atMs: atS === undefined ? undefined : atS * 1000 });
}
