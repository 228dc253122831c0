// Mounts the API families and the shared hooks. No logic lives here.

import { Elysia } from 'elysia';
import { limits } from './config.ts';
import { asError } from './lib/thrown.ts';
import { busy, internalError, json, malformedJson, notFound } from './http/shared/envelope.ts';
import { SESSION_MOVING } from './http/shared/forward.ts';
import { playgroundFamily } from './http/playground/index.ts';
import { legacyFamily } from './http/legacy/index.ts';
import { simFamily } from './http/sim/index.ts';
import { webAuthFamily } from './http/web/index.ts';
import { consoleApp } from './http/console/index.ts';
import { apiReference } from './http/openapi/index.ts';
import { type Logger, silentLogger } from './log.ts';
import { SessionMoving } from './service/cluster/ownership.ts';
import type { Services } from './service/services.ts';
import { StoreHealth } from './service/store-health.ts';
import { schemaVersion, storeFailureOf } from './store/db.ts';
import { sharedStoreWrites, sqliteCanGrow } from './store/store-probe.ts';

/** The 503 of a request that met a full, failing or damaged store. */
export const STORE_UNAVAILABLE = 'Storage unavailable, retry later';
/** The 503 of a request whose wait on the store ran out (a lock, a statement's or transaction's bound). */
export const STORE_BUSY = 'Service busy, retry later';

// The logger is log.ts's; the app's callers (tests, benches) take it from here too.
export { type Logger, silentLogger } from './log.ts';

/** The store's health as /health and the error hook see it (one per app; main.ts shares it with the integrity watch). */
export function storeHealthFor(s: Services, log: Logger): StoreHealth {
  return new StoreHealth(s.clock, (message, fields) => log.error(message, fields), {
    recoverAfterMs: limits.storeRecoverAfterMs,
    logIntervalMs: limits.storeFailureLogIntervalMs,
    probeIntervalMs: limits.storeProbeIntervalMs,
  });
}

export function buildApp(s: Services, log: Logger = silentLogger, store: StoreHealth = storeHealthFor(s, log)) {
  return new Elysia()
    .onError(({ code, error, request }) => {
      if (code === 'NOT_FOUND') return notFound();
      if (code === 'PARSE') return malformedJson();
      // The session stopped being this node's mid-request (its lease lost at the commit's fence, or
      // moving): nothing was done, and the retry's owner is decided at the edge again.
      if (error instanceof SessionMoving) return busy(1, SESSION_MOVING);
      // A full or failing disk, or a damaged file: the store logs it (once per interval) and the
      // client is told to come back; the transaction that failed left nothing half-written.
      const failure = storeFailureOf(error);
      // A wait on the store ran out (a lock another node holds, a statement or transaction over its
      // bound): the store is fine and nothing was written; the client retries in a moment.
      if (failure === 'contended') return busy(1, STORE_BUSY);
      if (failure !== null) {
        store.record(failure, asError(error));
        return busy(limits.storeRetryAfterS, STORE_UNAVAILABLE);
      }
      // Anything else is a bug or an I/O failure: log it whole, answer without internals.
      log.error('unhandled error', { path: new URL(request.url).pathname, code, error: String((error as Error)?.stack ?? error) });
      return internalError();
    })
    // database: `ok`; `degraded` while writes fail (disk full, I/O errors, the shared store out of
    // reach); `error` when the store cannot be read or its file is damaged. Anything but ok, or a
    // node draining (SIGTERM), is HTTP 503: a load balancer sends it no new work.
    .get('/health', () => health(s, store))
    .use(simFamily(s, '/api/sim'))
    .use(simFamily(s, '/api/sim/api'))
    // A base URL may name the profile (http/shared/profile.ts): `/live/api/sim`, `/spec/api/sim`, and
    // for clients that append `/api/Group/op` to a bare host, the hosts `…/live` and `…/spec`.
    .use(simFamily(s, '/live/api/sim'))
    .use(simFamily(s, '/live/api'))
    .use(simFamily(s, '/spec/api/sim'))
    .use(simFamily(s, '/spec/api'))
    .use(legacyFamily(s))
    .use(webAuthFamily(s))
    .use(playgroundFamily(s))
    .use(apiReference())
    .use(consoleApp());
}

/** /health: the store looked at now (bounded: a store that does not answer in time is `error`). */
async function health(s: Services, store: StoreHealth): Promise<Response> {
  let version = -1;
  let answered = true;
  try {
    version = schemaVersion(s.db);
    const shared = s.topology.sharedStore;
    if (shared !== null) await withinMs(shared.get('SELECT 1 AS ok'), limits.storeProbeTimeoutMs);
    await store.probeWrites(() => withinMs(canWrite(s), limits.storeProbeTimeoutMs));
  } catch {
    answered = false;
  }
  const database = answered ? store.state() : 'error';
  const status = s.lifecycle.draining ? 'draining' : database === 'ok' ? 'ok' : 'degraded';
  const body = {
    status,
    uptimeS: Math.floor((s.clock.nowMs() - s.startedMs) / 1000),
    database,
    schemaVersion: version,
    store: s.topology.sharedStore === null ? 'sqlite' : 'postgres',
    node: s.config.nodeId,
    // This one included: what a draining node still has to answer before it stops listening.
    requestsInFlight: s.lifecycle.requestsInFlight,
  };
  return status === 'ok' ? json(200, body) : json(503, body, { 'retry-after': String(limits.storeRetryAfterS) });
}

/** Whether writes can succeed again: the node's SQLite file may grow, and the shared store takes a write. */
async function canWrite(s: Services): Promise<boolean> {
  if (!sqliteCanGrow(s.db, limits.sqliteFreeBytesMin)) return false;
  if (s.topology.sharedStore !== null) await sharedStoreWrites(s.topology.sharedStore, s.clock.nowMs());
  return true;
}

/** `work`, or a rejection once `ms` pass (the look gave up; the work itself carries on to its own bound). */
function withinMs<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms)));
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}
