// The instance's JWTs through @elysiajs/jwt: tokens signed by the hand-rolled signer it replaced
// keep verifying, tampered, expired and foreign tokens are refused, and bearer and cookie tokens
// cannot stand in for each other.
import { describe, expect, it } from 'bun:test';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { coreLimits } from '../../src/core-limits.ts';
import { jwtKinds } from '../../src/lib/jwt.ts';

// ---- The signer and verifier of src/lib/jwt.ts before the upgrade, verbatim. ----
interface OldClaims {
  sub: string;
  jti: string;
  iat: number;
  exp: number;
  [claim: string]: unknown;
}
const OLD_HEADER = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })).toString('base64url');
function oldSignJwt(claims: OldClaims, secret: Uint8Array): string {
  const payload = Buffer.from(JSON.stringify(claims)).toString('base64url');
  const input = `${OLD_HEADER}.${payload}`;
  const sig = createHmac('sha256', secret).update(input).digest('base64url');
  return `${input}.${sig}`;
}
function oldVerifyJwt(token: string, secret: Uint8Array, nowS: number): OldClaims | null {
  const parts = token.split('.');
  if (parts.length !== 3 || parts[0] !== OLD_HEADER) return null;
  const expected = createHmac('sha256', secret).update(`${parts[0]}.${parts[1]}`).digest();
  const given = Buffer.from(parts[2], 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  let claims: OldClaims;
  try {
    claims = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8'));
  } catch {
    return null;
  }
  if (typeof claims !== 'object' || claims === null) return null;
  if (typeof claims.exp !== 'number' || claims.exp <= nowS) return null;
  if (typeof claims.jti !== 'string' || typeof claims.sub !== 'string') return null;
  return claims;
}

const SECRET = new TextEncoder().encode('replaydesk-fixed-test-secret-32b');
const T0_S = Date.UTC(2025, 2, 3, 14, 30, 0) / 1000;
const T0_MS = T0_S * 1000;
const CLAIMS = { sub: '42', jti: 'p3Yq0pW8x2m1Qz7Kc4Rt9A', iat: T0_S, exp: T0_S + 86_400, iss: 'replaydesk' };
// Printed by the old signer for CLAIMS under SECRET, before the upgrade.
const OLD_TOKEN =
  'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiI0MiIsImp0aSI6InAzWXEwcFc4eDJtMVF6N0tjNFJ0OUEiLCJpYXQiOjE3NDEwMTIyMDAsImV4cCI6MTc0MTA5ODYwMCwiaXNzIjoicmVwbGF5ZGVzayJ9.SJQgkkV73RHlv-nr-YqmVzaIwPd7wzj8s6YR0R-g93g';

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
const decode = (part: string) => JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));

/** A compact JWS with any header, HMAC-signed with `hash` under `secret` (or unsigned for `none`). */
function forge(header: Record<string, unknown>, claims: Record<string, unknown>, secret = SECRET, hash = 'sha256'): string {
  const input = `${b64(header)}.${b64(claims)}`;
  if (header.alg === 'none') return `${input}.`;
  return `${input}.${createHmac(hash, secret).update(input).digest('base64url')}`;
}

/** A fresh setup: each test gets its own secret object, so no verified-token memory is shared. */
const kinds = () => jwtKinds(new Uint8Array(SECRET));

describe('bearer tokens across the upgrade', () => {
  it('a token printed by the old signer verifies, with its claims', async () => {
    expect(oldSignJwt(CLAIMS, SECRET)).toBe(OLD_TOKEN);
    expect(await kinds().bearer.verify(OLD_TOKEN, T0_MS + 1000)).toEqual({ sub: '42', jti: CLAIMS.jti, exp: CLAIMS.exp });
  });

  it('tokens of the old signer verify for any claims it wrote', async () => {
    const { bearer } = kinds();
    for (let i = 0; i < 50; i++) {
      const claims = { sub: String(i + 1), jti: `jti-${i}-${'x'.repeat(i % 7)}`, iat: T0_S + i, exp: T0_S + i + 86_400, iss: 'replaydesk' };
      expect(await bearer.verify(oldSignJwt(claims, SECRET), T0_MS + i * 1000)).toEqual({ sub: claims.sub, jti: claims.jti, exp: claims.exp });
    }
  });

  it('new tokens have the old header, the old claims, and verify with the old verifier (a rollback keeps them)', async () => {
    const { bearer } = kinds();
    const token = await bearer.sign({ sub: '7', jti: 'abc', exp: T0_S + 86_400 });
    const [header, payload] = token.split('.');
    expect(header).toBe(OLD_HEADER);
    expect(decode(payload)).toEqual({ sub: '7', jti: 'abc', iat: expect.any(Number), exp: T0_S + 86_400, iss: 'replaydesk' });
    expect(oldVerifyJwt(token, SECRET, T0_S)).toMatchObject({ sub: '7', jti: 'abc', exp: T0_S + 86_400 });
    expect(await bearer.verify(token, T0_MS)).toEqual({ sub: '7', jti: 'abc', exp: T0_S + 86_400 });
  });
});

describe('refused tokens', () => {
  const [h, p, sig] = OLD_TOKEN.split('.');
  const at = T0_MS + 1000;

  it.each([
    ['payload with another sub, old signature', () => `${h}.${b64({ ...CLAIMS, sub: '1' })}.${sig}`],
    ['payload with a later exp, old signature', () => `${h}.${b64({ ...CLAIMS, exp: CLAIMS.exp + 86_400 })}.${sig}`],
    ['signature with one character changed', () => `${h}.${p}.${sig.slice(0, 10)}${sig[10] === 'A' ? 'B' : 'A'}${sig.slice(11)}`],
    ['signature cut short', () => `${h}.${p}.${sig.slice(0, -2)}`],
    ['no signature', () => `${h}.${p}.`],
    ['alg none, unsigned', () => forge({ alg: 'none', typ: 'JWT' }, CLAIMS)],
    ['alg none, with the HS256 signature', () => `${b64({ alg: 'none', typ: 'JWT' })}.${p}.${sig}`],
    ['alg HS512 under the same secret', () => forge({ alg: 'HS512', typ: 'JWT' }, CLAIMS, SECRET, 'sha512')],
    ['HS256 under another secret', () => forge({ alg: 'HS256', typ: 'JWT' }, CLAIMS, new TextEncoder().encode('another-secret-of-thirty-two-byt'))],
    ['another issuer', () => forge({ alg: 'HS256', typ: 'JWT' }, { ...CLAIMS, iss: 'someone-else' })],
    ['no jti', () => forge({ alg: 'HS256', typ: 'JWT' }, { ...CLAIMS, jti: undefined })],
    ['no sub', () => forge({ alg: 'HS256', typ: 'JWT' }, { ...CLAIMS, sub: undefined })],
    ['no exp', () => forge({ alg: 'HS256', typ: 'JWT' }, { ...CLAIMS, exp: undefined })],
    ['a numeric sub', () => forge({ alg: 'HS256', typ: 'JWT' }, { ...CLAIMS, sub: 42 })],
    ['two parts', () => `${h}.${p}`],
    ['garbage', () => 'abc.def.ghi'],
    ['empty', () => ''],
    ['longer than any token of ours', () => `${h}.${b64({ ...CLAIMS, pad: 'x'.repeat(5000) })}.${sig}`],
  ])('%s (fresh, and beside a remembered good token)', async (_name, make) => {
    const { bearer, web } = kinds();
    expect(await bearer.verify(make(), at)).toBeNull();
    expect(await bearer.verify(OLD_TOKEN, at)).not.toBeNull();
    expect(await bearer.verify(make(), at)).toBeNull();
    expect(await web.verify(make(), at)).toBeNull();
  });

  it('expiry: valid through the second before exp, refused from exp on (the old rule)', async () => {
    const { bearer } = kinds();
    expect(await bearer.verify(OLD_TOKEN, (CLAIMS.exp - 1) * 1000 + 999)).not.toBeNull();
    expect(await bearer.verify(OLD_TOKEN, CLAIMS.exp * 1000)).toBeNull();
    expect(oldVerifyJwt(OLD_TOKEN, SECRET, CLAIMS.exp)).toBeNull();
    // A fresh setup (nothing remembered) agrees.
    expect(await kinds().bearer.verify(OLD_TOKEN, CLAIMS.exp * 1000)).toBeNull();
  });

  it('a token verified before is still refused once it expires (memory keeps no verdict on time)', async () => {
    const { bearer } = kinds();
    expect(await bearer.verify(OLD_TOKEN, T0_MS)).not.toBeNull();
    expect(await bearer.verify(OLD_TOKEN, T0_MS)).not.toBeNull();
    expect(await bearer.verify(OLD_TOKEN, CLAIMS.exp * 1000)).toBeNull();
    expect(await bearer.verify(OLD_TOKEN, T0_MS)).not.toBeNull();
  });

  it('memory is bounded: the least recently used token is forgotten and verified afresh', async () => {
    const { bearer } = kinds();
    const tokens = Array.from({ length: coreLimits.jwtVerifiedCacheEntriesMax + 1 }, (_, i) => oldSignJwt({ ...CLAIMS, jti: `j${i}` }, SECRET));
    for (const t of tokens) expect(await bearer.verify(t, T0_MS)).not.toBeNull();
    expect(bearer.remembered()).toBe(coreLimits.jwtVerifiedCacheEntriesMax);
    // The first one was dropped to make room; it still verifies (from its signature).
    expect(await bearer.verify(tokens[0], T0_MS)).toEqual({ sub: '42', jti: 'j0', exp: CLAIMS.exp });
    expect(bearer.remembered()).toBe(coreLimits.jwtVerifiedCacheEntriesMax);
    // Refused tokens are not remembered.
    const { bearer: other } = kinds();
    expect(await other.verify(`${tokens[0]}x`, T0_MS)).toBeNull();
    expect(other.remembered()).toBe(0);
  }, 60_000);
});

describe('bearer and cookie tokens cannot stand in for each other', () => {
  it('a cookie token is refused as a bearer token, and a bearer token as a cookie', async () => {
    const { bearer, web } = kinds();
    const cookie = await web.sign({ sub: '42', jti: 'c1', exp: T0_S + 86_400 });
    expect(decode(cookie.split('.')[0])).toEqual({ alg: 'HS256', typ: 'rd-web+jwt' });
    expect(decode(cookie.split('.')[1])).toMatchObject({ aud: 'replaydesk-web', iss: 'replaydesk' });
    expect(await web.verify(cookie, T0_MS)).toEqual({ sub: '42', jti: 'c1', exp: T0_S + 86_400 });
    expect(await bearer.verify(cookie, T0_MS)).toBeNull();
    const token = await bearer.sign({ sub: '42', jti: 'b1', exp: T0_S + 86_400 });
    expect(await bearer.verify(token, T0_MS)).not.toBeNull();
    expect(await web.verify(token, T0_MS)).toBeNull();
    expect(await web.verify(OLD_TOKEN, T0_MS)).toBeNull();
  });

  it('the header type and the audience each suffice to tell them apart', async () => {
    const { bearer, web } = kinds();
    // Bearer header with the cookie's audience: not a bearer token (audience), not a cookie (type).
    const withAudience = forge({ alg: 'HS256', typ: 'JWT' }, { ...CLAIMS, aud: 'replaydesk-web' });
    expect(await bearer.verify(withAudience, T0_MS)).toBeNull();
    expect(await web.verify(withAudience, T0_MS)).toBeNull();
    // Cookie header without an audience: not a cookie (audience), not a bearer token (type).
    const noAudience = forge({ alg: 'HS256', typ: 'rd-web+jwt' }, CLAIMS);
    expect(await web.verify(noAudience, T0_MS)).toBeNull();
    expect(await bearer.verify(noAudience, T0_MS)).toBeNull();
    // A header without a type is neither.
    const untyped = forge({ alg: 'HS256' }, CLAIMS);
    expect(await bearer.verify(untyped, T0_MS)).toBeNull();
    expect(await web.verify(untyped, T0_MS)).toBeNull();
  });

  it('one setup per secret: both services get the same verifiers', () => {
    const secret = new Uint8Array(SECRET);
    expect(jwtKinds(secret)).toBe(jwtKinds(secret));
  });
});
