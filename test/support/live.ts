// Replay sessions answered under the live profile (docs/gateway-profile.md), for black-box tests of the
// live gateway's order model over REST: the app of test/support/replay.ts with API_PROFILE=live, and
// the user hub's events of an account as a bot subscribed to them receives them (no transport: the
// hub's own methods on a recording connection).

import { userHub } from '../../src/http/hubs/user-hub.ts';
import type { Config } from '../../src/config.ts';
import { readReply } from './app.ts';
import { recordingConnection } from './hub-recording.ts';
import { at, type BarSpec, type ReplayTestApp, type Session, replayApp, startSession, step } from './replay.ts';

export const LIVE: Partial<Config> = { apiProfile: 'live' };

/** `replayApp` under API_PROFILE=live with a started session, `steps` bars already played. */
export async function liveApp(bars: readonly BarSpec[], steps = 1, opts: { historyClose?: number; config?: Partial<Config>; dbPath?: string } = {}) {
  const t = await replayApp(bars, { ...opts, config: { ...LIVE, ...opts.config } });
  const x = await startSession(t);
  if (steps > 0) await step(t, x, steps);
  return Object.assign(t, x);
}

export type LiveApp = Awaited<ReturnType<typeof liveApp>>;

/** What a user-hub subscriber of one account received so far: each event's `data`, by stream, in order. */
export interface UserEvents {
  readonly orders: any[];
  readonly positions: any[];
  readonly trades: any[];
  /** Every event as `[target, action, data]`, in order. */
  readonly all: [string, number, any][];
}

/** Subscribes the user hub's orders, positions and trades of `x`'s account with the app's token. */
export async function userEvents(t: ReplayTestApp, x: Session, token = t.token): Promise<UserEvents> {
  const rec = await recordingConnection(t, userHub(t.s), token);
  for (const m of ['SubscribeOrders', 'SubscribePositions', 'SubscribeTrades']) {
    const r = await rec.invoke(m, x.accountId);
    if (!r.ok) throw new Error(`${m} failed: ${JSON.stringify(r)}`);
  }
  const all = () => rec.sent.map((e) => [e.target, (e.args[0] as any).action, (e.args[0] as any).data] as [string, number, any]);
  const of = (target: string) => all().filter(([t]) => t === target).map(([, , data]) => data);
  return {
    get orders() { return of('GatewayUserOrder'); },
    get positions() { return of('GatewayUserPosition'); },
    get trades() { return of('GatewayUserTrade'); },
    get all() { return all(); },
  };
}

/** The full live order object of an NQ order of session `x`: a working buy limit of 1 placed at 14:31 unless told. */
export function liveOrder(x: Session, over: Record<string, unknown>) {
  const created = (over.creationTimestamp as string | undefined) ?? at(1);
  return {
    id: 1,
    accountId: x.accountId,
    contractId: x.contractId,
    symbolId: 'F.US.ENQ',
    creationTimestamp: created,
    updateTimestamp: created,
    status: 1,
    type: 1,
    side: 0,
    size: 1,
    limitPrice: null,
    stopPrice: null,
    fillVolume: 0,
    filledPrice: null,
    customTag: null,
    ...over,
  };
}

/** `[id, status, type, limitPrice, stopPrice, filledPrice]` of each listed order. */
export const brief = (rows: any[]) => rows.map((o) => [o.id, o.status, o.type, o.limitPrice, o.stopPrice, o.filledPrice]);

/** Drops null and undefined fields (the user hub leaves null fields out). */
export function compact(o: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== null && v !== undefined));
}

/** A request through the spec's base URL (`/spec/api/sim`), whatever the server's or the key's profile; the parsed body. */
export async function specPost(t: ReplayTestApp, path: string, body: unknown, token = t.token): Promise<any> {
  const res = await t.app.handle(new Request(`http://localhost/spec/api/sim/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify(body),
  }));
  return (await readReply(res)).body;
}
