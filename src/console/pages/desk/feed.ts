// The desk's two hub connections for one session: the user hub's orders, positions, fills and
// balances of the session's account, and the market hub's played bars (`SubscribeReplayBars`, the
// console's own extension). Every (re)connect subscribes again and then tells the desk, which
// reconciles through REST: the hubs replay nothing a connection missed.

import { useEffect, useRef, useState } from 'preact/hooks';
import type { ApiBar } from '../../chart.ts';
import { type LinkState, liveHub } from '../../hubs.ts';
import { type UserEvent, userEvent } from './live.ts';

/** `ReplayDeskBars`' payload: the played bars (`t` epoch seconds), the session's index and clock after them, and whether the session ended. */
export interface HubBars {
  bars: { t: number; o: number; h: number; l: number; c: number; v: number }[];
  currentIndex: number;
  /** The server's clock after the move (ISO 8601 UTC). */
  currentTime?: string;
  ended: boolean;
  /** A session over several instruments: each one's bars, by instrument symbol (`bars` is the first's). */
  barsBySymbol?: Record<string, HubBars['bars']>;
}

/** A hub bar as the REST answers carry bars (`t` ISO 8601 UTC, whole seconds). */
export const apiBar = (b: HubBars['bars'][number]): ApiBar => ({
  t: new Date(b.t * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z'),
  o: b.o,
  h: b.h,
  l: b.l,
  c: b.c,
  v: b.v,
});

export interface FeedHandlers {
  onUser(e: UserEvent): void;
  onBars(p: HubBars): void;
  /** A connection came up again after the first time: reconcile what it may have missed. */
  onReconnected(hub: 'user' | 'market'): void;
}

const USER_EVENTS = ['GatewayUserOrder', 'GatewayUserPosition', 'GatewayUserTrade', 'GatewayUserAccount'] as const;

export interface Feed {
  /** Both links' state in one word: up only when both are. */
  link: LinkState;
  /** Resolves once both connections made their first attempt (and subscribed, when up). */
  ready: Promise<void>;
  /** The user hub is up: the tables follow its events. */
  userUp: () => boolean;
}

export function useDeskFeed(accountId: number, handlers: FeedHandlers): Feed {
  const h = useRef(handlers);
  h.current = handlers;
  const [states, setStates] = useState<{ user: LinkState; market: LinkState }>({ user: 'connecting', market: 'connecting' });
  const userUp = useRef(false);
  const ready = useRef<{ promise: Promise<void>; resolve: () => void } | null>(null);
  if (!ready.current) {
    let resolve = () => {};
    const promise = new Promise<void>((r) => (resolve = r));
    ready.current = { promise, resolve };
  }

  useEffect(() => {
    const seen = { user: false, market: false };
    const upAgain = (hub: 'user' | 'market') => {
      if (seen[hub]) h.current.onReconnected(hub);
      seen[hub] = true;
    };
    const user = liveHub('/hubs/user', {
      onState: (s) => {
        userUp.current = s === 'up';
        setStates((x) => ({ ...x, user: s }));
      },
      async onUp() {
        const c = user.connection;
        await Promise.all([
          c.invoke('SubscribeAccounts'),
          c.invoke('SubscribeOrders', accountId),
          c.invoke('SubscribePositions', accountId),
          c.invoke('SubscribeTrades', accountId),
        ]).catch(() => undefined); // the session is gone: the REST reads say so
        upAgain('user');
      },
    });
    for (const name of USER_EVENTS) {
      user.connection.on(name, (payload: unknown) => {
        const e = userEvent(name, payload);
        if (e) h.current.onUser(e);
      });
    }
    const market = liveHub('/hubs/market', {
      onState: (s) => setStates((x) => ({ ...x, market: s })),
      async onUp() {
        await market.connection.invoke('SubscribeReplayBars', accountId).catch(() => undefined);
        upAgain('market');
      },
    });
    market.connection.on('ReplayDeskBars', (id: number, p: HubBars) => {
      if (id === accountId && p && Array.isArray(p.bars)) h.current.onBars(p);
    });
    Promise.all([user.start(), market.start()]).then(() => ready.current!.resolve());
    return () => {
      user.stop();
      market.stop();
    };
  }, [accountId]);

  const link: LinkState =
    states.user === 'up' && states.market === 'up' ? 'up' : states.user === 'down' || states.market === 'down' ? 'down' : states.user === 'connecting' || states.market === 'connecting' ? 'connecting' : 'reconnecting';
  return { link, ready: ready.current.promise, userUp: () => userUp.current };
}
