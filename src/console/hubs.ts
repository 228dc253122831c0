// The console's real-time connections: the server's SignalR hubs (docs/realtime.md) through the
// official client. The page holds no token: the browser sends the HttpOnly session cookie with the
// WebSocket upgrade, which the server accepts when the upgrade's Origin is its own, so the URL is
// relative (same origin) and negotiation is skipped (a direct WebSocket, as the server speaks it).
//
// A `LiveHub` keeps one connection up for as long as the page wants it: the first start and every
// automatic reconnect call `onUp`, where the page subscribes again and reconciles through REST (the
// hubs replay nothing a connection missed, like the gateway's).

import { type HubConnection, HubConnectionBuilder, HubConnectionState, HttpTransportType, LogLevel } from '@microsoft/signalr';
import { HUB_ATTEMPTS_MAX, HUB_RETRY_DELAYS_MS } from './limits.ts';

export type HubPath = '/hubs/user' | '/hubs/market';
export type LinkState = 'connecting' | 'up' | 'reconnecting' | 'down';

const delayFor = (attempt: number) => HUB_RETRY_DELAYS_MS[Math.min(attempt, HUB_RETRY_DELAYS_MS.length - 1)];

export interface LiveHub {
  readonly connection: HubConnection;
  /** Starts (and keeps restarting) the connection; resolves after the first attempt, up or not. */
  start(): Promise<void>;
  stop(): Promise<void>;
  readonly state: LinkState;
}

export function liveHub(path: HubPath, handlers: { onUp: () => Promise<void> | void; onState: (s: LinkState) => void }): LiveHub {
  const connection = new HubConnectionBuilder()
    .withUrl(path, { skipNegotiation: true, transport: HttpTransportType.WebSockets })
    .withAutomaticReconnect({ nextRetryDelayInMilliseconds: (c) => (c.previousRetryCount < HUB_ATTEMPTS_MAX ? delayFor(c.previousRetryCount) : null) })
    // Failures are shown as the link's state on the page, not as console noise.
    .configureLogging(LogLevel.None)
    .build();
  let state: LinkState = 'connecting';
  let stopped = false;
  let attempts = 0;
  const set = (s: LinkState) => {
    state = s;
    handlers.onState(s);
  };
  const up = async () => {
    attempts = 0;
    set('up');
    await handlers.onUp();
  };
  connection.onreconnecting(() => set('reconnecting'));
  connection.onreconnected(() => up());
  // Closed for good (the reconnects ran out, or the server refused the session): start over on the
  // same schedule, so a server restart longer than the client's own retries is still survived.
  connection.onclose(() => {
    if (!stopped) retry();
  });

  const attempt = async (): Promise<void> => {
    if (stopped || connection.state !== HubConnectionState.Disconnected) return;
    try {
      await connection.start();
    } catch {
      retry();
      return;
    }
    await up();
  };
  const retry = () => {
    if (stopped) return;
    if (++attempts > HUB_ATTEMPTS_MAX) return set('down');
    set('reconnecting');
    setTimeout(attempt, Math.max(1000, delayFor(attempts)));
  };

  return {
    connection,
    get state() {
      return state;
    },
    start: attempt,
    async stop() {
      stopped = true;
      await connection.stop().catch(() => undefined);
    },
  };
}
