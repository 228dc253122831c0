// API keys and tokens never appear in clear text in the database files or the logs.
import { describe, expect, it } from 'bun:test';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp, type Logger } from '../../../src/app.ts';
import { createFetch } from '../../../src/server.ts';
import { makeApp } from '../../support/app.ts';

describe('secrets at rest and in logs', () => {
  it('the database holds neither the API key, nor tokens, nor their jti', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rd-secrets-'));
    const t = await makeApp({ dbPath: join(dir, 'replaydesk.db') });
    const token = await t.login();
    const rotated = (await t.post('Auth/validate', {}, token)).body.newToken as string;
    const rotatedKey = await t.s.users.rotateKey(t.email);
    if (!rotatedKey.ok) throw new Error('rotate');
    const jtis = [token, rotated].map((tok) => JSON.parse(Buffer.from(tok.split('.')[1], 'base64url').toString()).jti);
    t.s.db.exec('PRAGMA wal_checkpoint(PASSIVE)');
    const bytes = readdirSync(dir)
      .map((f) => readFileSync(join(dir, f)).toString('latin1'))
      .join('\n');
    for (const secret of [t.apiKey, rotatedKey.value.apiKey, token, rotated, ...jtis]) {
      expect(bytes.includes(secret)).toBe(false);
    }
    t.s.db.close();
  });

  it('request log lines carry method, path, status and ms, and never a key or token', async () => {
    const t = await makeApp();
    const lines: string[] = [];
    const log: Logger = { info: (m, f) => lines.push(`${m} ${JSON.stringify(f)}`), error: (m, f) => lines.push(`${m} ${JSON.stringify(f)}`) };
    const fetch = createFetch(buildApp(t.s, log), log, true);
    const login = await fetch(
      new Request(`http://localhost/api/sim/Auth/loginKey?apiKey=${t.apiKey}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ userName: t.email, apiKey: t.apiKey }),
      }),
    );
    const { token } = (await login.json()) as any;
    await fetch(
      new Request('http://localhost/api/sim/Account/search', {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: '{}',
      }),
    );
    expect(lines.length).toBe(2);
    expect(lines[0]).toContain('"method":"POST","path":"/api/sim/Auth/loginKey","status":200');
    expect(lines[0]).toMatch(/"ms":\d/);
    const all = lines.join('\n');
    expect(all.includes(t.apiKey)).toBe(false);
    expect(all.includes(token)).toBe(false);
  });

  it('login takes the same code path for unknown emails and wrong keys (same body)', async () => {
    const t = await makeApp();
    const a = await t.post('Auth/loginKey', { userName: 'ghost@example.com', apiKey: t.apiKey });
    const b = await t.post('Auth/loginKey', { userName: t.email, apiKey: `${t.apiKey}x` });
    expect(a.body).toEqual(b.body);
    expect(a.status).toBe(b.status);
  });
});
