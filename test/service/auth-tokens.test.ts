// Bearer tokens through the service and the HTTP families after the move to @elysiajs/jwt: a token
// issued by the old signer (same secret file, same row in `tokens`) keeps working, revocation and
// expiry still apply to a token the verifier remembers, and a rotation race yields one successor.
import { describe, expect, it } from 'bun:test';
import { createHmac } from 'node:crypto';
import { buildApp } from '../../src/app.ts';
import { defaultConfig } from '../../src/config.ts';
import { ManualClock } from '../../src/lib/clock.ts';
import { sha256Hex } from '../../src/lib/secrets.ts';
import { createServices } from '../../src/service/services.ts';
import { openDb } from '../../src/store/db.ts';
import { IssuedJwtStore } from '../../src/store/issued-jwts.ts';
import { readReply, T0 } from '../support/app.ts';

// The old signer (src/lib/jwt.ts before the upgrade), verbatim.
const OLD_HEADER = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })).toString('base64url');
function oldSignJwt(claims: Record<string, unknown>, secret: Uint8Array): string {
  const payload = Buffer.from(JSON.stringify(claims)).toString('base64url');
  const input = `${OLD_HEADER}.${payload}`;
  return `${input}.${createHmac('sha256', secret).update(input).digest('base64url')}`;
}

const SECRET = new TextEncoder().encode('replaydesk-fixed-test-secret-32b');

async function instance() {
  const clock = new ManualClock(T0);
  const db = openDb(':memory:');
  // A copy of the secret bytes, as a restart reading DATA_DIR/jwt-secret would get.
  const s = await createServices({ config: defaultConfig(), clock, db, jwtSecret: new Uint8Array(SECRET) });
  const app = buildApp(s);
  const email = 'trader@example.com';
  const created = await s.users.create({ email, plan: 'pro' });
  if (!created.ok) throw new Error('setup');
  const userId = (await s.users.list()).find((u) => u.email === email)!.id;
  const post = async (path: string, token: string | null) => {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (token) headers.authorization = `Bearer ${token}`;
    return readReply(await app.handle(new Request(`http://localhost/api/${path}`, { method: 'POST', headers, body: '{}' })));
  };
  /** A token as the old code issued it: a row keyed by SHA-256(jti), then the old signature. */
  const oldToken = async (jti: string) => {
    const iat = Math.floor(clock.nowMs() / 1000);
    await new IssuedJwtStore(s.sql, 'tokens').insert(sha256Hex(jti), userId, clock.nowMs(), (iat + 86_400) * 1000);
    return oldSignJwt({ sub: String(userId), jti, iat, exp: iat + 86_400, iss: 'replaydesk' }, SECRET);
  };
  return { s, clock, email, userId, post, oldToken };
}

describe('a token issued before the upgrade', () => {
  it('works on both families, rotates, and logs out', async () => {
    const t = await instance();
    const token = await t.oldToken('issued-before-upgrade-1');
    const principal = await t.s.auth.authenticate(token);
    expect(principal?.user.email).toBe(t.email);
    expect(principal?.expiresMs).toBe(T0 + 86_400_000);
    expect((await t.post('sim/Account/search', token)).body.success).toBe(true);
    expect((await t.post('legacy-sim/Account/search', token)).body.success).toBe(true);
    const rotated = await t.post('sim/Auth/validate', token);
    expect(rotated.body.success).toBe(true);
    expect((await t.post('sim/Account/search', token)).status).toBe(401);
    expect((await t.post('sim/Account/search', rotated.body.newToken)).status).toBe(200);
    expect((await t.post('sim/Auth/logout', rotated.body.newToken)).body.success).toBe(true);
    expect((await t.post('sim/Account/search', rotated.body.newToken)).status).toBe(401);
  });

  it('is refused when its row names another user than its sub', async () => {
    const t = await instance();
    const jti = 'issued-before-upgrade-2';
    await t.oldToken(jti);
    const forged = oldSignJwt({ sub: String(t.userId + 1), jti, iat: T0 / 1000, exp: T0 / 1000 + 86_400, iss: 'replaydesk' }, SECRET);
    expect(await t.s.auth.authenticate(forged)).toBeNull();
  });

  it('without its row (never issued here) is refused, however well signed', async () => {
    const t = await instance();
    const token = oldSignJwt({ sub: String(t.userId), jti: 'never-stored', iat: T0 / 1000, exp: T0 / 1000 + 86_400, iss: 'replaydesk' }, SECRET);
    expect((await t.post('sim/Account/search', token)).status).toBe(401);
  });
});

describe('a token the verifier remembers is still checked on every call', () => {
  it('revoked by logout → 401 on the next call', async () => {
    const t = await instance();
    const token = await t.oldToken('remembered-1');
    expect((await t.post('sim/Account/search', token)).status).toBe(200);
    expect((await t.post('sim/Auth/logout', token)).body.success).toBe(true);
    expect((await t.post('sim/Account/search', token)).status).toBe(401);
  });

  it('revoked by key rotation, or its user disabled → 401', async () => {
    const t = await instance();
    const a = await t.oldToken('remembered-2');
    const b = await t.oldToken('remembered-3');
    expect((await t.post('sim/Account/search', a)).status).toBe(200);
    expect((await t.post('sim/Account/search', b)).status).toBe(200);
    await t.s.users.rotateKey(t.email);
    expect((await t.post('sim/Account/search', a)).status).toBe(401);
    const c = await t.oldToken('remembered-4');
    expect((await t.post('sim/Account/search', c)).status).toBe(200);
    await t.s.users.set(t.email, { disabled: true });
    expect((await t.post('sim/Account/search', c)).status).toBe(401);
  });

  it('expired → 401, from the second of its exp', async () => {
    const t = await instance();
    const token = await t.oldToken('remembered-5');
    expect((await t.post('sim/Account/search', token)).status).toBe(200);
    t.clock.advance(86_400_000 - 1);
    expect((await t.post('sim/Account/search', token)).status).toBe(200);
    t.clock.advance(1);
    expect((await t.post('sim/Account/search', token)).status).toBe(401);
  });
});

describe('rotation races', () => {
  it('two Auth/validate calls with one token at once: one successor, the other Invalid session', async () => {
    const t = await instance();
    const token = await t.oldToken('raced-1');
    const replies = await Promise.all([t.post('sim/Auth/validate', token), t.post('sim/Auth/validate', token)]);
    const won = replies.filter((r) => r.body.success);
    expect(won).toHaveLength(1);
    expect(replies.find((r) => !r.body.success)?.body).toEqual({ success: false, errorCode: 1, errorMessage: 'Invalid session', newToken: null });
    expect((await t.post('sim/Account/search', won[0].body.newToken)).status).toBe(200);
  });
});
