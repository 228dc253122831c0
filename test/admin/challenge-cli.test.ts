// `admin challenge …` as a user runs it.
import { describe, expect, it } from 'bun:test';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../../src/app.ts';
import { defaultConfig } from '../../src/config.ts';
import { openInstance } from '../../src/instance.ts';

const ROOT = join(import.meta.dir, '..', '..');

function admin(dataDir: string, ...args: string[]) {
  const p = Bun.spawnSync([process.execPath, 'src/admin/cli.ts', ...args], { cwd: ROOT, env: { ...process.env, DATA_DIR: dataDir } });
  const stdout = p.stdout.toString();
  return { code: p.exitCode, lines: stdout.trim().split('\n').length, json: JSON.parse(stdout) };
}

function freshDir() {
  const dir = mkdtempSync(join(tmpdir(), 'rd-challenge-'));
  admin(dir, 'user', 'create', '--email', 'ann@example.com');
  return dir;
}

describe('admin challenge', () => {
  it('create → the account with its plan and a fresh evaluation state', () => {
    const dir = freshDir();
    const r = admin(dir, 'challenge', 'create', '--email', 'ann@example.com', '--plan', '100K');
    expect(r.code).toBe(0);
    expect(r.lines).toBe(1);
    expect(r.json).toMatchObject({
      accountId: expect.any(Number),
      name: `CHALLENGE-100K-${r.json.accountId}`,
      plan: { key: '100K-standard', size: '100K', policy: 'standard', profitTarget: 6000, maxLossLimit: 3000, dailyLossLimit: 2000, maxContracts: 10, minTradingDays: 2 },
      propFirm: { status: 'active', isFunded: false, currentPhase: 'evaluation', tradingDaysCount: 0, drawdownLocked: false },
      balance: 100000,
      startingBalance: 100000,
      floor: 97000,
      days: [],
      payoutEligibility: null,
    });
  });

  it('create in the performance phase with the consistency policy; show returns the same', () => {
    const dir = freshDir();
    const created = admin(dir, 'challenge', 'create', '--email', 'ann@example.com', '--plan', '50K', '--phase', 'performance', '--policy', 'consistency');
    expect(created.json.propFirm).toEqual({ status: 'active', isFunded: true, currentPhase: 'performance', tradingDaysCount: 0, drawdownLocked: false });
    expect(created.json.plan.policy).toBe('consistency');
    expect(created.json.payoutEligibility).toMatchObject({ eligible: false, requiredWinningDays: 3, consistencyPct: 40 });
    const shown = admin(dir, 'challenge', 'show', '--account', String(created.json.accountId));
    expect(shown.json).toEqual(created.json);
  });

  it('end marks an active challenge ended; it then cannot trade', async () => {
    const dir = freshDir();
    const created = admin(dir, 'challenge', 'create', '--email', 'ann@example.com', '--plan', '50K');
    const ended = admin(dir, 'challenge', 'end', '--account', String(created.json.accountId));
    expect(ended.json.propFirm.status).toBe('ended');
    const s = await openInstance(defaultConfig({ dataDir: dir }));
    const app = buildApp(s);
    const key = await s.users.rotateKey('ann@example.com');
    if (!key.ok) throw new Error('rotate');
    const call = async (path: string, body: unknown, token?: string) => {
      const res = await app.handle(
        new Request(`http://localhost/api/sim/${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
          body: JSON.stringify(body),
        }),
      );
      return (await res.json()) as any;
    };
    const token = (await call('Auth/loginKey', { userName: 'ann@example.com', apiKey: key.value.apiKey })).token;
    const accounts = await call('Account/search', {}, token);
    expect(accounts.accounts).toEqual([
      { id: created.json.accountId, name: created.json.name, balance: 50000, canTrade: false, isVisible: true, simulated: true },
    ]);
    s.db.close();
  });

  it.each([
    [['challenge', 'create', '--plan', '50K'], '--email is required'],
    [['challenge', 'create', '--email', 'nobody@example.com', '--plan', '50K'], 'no user with this email'],
    [['challenge', 'create', '--email', 'ann@example.com'], '--plan is required (one of 50K, 100K, 150K)'],
    [['challenge', 'create', '--email', 'ann@example.com', '--plan', '75K'], '--plan must be one of 50K, 100K, 150K'],
    [['challenge', 'create', '--email', 'ann@example.com', '--plan', '50K', '--phase', 'funded'], '--phase must be one of evaluation, performance'],
    [['challenge', 'create', '--email', 'ann@example.com', '--plan', '50K', '--policy', 'lenient'], '--policy must be one of standard, consistency'],
    [['challenge', 'show', '--account', '999'], 'no challenge account with this id'],
    [['challenge', 'show', '--account', 'x'], '--account must be an account id'],
    [['challenge', 'fly'], 'unknown challenge command "fly"; expected create, show, end or plans'],
  ])('%p → exit 1 with {"error": %p}', (args, message) => {
    const dir = freshDir();
    const r = admin(dir, ...args);
    expect(r.code).toBe(1);
    expect(r.json).toEqual({ error: message });
  });
});
