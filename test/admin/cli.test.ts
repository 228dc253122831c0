// The admin CLI as a user runs it: one JSON object on stdout, non-zero exit with {"error"} on bad input.
import { describe, expect, it } from 'bun:test';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../../src/app.ts';
import { defaultConfig } from '../../src/config.ts';
import { openInstance } from '../../src/instance.ts';

const ROOT = join(import.meta.dir, '..', '..');

function admin(dataDir: string, ...args: string[]) {
  const p = Bun.spawnSync([process.execPath, 'src/admin/cli.ts', ...args], {
    cwd: ROOT,
    env: { ...process.env, DATA_DIR: dataDir },
  });
  const stdout = p.stdout.toString();
  return { code: p.exitCode, stdout, json: JSON.parse(stdout) };
}

function adminText(dataDir: string, ...args: string[]) {
  const p = Bun.spawnSync([process.execPath, 'src/admin/cli.ts', ...args], { cwd: ROOT, env: { ...process.env, DATA_DIR: dataDir } });
  return { code: p.exitCode, stdout: p.stdout.toString() };
}

describe('admin CLI usage', () => {
  it.each(['help', '--help', '-h', 'user --help', 'challenge create -h'])('`admin %s` prints the usage and exits 0, touching no data', (line) => {
    const dir = join(mkdtempSync(join(tmpdir(), 'rd-admin-')), 'data');
    const r = adminText(dir, ...line.split(' '));
    expect(r.code).toBe(0);
    expect(r.stdout).toStartWith('ReplayDesk admin: npm run --silent admin -- <group> <command> [--flags]\n');
    for (const line of ['user create      --email E', 'challenge create --email E --plan 50K|100K|150K', 'data import      --symbol S --format F']) expect(r.stdout).toContain(line);
    expect(existsSync(dir)).toBe(false);
  });

  it('no command prints the usage and exits 1', () => {
    const r = adminText(mkdtempSync(join(tmpdir(), 'rd-admin-')));
    expect(r.code).toBe(1);
    expect(r.stdout).toStartWith('ReplayDesk admin:');
  });
});

describe('admin CLI', () => {
  it('creates, lists, updates users and rotates keys', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rd-admin-'));
    const created = admin(dir, 'user', 'create', '--email', 'Ann@Example.com', '--plan', 'free', '--unverified');
    expect(created.code).toBe(0);
    expect(created.stdout.trim().split('\n').length).toBe(1);
    expect(created.json).toEqual({ userId: 1, email: 'ann@example.com', apiKey: expect.stringMatching(/^rdk_[A-Za-z0-9_-]{43}$/) });

    const list = admin(dir, 'user', 'list');
    expect(list.json.users).toEqual([
      { userId: 1, email: 'ann@example.com', plan: 'free', verified: false, disabled: false, hasApiKey: true, createdAt: expect.any(String) },
    ]);
    expect(list.stdout.includes(created.json.apiKey)).toBe(false);

    const set = admin(dir, 'user', 'set', '--email', 'ann@example.com', '--plan', 'pro', '--verified', 'true', '--disabled', 'true');
    expect(set.json).toMatchObject({ email: 'ann@example.com', plan: 'pro', verified: true, disabled: true });

    const rotated = admin(dir, 'user', 'rotate-key', '--email', 'ann@example.com');
    expect(rotated.json.apiKey).toMatch(/^rdk_/);
    expect(rotated.json.apiKey).not.toBe(created.json.apiKey);
  });

  it.each([
    [['user', 'create'], '--email is required'],
    [['user', 'create', '--email', 'not-an-email'], 'invalid email address'],
    [['user', 'create', '--email', 'a@b.c', '--plan', 'gold'], 'plan must be pro or free'],
    [['user', 'rotate-key', '--email', 'nobody@b.c'], 'no user with this email'],
    [['user', 'set', '--email', 'nobody@b.c', '--plan', 'pro'], 'no user with this email'],
    [['user', 'set', '--email', 'a@b.c', '--disabled', 'maybe'], '--disabled must be true or false'],
    [['user', 'fly'], 'unknown user command "fly"; expected create, rotate-key, set-profile, set, set-password or list'],
    [['nothing'], 'unknown command group "nothing"; expected user, challenge or data'],
  ])('%p → exit 1 with {"error": %p}', (args, message) => {
    const dir = mkdtempSync(join(tmpdir(), 'rd-admin-'));
    const r = admin(dir, ...args);
    expect(r.code).toBe(1);
    expect(r.json).toEqual({ error: message });
  });

  it('a duplicate email is refused', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rd-admin-'));
    admin(dir, 'user', 'create', '--email', 'a@b.c');
    expect(admin(dir, 'user', 'create', '--email', 'A@b.c').json).toEqual({ error: 'a user with this email already exists' });
  });

  it('works on the data directory of a running server, with immediate effect', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rd-admin-'));
    const s = await openInstance(defaultConfig({ dataDir: dir }));
    const app = buildApp(s);
    const created = admin(dir, 'user', 'create', '--email', 'live@example.com');
    const call = (path: string, body: unknown, token?: string) =>
      app
        .handle(
          new Request(`http://localhost/api/sim/${path}`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
            body: JSON.stringify(body),
          }),
        )
        .then(async (r) => ({ status: r.status, body: (await r.json()) as any }));
    const login = await call('Auth/loginKey', { userName: 'live@example.com', apiKey: created.json.apiKey });
    expect(login.body.success).toBe(true);
    admin(dir, 'user', 'set', '--email', 'live@example.com', '--plan', 'free');
    const again = await call('Auth/loginKey', { userName: 'live@example.com', apiKey: created.json.apiKey });
    expect(again.body.errorCode).toBe(9);
    admin(dir, 'user', 'rotate-key', '--email', 'live@example.com');
    expect((await call('Account/search', {}, login.body.token)).status).toBe(401);
    s.db.close();
  });
});
