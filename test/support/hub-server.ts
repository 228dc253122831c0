// A real listening server (127.0.0.1, port 0) that serves the SignalR hubs through the transport and
// everything else through the test app, as src/main.ts does. The hubs are passed in, so the transport
// tests use a tiny test hub and the hub tests the real ones. Authentication is the app's own: the
// token from `login()` is a real bearer JWT of the demo user.

import type { Server } from 'bun';
import type { HubDefinition } from '../../src/http/hubs/signalr/hub.ts';
import { createHubTransport, type HubTransport, type HubTransportOptions, type SocketData } from '../../src/http/hubs/signalr/transport.ts';
import { makeApp, type TestApp } from './app.ts';

export interface HubServer {
  t: TestApp;
  transport: HubTransport;
  server: Server<SocketData>;
  port: number;
  /** `http://127.0.0.1:<port>` */
  baseUrl: string;
  /** A bearer token of the demo user. */
  token: string;
  /** Lines the transport logged, as `level msg {fields}`. */
  logs: string[];
  /** Requests that reached the hub paths: method, URL (path and query) and Authorization header. */
  requests: { method: string; url: string; authorization: string | null }[];
  stop(): Promise<void>;
}

export type HubServerOptions = Partial<Omit<HubTransportOptions, 'hubs' | 'authenticate' | 'logError' | 'logInfo'>> & {
  hubs: readonly HubDefinition[];
  /** An app built already (e.g. with replay data); a fresh one by default. */
  t?: TestApp;
  authenticate?: HubTransportOptions['authenticate'];
};

export async function startHubServer(opts: HubServerOptions): Promise<HubServer> {
  const t = opts.t ?? (await makeApp());
  const logs: string[] = [];
  const requests: HubServer['requests'] = [];
  const transport = createHubTransport({
    nowMs: () => t.clock.nowMs(),
    ...opts,
    authenticate: opts.authenticate ?? ((token) => t.s.auth.authenticate(token)),
    logError: (msg, fields) => logs.push(`error ${msg} ${JSON.stringify(fields ?? {})}`),
    logInfo: (msg, fields) => logs.push(`info ${msg} ${JSON.stringify(fields ?? {})}`),
  });
  const server = Bun.serve<SocketData>({
    hostname: '127.0.0.1',
    port: 0,
    fetch(req, srv) {
      const answer = transport.handle(req, srv);
      if (answer === undefined) return t.app.handle(req);
      const url = new URL(req.url);
      requests.push({ method: req.method, url: url.pathname + url.search, authorization: req.headers.get('authorization') });
      return answer as Promise<Response>;
    },
    websocket: transport.websocket,
  });
  const port = server.port as number;
  return {
    t,
    transport,
    server,
    port,
    baseUrl: `http://127.0.0.1:${port}`,
    token: await t.login(),
    logs,
    requests,
    async stop() {
      transport.shutdown();
      await server.stop(true);
    },
  };
}
