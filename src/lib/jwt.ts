// Minimal HS256 JSON Web Tokens (RFC 7519). Clients of the real gateway decode the token to read
// its expiry, so tokens must be real JWTs; revocation is handled by the caller through `jti`.

import { createHmac, timingSafeEqual } from 'node:crypto';

export interface JwtClaims {
  sub: string;
  jti: string;
  iat: number;
  exp: number;
  [claim: string]: unknown;
}

const HEADER = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })).toString('base64url');

export function signJwt(claims: JwtClaims, secret: Uint8Array): string {
  const payload = Buffer.from(JSON.stringify(claims)).toString('base64url');
  const input = `${HEADER}.${payload}`;
  const sig = createHmac('sha256', secret).update(input).digest('base64url');
  return `${input}.${sig}`;
}

/** Returns the claims when the signature is valid and `exp` is after `nowS`; otherwise null. */
export function verifyJwt(token: string, secret: Uint8Array, nowS: number): JwtClaims | null {
  const parts = token.split('.');
  if (parts.length !== 3 || parts[0] !== HEADER) return null;
  const expected = createHmac('sha256', secret).update(`${parts[0]}.${parts[1]}`).digest();
  const given = Buffer.from(parts[2], 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  let claims: JwtClaims;
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
