// Entry point: the only reader of the environment. Opens the data directory, creates the demo user
// on first start, serves HTTP on HOST:PORT, and shuts down cleanly on SIGTERM/SIGINT (stop
// accepting, finish in-flight requests, stop background work, close the database).

import { buildApp, storeHealthFor } from './app.ts';
import { IntegrityWatch } from './service/integrity-watch.ts';
import { limits, loadConfig } from './config.ts';
import { dbPathOf, ensureDemoUser, openInstance } from './instance.ts';
import { consoleLogger } from './log.ts';
import { createFetch } from './server.ts';
import { CorruptDatabaseError } from './store/db.ts';
import { hubAuthentication } from './http/hubs/auth.ts';
import { PROFILE_PREFIXES } from './http/shared/profile.ts';
import { barsWorkers, closeBarsWorkers } from './http/shared/bars-worker.ts';
import { gatewayHubs } from './http/hubs/index.ts';
import { createHubTransport } from './http/hubs/signalr/transport.ts';

const log = consoleLogger();
const config = loadConfig(process.env);
const s = await openOrExit();

/** The instance, or a clear line and exit 1 when its database is damaged (never serve half of it). */
async function openOrExit(): ReturnType<typeof openInstance> {
  try {
    return await openInstance(config, { serving: true, logError: (message, fields) => log.error(message, fields), logInfo: (message, fields) => log.info(message, fields) });
  } catch (e) {
    if (!(e instanceof CorruptDatabaseError)) throw e;
    log.error(e.message, {});
    await log.flush();
    process.exit(1);
  }
}

const demo = await ensureDemoUser(s);
if (demo) {
  log.info('demo user created (Pro plan); credentials also written to the data directory', {
    userName: demo.userName,
    apiKey: demo.apiKey,
    file: demo.path,
  });
}

s.replay.startIdleSweeper();
const housekeeping = setInterval(async () => {
  try {
    await s.auth.pruneTokens();
    await s.webAuth.pruneSessions();
  } catch (e) {
    log.error('token pruning failed; will retry', { error: String(e) });
  }
}, 3_600_000);
const storeHealth = storeHealthFor(s, log);
const app = buildApp(s, log, storeHealth);
// PRAGMA quick_check of the SQLite file every few minutes, in a worker: damage after the start turns /health degraded.
const integrity = new IntegrityWatch({ path: dbPathOf(config), intervalMs: limits.sqliteQuickCheckIntervalMs, timeoutMs: limits.sqliteQuickCheckMaxMs }, storeHealth);
integrity.start();
// The gateway's SignalR hubs (/hubs/user, /hubs/market) on the same port; every other path is the app's.
const hubs = createHubTransport({
  hubs: gatewayHubs(s),
  ...hubAuthentication(s),
  nowMs: () => s.clock.nowMs(),
  trustProxy: config.trustProxy,
  // `/live/hubs/user`, `/spec/hubs/market`: the API profile named by the URL (http/shared/profile.ts).
  pathPrefixes: PROFILE_PREFIXES,
  logError: (message, fields) => log.error(message, fields),
  logInfo: (message, fields) => log.info(message, fields),
});
const appFetch = createFetch(app, log, config.logRequests);
const inFlight = inFlightCounter();
const server = Bun.serve({
  hostname: config.host,
  port: config.port,
  // Bun's own answer to an over-limit body has no envelope: createFetch enforces requestBodyBytesMax.
  maxRequestBodySize: limits.transportBodyBytesMax,
  idleTimeout: limits.httpIdleTimeoutS,
  fetch: (request, srv) => hubs.handle(request, srv) ?? inFlight.count(() => appFetch(request, srv)),
  websocket: hubs.websocket,
  // TLS_CERT_FILE/TLS_KEY_FILE: HTTPS and WSS on the same port (other nodes trust it through NODE_CA_FILE).
  ...(config.tlsCertFile && config.tlsKeyFile ? { tls: { cert: Bun.file(config.tlsCertFile), key: Bun.file(config.tlsKeyFile) } } : {}),
});
const scheme = config.tlsCertFile ? 'https' : 'http';
// In a cluster, where the other nodes send requests for the sessions this one holds.
s.topology.ownership.advertise(config.nodeUrl ?? `${scheme}://${server.hostname}:${server.port}`);
log.info('ReplayDesk listening', { url: `${scheme}://${server.hostname}:${server.port}`, dataDir: config.dataDir });
// Rollups of the synthetic span, one instrument-day per timer turn, after readiness (stopped by s.shutdown).
s.warmRollups();

// The playground's runner: bundle, Pyodide snapshot (built once, from trusted code) and warm pool,
// in the background so readiness does not wait for them.
const runnerStartedMs = performance.now();
s.runner()
  .warm()
  .then(
    () => log.info('playground runner ready', { ms: Math.round(performance.now() - runnerStartedMs), isolation: s.runner().isolation }),
    (e) => log.error('playground runner failed to start; runs will retry', { error: String(e) }),
  );

/** Requests whose handler has not answered yet (`s.lifecycle.requestsInFlight`, shown by /health), and a wait for there being none. */
function inFlightCounter() {
  const life = s.lifecycle;
  const idle = new Set<() => void>();
  return {
    async count(answer: () => Promise<Response>): Promise<Response> {
      life.requestsInFlight++;
      try {
        return await answer();
      } finally {
        if (--life.requestsInFlight === 0) for (const f of idle) f();
      }
    },
    /** Resolves once no request is in flight, or after `maxMs`. */
    none(maxMs: number): Promise<void> {
      if (life.requestsInFlight === 0) return Promise.resolve();
      return new Promise((resolve) => {
        const done = () => {
          clearTimeout(timer);
          idle.delete(done);
          resolve();
        };
        const timer = setTimeout(done, maxMs);
        idle.add(done);
      });
    },
  };
}

/** Stops listening once answers still being written are out (streams: `drainStreamsMaxMs`, then cut; their clients reconnect elsewhere). */
async function stopListening(): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const bounded = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), limits.drainStreamsMaxMs)));
  if ((await Promise.race([server.stop(false), bounded])) === 'late') await server.stop(true);
  clearTimeout(timer);
}

// A drain (docs/decisions.md, "Cluster"): /health answers 503 `draining` at once, so a
// balancer sends no new work; the node still serves what reaches it until the requests in flight
// are answered; then it stops listening, every session command still queued commits, and its
// leases are handed back, so other nodes take its sessions at once instead of after the lease.
let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  s.lifecycle.draining = true;
  log.info('shutting down', { signal });
  // Running executions go back to the queue first (another node runs them; SQLite: failed, recorded).
  await s.runs.shutdown();
  hubs.shutdown(); // close messages with allowReconnect: clients come back to another node or the next start
  await inFlight.none(limits.drainRequestsMaxMs);
  await stopListening();
  clearInterval(housekeeping);
  integrity.stop();
  await s.shutdown();
  // History's encoding workers (no request is left to answer), and what they did.
  const { encoded, fallbacks } = barsWorkers.stats;
  closeBarsWorkers();
  log.info('history encoding workers stopped', { encoded, fallbacks, running: barsWorkers.workers().length });
  s.db.close();
  log.info('stopped');
  await log.flush();
  process.exit(0);
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));
