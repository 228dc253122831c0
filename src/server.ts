// The listening server's fetch handler: records the client address for the rate limiters and logs
// one line per request (method, path without query, status, milliseconds).

import type { Server } from 'bun';
import type { Logger, buildApp } from './app.ts';
import { clientAddresses } from './http/shared/route.ts';

export function createFetch(app: ReturnType<typeof buildApp>, log: Logger, logRequests: boolean) {
  return async function fetch(request: Request, server?: Server<unknown>): Promise<Response> {
    const started = performance.now();
    const ip = server?.requestIP(request);
    if (ip) clientAddresses.set(request, ip.address);
    const response = await app.handle(request);
    if (logRequests) {
      const path = new URL(request.url).pathname;
      const ms = Math.round((performance.now() - started) * 10) / 10;
      log.info('request', { method: request.method, path, status: response.status, ms });
    }
    return response;
  };
}
