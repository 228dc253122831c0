// The contract between the SignalR transport (this folder: negotiate, upgrade, handshake, framing,
// pings, close, per-connection queues) and the hubs that use it (../user-hub.ts, ../market-hub.ts).
// A hub declares its methods; the transport authenticates the connection, dispatches invocations,
// answers completions and writes events. Neither side knows the other's internals.

import type { Principal } from '../../../service/auth.ts';

/** What a hub method answers: nothing on success, or the error text of the error completion. */
export type MethodResult = { ok: true } | { ok: false; error: string };

/** One hub method. `args` are the invocation's arguments as sent (JSON values). */
export type HubMethod = (conn: HubConnection, args: readonly unknown[]) => MethodResult | Promise<MethodResult>;

export interface HubDefinition {
  /** The path the hub is served at, e.g. `/hubs/user` (negotiate at `${path}/negotiate`). */
  readonly path: string;
  /** Methods by name; the transport matches invocation targets case-insensitively, as ASP.NET does. */
  readonly methods: Readonly<Record<string, HubMethod>>;
  /** After the handshake succeeded. */
  onConnected?(conn: HubConnection): void;
  /**
   * Once, however the connection ended (client close, server close, error, slow consumer); only
   * for connections whose handshake succeeded, i.e. after `onConnected`.
   */
  onDisconnected?(conn: HubConnection): void;
}

export interface SendOptions {
  /**
   * Messages with the same key may be merged: a newer one replaces an older one still queued (the
   * older is dropped and the newer is queued last, so nothing else is reordered). Used for quotes;
   * user events never carry a key.
   */
  readonly coalesceKey?: string;
  /**
   * The monotonic time (performance.now()) the event was handed over for delivery, when earlier than
   * this send (a call's events wait for its answer, service/events/fanout.ts): frame latency counts from it.
   */
  readonly sinceMs?: number;
}

export interface HubConnection {
  /** The connection id (negotiate's connectionId, or one made up for a direct WebSocket). */
  readonly id: string;
  readonly hubPath: string;
  /** The authenticated user and token behind the connection. */
  readonly principal: Principal;
  /** Hub-owned per-connection state (subscriptions). */
  readonly state: Map<string, unknown>;
  /**
   * Queues an invocation message `{type:1,target,arguments}`; written at the next frame. The same
   * `args` array sent to several connections in a row is serialized once: do not change it in between.
   */
  send(target: string, args: readonly unknown[], opts?: SendOptions): void;
  /** Sends a close message (`{type:7, error?, allowReconnect?}`) and closes the socket. */
  close(error?: string, allowReconnect?: boolean): void;
  readonly closed: boolean;
}
