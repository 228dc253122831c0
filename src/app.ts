// Mounts the API families and the shared hooks. No logic lives here.

import { Elysia } from 'elysia';
import { internalError, json, malformedJson, notFound } from './http/shared/envelope.ts';
import { playgroundFamily } from './http/playground/index.ts';
import { legacyFamily } from './http/legacy/index.ts';
import { simFamily } from './http/sim/index.ts';
import { webAuthFamily } from './http/web/index.ts';
import { consoleApp } from './http/console/index.ts';
import { apiReference } from './http/openapi/index.ts';
import type { Services } from './service/services.ts';
import { schemaVersion } from './store/db.ts';

export interface Logger {
  info(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

export const silentLogger: Logger = { info() {}, error() {} };

export function buildApp(s: Services, log: Logger = silentLogger) {
  return new Elysia()
    .onError(({ code, error, request }) => {
      if (code === 'NOT_FOUND') return notFound();
      if (code === 'PARSE') return malformedJson();
      // Anything else is a bug or an I/O failure: log it whole, answer without internals.
      log.error('unhandled error', { path: new URL(request.url).pathname, code, error: String((error as Error)?.stack ?? error) });
      return internalError();
    })
    .get('/health', () => {
      let database = 'ok';
      let version = -1;
      try {
        version = schemaVersion(s.db);
      } catch {
        database = 'error';
      }
      const status = database === 'ok' ? 200 : 503;
      return json(status, {
        status: database === 'ok' ? 'ok' : 'degraded',
        uptimeS: Math.floor((s.clock.nowMs() - s.startedMs) / 1000),
        database,
        schemaVersion: version,
      });
    })
    .use(simFamily(s, '/api/sim'))
    .use(simFamily(s, '/api/sim/api'))
    .use(legacyFamily(s))
    .use(webAuthFamily(s))
    .use(playgroundFamily(s))
    .use(apiReference())
    .use(consoleApp());
}
