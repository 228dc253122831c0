// A bearer token's principal is kept between calls (service/auth-principals.ts): a second call reads
// neither its token row nor its user, and whatever could change them is seen on the very next call:
// a logout, a rotation, a plan change, a disabled user, a new key, expiry, and the same changes
// committed by another connection to the file (the admin CLI is another process).
import { Database } from 'bun:sqlite';
import { afterEach, describe, expect, it } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultConfig } from '../../src/config.ts';
import { ManualClock } from '../../src/lib/clock.ts';
import { sha256Hex } from '../../src/lib/secrets.ts';
import { PrincipalCache } from '../../src/service/auth-principals.ts';
import { createServices } from '../../src/service/services.ts';
import { openDb } from '../../src/store/db.ts';
import { T0 } from '../support/app.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const EMAIL = 'trader@example.com';

async function instance() {
  const dir = mkdtempSync(join(tmpdir(), 'rd-principals-'));
  dirs.push(dir);
  const path = join(dir, 'replaydesk.db');
  const clock = new ManualClock(T0);
  const db = openDb(path);
  const s = await createServices({ config: defaultConfig(), clock, db, jwtSecret: new TextEncoder().encode('replaydesk-fixed-test-secret-32b') });
  const created = await s.users.create({ email: EMAIL, plan: 'pro' });
  if (!created.ok) throw new Error('setup');
  const login = await s.auth.login(EMAIL, created.value.apiKey, '127.0.0.1');
  if (!login.ok) throw new Error('setup');
  // Statements that read a token row or a user, as the store runs them.
  const reads: string[] = [];
  const get = s.sql.get.bind(s.sql);
  s.sql.get = ((text: string, params?: Record<string, unknown>) => {
    if (/FROM (tokens|users)\b/.test(text)) reads.push(text);
    return get(text, params as never);
  }) as typeof s.sql.get;
  /** Another connection to the file, as the admin CLI's. */
  const other = (sql: string) => {
    const o = new Database(path);
    o.exec('PRAGMA busy_timeout = 5000');
    o.exec(sql);
    o.close();
  };
  return { s, db, clock, token: login.value.token, apiKey: created.value.apiKey, reads, other };
}

describe('bearer principals kept between calls', () => {
  it('a second call reads neither the token row nor the user, and answers the same principal', async () => {
    const t = await instance();
    const first = await t.s.auth.authorize(t.token);
    expect(t.reads.length).toBe(2);
    t.reads.length = 0;
    const second = await t.s.auth.authorize(t.token);
    expect(t.reads).toEqual([]);
    expect(second).toEqual(first);
    expect(second.ok && second.value.user.email).toBe(EMAIL);
  });

  it('a logout, a rotation and a new key refuse the token on the next call', async () => {
    const t = await instance();
    const p = await t.s.auth.authenticate(t.token);
    await t.s.auth.logout(p!);
    expect(await t.s.auth.authenticate(t.token)).toBeNull();

    const t2 = await instance();
    await t2.s.auth.authenticate(t2.token);
    const rotated = await t2.s.auth.validate(t2.token);
    expect(rotated.ok).toBe(true);
    expect(await t2.s.auth.authenticate(t2.token)).toBeNull();

    const t3 = await instance();
    await t3.s.auth.authenticate(t3.token);
    expect((await t3.s.users.rotateKey(EMAIL)).ok).toBe(true);
    expect(await t3.s.auth.authenticate(t3.token)).toBeNull();
  });

  it('a plan change and a disabled user are seen on the next call, a key profile too', async () => {
    const t = await instance();
    await t.s.auth.authorize(t.token);
    await t.s.users.set(EMAIL, { plan: 'free' });
    expect(await t.s.auth.authorize(t.token)).toEqual({ ok: false, error: { kind: 'pro_required' } });
    await t.s.users.set(EMAIL, { plan: 'pro' });
    expect((await t.s.auth.authorize(t.token)).ok).toBe(true);
    await t.s.users.setKeyProfile(EMAIL, 'live');
    const p = await t.s.auth.authorize(t.token);
    expect(p.ok && p.value.user.apiKeyProfile).toBe('live');
    await t.s.users.set(EMAIL, { disabled: true });
    expect(await t.s.auth.authorize(t.token)).toEqual({ ok: false, error: { kind: 'invalid_session' } });
  });

  it('changes committed by another connection are seen on the next call', async () => {
    const t = await instance();
    expect((await t.s.auth.authorize(t.token)).ok).toBe(true);
    t.other(`UPDATE users SET plan = 'free' WHERE email = '${EMAIL}'`);
    expect(await t.s.auth.authorize(t.token)).toEqual({ ok: false, error: { kind: 'pro_required' } });
    t.other(`UPDATE users SET plan = 'pro' WHERE email = '${EMAIL}'`);
    expect((await t.s.auth.authorize(t.token)).ok).toBe(true);
    t.other(`UPDATE users SET disabled = 1 WHERE email = '${EMAIL}'`);
    expect(await t.s.auth.authenticate(t.token)).toBeNull();
    t.other(`UPDATE users SET disabled = 0 WHERE email = '${EMAIL}'`);
    expect(await t.s.auth.authenticate(t.token)).not.toBeNull();
    t.other(`UPDATE tokens SET revoked_ms = ${T0}`);
    expect(await t.s.auth.authenticate(t.token)).toBeNull();
  });

  it('a kept principal expires with its token', async () => {
    const t = await instance();
    const p = await t.s.auth.authenticate(t.token);
    t.clock.set(p!.expiresMs);
    expect(await t.s.auth.authenticate(t.token)).toBeNull();
  });

  it('a caller changing its principal changes no other call\'s', async () => {
    const t = await instance();
    const p = await t.s.auth.authenticate(t.token);
    p!.user.plan = 'free';
    expect((await t.s.auth.authorize(t.token)).ok).toBe(true);
  });

  it('without a version (PostgreSQL: other nodes write the rows) nothing is kept', () => {
    const c = new PrincipalCache(null, 10);
    const principal = { user: { id: 1 } as never, jtiHash: sha256Hex('j'), expiresMs: T0 + 1000 };
    c.keep('j', principal, c.stamp());
    expect(c.get('j', T0)).toBeNull();
  });
});
