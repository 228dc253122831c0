// A listening server with the real hubs over a multi-instrument test app, for the tests beside this
// file that speak to it as bots do: REST through fetch, the hubs through the official SignalR client
// (@microsoft/signalr) over WebSockets. `stopHubs` ends every client and server a test opened.

import { HttpTransportType, type HubConnection, HubConnectionBuilder, LogLevel } from '@microsoft/signalr';
import { hubAuthentication } from '../../../src/http/hubs/auth.ts';
import { gatewayHubs } from '../../../src/http/hubs/index.ts';
import type { ChallengeApp } from '../../support/challenge.ts';
import { startHubServer, type HubServer } from '../../support/hub-server.ts';

export interface HubBench {
  h: HubServer;
  /** POST to the current family over the network with the demo user's token; the parsed answer. */
  post(path: string, body: unknown): Promise<any>;
  /** An official client on `/hubs/user` or `/hubs/market`, started. */
  connect(hub: 'user' | 'market'): Promise<HubConnection>;
}

const opened: { server: HubServer; clients: HubConnection[] }[] = [];

export async function hubBench(t: ChallengeApp): Promise<HubBench> {
  const h = await startHubServer({ hubs: gatewayHubs(t.s), t, ...hubAuthentication(t.s) });
  const mine = { server: h, clients: [] as HubConnection[] };
  opened.push(mine);
  return {
    h,
    async post(path, body) {
      const headers = { 'content-type': 'application/json', authorization: `Bearer ${h.token}` };
      return (await fetch(`${h.baseUrl}/api/sim/${path}`, { method: 'POST', headers, body: JSON.stringify(body) })).json();
    },
    async connect(hub) {
      const options = { skipNegotiation: true, transport: HttpTransportType.WebSockets, accessTokenFactory: () => h.token };
      const c = new HubConnectionBuilder().withUrl(`${h.baseUrl}/hubs/${hub}`, options).configureLogging(LogLevel.None).build();
      mine.clients.push(c);
      await c.start();
      return c;
    },
  };
}

/** Stops every client, then every server, opened since the last call. */
export async function stopHubs(): Promise<void> {
  for (const { server, clients } of opened.splice(0)) {
    for (const c of clients) await c.stop().catch(() => {});
    await server.stop();
  }
}
