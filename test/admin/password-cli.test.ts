// `user set-password`: sets the web-login password, prints only the email, ends live web sessions.
import { describe, expect, it } from 'bun:test';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../../src/app.ts';
import { defaultConfig } from '../../src/config.ts';
import { openInstance } from '../../src/instance.ts';

const ROOT = join(import.meta.dir, '..', '..');

function admin(dataDir: string, ...args: string[]) {
  const p = Bun.spawnSync([process.execPath, 'src/admin/cli.ts', ...args], { cwd: ROOT, env: { ...process.env, DATA_DIR: dataDir } });
  const stdout = p.stdout.toString();
  return { code: p.exitCode, stdout, json: JSON.parse(stdout) };
}

describe('admin CLI user set-password', () => {
  it('sets the password (printing only the email); the web login then works and old sessions end', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rd-admin-pw-'));
    admin(dir, 'user', 'create', '--email', 'ann@example.com', '--password', 'first-passphrase');
    const s = await openInstance(defaultConfig({ dataDir: dir }));
    const app = buildApp(s);
    const login = (password: string) =>
      app.handle(
        new Request('http://localhost/api/auth/login', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ email: 'ann@example.com', password }),
        }),
      );
    const first = await login('first-passphrase');
    const cookie = /rd_session=([^;]+)/.exec(first.headers.get('set-cookie')!)![1];
    const me = () => app.handle(new Request('http://localhost/api/auth/me', { headers: { cookie: `rd_session=${cookie}` } }));
    expect((await me()).status).toBe(200);

    const r = admin(dir, 'user', 'set-password', '--email', 'ANN@example.com', '--password', 'second-passphrase');
    expect(r.code).toBe(0);
    expect(r.json).toEqual({ email: 'ann@example.com' });
    expect(r.stdout.trim().split('\n').length).toBe(1);
    expect(r.stdout).not.toContain('second-passphrase');
    expect(r.stdout).not.toContain('argon2');

    expect((await me()).status).toBe(401);
    expect(((await (await login('first-passphrase')).json()) as any).errorMessage).toBe('Invalid credentials');
    expect(((await (await login('second-passphrase')).json()) as any).success).toBe(true);
    await s.shutdown();
    s.db.close();
    const bytes = readdirSync(dir)
      .map((f) => readFileSync(join(dir, f)).toString('latin1'))
      .join('\n');
    expect(bytes.includes('second-passphrase')).toBe(false);
  });

  it.each([
    [['user', 'set-password', '--password', 'x'], '--email is required'],
    [['user', 'set-password', '--email', 'ann@example.com'], '--password is required'],
    [['user', 'set-password', '--email', 'nobody@example.com', '--password', 'x'], 'no user with this email'],
    [['user', 'set-password', '--email', 'ann@example.com', '--password', 'x'.repeat(257)], 'password must be 1 to 256 characters'],
  ])('%p → exit 1 with {"error": %p}', (args, message) => {
    const dir = mkdtempSync(join(tmpdir(), 'rd-admin-pw-'));
    admin(dir, 'user', 'create', '--email', 'ann@example.com');
    const r = admin(dir, ...args);
    expect(r.code).toBe(1);
    expect(r.json).toEqual({ error: message });
  });
});
