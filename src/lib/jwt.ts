// The instance's JSON Web Tokens: one signing setup (@elysiajs/jwt over jose, HS256, the secret in
// DATA_DIR/jwt-secret) for its two kinds.
//
// - Bearer tokens (Auth/loginKey of both families): header `{alg: HS256, typ: JWT}`, claims `sub`,
//   `jti`, `iat`, `exp`, `iss` `replaydesk`. These are the header, claims and algorithm of the
//   hand-rolled signer this replaced, so tokens issued before the upgrade keep working.
// - Web session cookies: header `typ` `rd-web+jwt`, the same claims plus `aud` `replaydesk-web`.
//
// Each verifier requires its own header type and the bearer verifier refuses any audience, so
// neither kind passes for the other. Only HS256 is accepted (no `none`, no other algorithm). The
// plugin stamps `iat` from the wall clock; `exp` is the caller's. Revocation is the caller's, by `jti`.
//
// jose verifies through WebCrypto, which Bun runs off the JavaScript thread: tens of microseconds a
// call against one for a synchronous HMAC, paid on every authenticated request. So each kind keeps
// the claims of the tokens it has verified, by the token's exact text (bounded, least recently used
// dropped first): a signature check is a pure function of the text and the secret, so a token seen
// before is only checked for expiry here, and the caller still checks revocation on every call.

import { jwt } from '@elysiajs/jwt';
import { createSecretKey } from 'node:crypto';
import { coreLimits } from '../core-limits.ts';

export interface JwtClaims {
  sub: string;
  jti: string;
  /** Expiry, epoch seconds. */
  exp: number;
}

export interface JwtKind {
  sign(claims: JwtClaims): Promise<string>;
  /** The claims when the token is of this kind, signed under the secret and unexpired at `nowMs`; else null. */
  verify(token: string, nowMs: number): Promise<JwtClaims | null>;
  /** How many verified tokens are remembered (at most coreLimits.jwtVerifiedCacheEntriesMax). */
  remembered(): number;
}

interface KindShape {
  typ: string;
  iss: string;
  aud?: string;
}

const ISSUER = 'replaydesk';
export const BEARER_JWT: Readonly<KindShape> = Object.freeze({ typ: 'JWT', iss: ISSUER });
export const WEB_JWT: Readonly<KindShape> = Object.freeze({ typ: 'rd-web+jwt', iss: ISSUER, aud: 'replaydesk-web' });

const kindsBySecret = new WeakMap<Uint8Array, { bearer: JwtKind; web: JwtKind }>();

/** Both kinds of the instance under its secret: one setup per secret, whoever asks. */
export function jwtKinds(secret: Uint8Array): { bearer: JwtKind; web: JwtKind } {
  let kinds = kindsBySecret.get(secret);
  if (!kinds) {
    // A KeyObject lets jose keep the imported HMAC key instead of importing the raw bytes per call.
    const key = createSecretKey(secret);
    kinds = { bearer: kind(key, BEARER_JWT), web: kind(key, WEB_JWT) };
    kindsBySecret.set(secret, kinds);
  }
  return kinds;
}

function kind(key: ReturnType<typeof createSecretKey>, shape: KindShape): JwtKind {
  const signer = jwt({ name: 'signer', secret: key, alg: 'HS256', typ: shape.typ, iss: shape.iss, aud: shape.aud }).decorator.signer;
  const verified = new Map<string, Readonly<JwtClaims>>();
  return {
    sign: (claims) => signer.sign({ sub: claims.sub, jti: claims.jti, exp: claims.exp }),
    remembered: () => verified.size,
    async verify(token, nowMs) {
      if (token === '' || token.length > coreLimits.jwtLengthCharsMax) return null;
      const known = verified.get(token);
      if (known) {
        verified.delete(token);
        // jose's rule: expired once `exp` is at or before the current second.
        if (known.exp <= Math.floor(nowMs / 1000)) return null;
        verified.set(token, known);
        return known;
      }
      const claims = await signer.verify(token, {
        algorithms: ['HS256'],
        typ: shape.typ,
        issuer: shape.iss,
        audience: shape.aud,
        requiredClaims: ['exp', 'jti', 'sub'],
        currentDate: new Date(nowMs),
      });
      if (!claims || typeof claims.sub !== 'string' || typeof claims.jti !== 'string' || typeof claims.exp !== 'number') return null;
      // jose checks an audience only when asked for one: a bearer token carries none.
      if (shape.aud === undefined && claims.aud !== undefined) return null;
      const result = Object.freeze({ sub: claims.sub, jti: claims.jti, exp: claims.exp });
      if (verified.size >= coreLimits.jwtVerifiedCacheEntriesMax) verified.delete(verified.keys().next().value as string);
      verified.set(token, result);
      return result;
    },
  };
}
