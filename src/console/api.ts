// The console's one way to the server: the same HTTP API bots use, authenticated by the session
// cookie (HttpOnly; the page never holds a token or an API key beyond the moment a key is made).
// Every failure becomes an ApiError whose message is the server's errorMessage, ready to show.

import type { Static } from '@sinclair/typebox';
import type { WebUser as WebUserSchema } from '../http/web/shapes.ts';

export class ApiError extends Error {
  constructor(
    message: string,
    readonly errorCode: number,
    readonly status: number,
    /** The envelope's other fields beside success/errorCode/errorMessage (e.g. the playground's
     * `executionId` with errorCode 11, "already running"); empty when there are none. */
    readonly fields: Readonly<Record<string, unknown>> = {},
  ) {
    super(message);
  }
}

const ENVELOPE_KEYS = new Set(['success', 'errorCode', 'errorMessage']);

function extraFields(data: unknown): Record<string, unknown> {
  if (!data || typeof data !== 'object' || Array.isArray(data)) return {};
  return Object.fromEntries(Object.entries(data).filter(([k]) => !ENVELOPE_KEYS.has(k)));
}

export interface Envelope {
  success: boolean;
  errorCode: number;
  errorMessage: string | null;
}

async function send<T>(method: string, url: string, body?: unknown, keepalive = false): Promise<T & Envelope> {
  let res: Response;
  try {
    res = await fetch(url, {
      method,
      credentials: 'same-origin',
      keepalive,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new ApiError('The server cannot be reached. Is ReplayDesk running?', 0, 0);
  }
  let data: any = null;
  try {
    data = await res.json();
  } catch {
    throw new ApiError(`Unexpected answer from the server (HTTP ${res.status})`, res.status, res.status);
  }
  if (res.status === 401) onUnauthorized();
  if (!res.ok || !data || data.success === false) {
    const retry = res.headers.get('retry-after');
    const msg = data?.errorMessage ?? `HTTP ${res.status}`;
    throw new ApiError(retry ? `${msg} (retry in ${retry} s)` : msg, data?.errorCode ?? res.status, res.status, extraFields(data));
  }
  return data;
}

let onUnauthorized: () => void = () => {};
/** The shell registers what happens when the session is gone (back to the login form). */
export function setUnauthorizedHandler(f: () => void): void {
  onUnauthorized = f;
}

/** Current family (`/api/sim/Group/op`), POST with a JSON body. */
export function sim<T = Record<string, any>>(path: string, body: unknown = {}): Promise<T & Envelope> {
  return send<T>('POST', `/api/sim/${path}`, body);
}

/** Playground family (`/api/playground/...`). */
export function playground<T = Record<string, any>>(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<T & Envelope> {
  return send<T>(method, `/api/playground/${path}`, body);
}

/**
 * The web application's own endpoints (`/api/auth/...`). `keepalive`: the request outlives the page
 * (a write made just before a reload or a tab close still reaches the server).
 */
export function auth<T = Record<string, any>>(method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown, opts: { keepalive?: boolean } = {}): Promise<T & Envelope> {
  return send<T>(method, `/api/auth/${path}`, body ?? (method === 'GET' ? undefined : {}), opts.keepalive);
}

export type WebUser = Static<typeof WebUserSchema>;
