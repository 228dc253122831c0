// Calls to the earlier family (`/api/legacy-sim/…`) on a test app from app.ts: the same services
// and users as the current family, so a test may set up through either.

import { readReply as reply, type Reply, type TestApp } from './app.ts';

/** POST JSON to an earlier-family path (`Auth/loginKey`); returns status, headers and parsed body. */
export async function legacyPost(
  t: TestApp,
  path: string,
  body: unknown = {},
  token: string | null = null,
  headers: Record<string, string> = {},
): Promise<Reply> {
  const h: Record<string, string> = { 'content-type': 'application/json', ...headers };
  if (token) h.authorization = `Bearer ${token}`;
  const init = { method: 'POST', headers: h, body: typeof body === 'string' ? body : JSON.stringify(body) };
  return reply(await t.app.handle(new Request(`http://localhost/api/legacy-sim/${path}`, init)));
}

/** GET an earlier-family path (`Status/ping`). */
export async function legacyGet(t: TestApp, path: string): Promise<Reply> {
  return reply(await t.app.handle(new Request(`http://localhost/api/legacy-sim/${path}`)));
}

/** Auth/loginKey of the test app's user through the earlier family; returns the token. */
export async function legacyLogin(t: TestApp): Promise<string> {
  const r = await legacyPost(t, 'Auth/loginKey', { userName: t.email, apiKey: t.apiKey });
  if (!r.body.success) throw new Error(`legacy login failed: ${JSON.stringify(r.body)}`);
  return r.body.token as string;
}

/** The error envelope. */
export const failure = (errorCode: number, errorMessage: string) => ({ success: false, errorCode, errorMessage });

export const envelope = { success: true, errorCode: 0, errorMessage: null };
