// `admin data import` for an instrument only the live profile lists (src/domain/instruments.json):
// ZN, whose tick is 1/64 of a point, from a generic CSV of 1 s bars, stored at its 10 s resolution,
// then read back through History/retrieveBars on a server opened on the same directory, under the live
// profile (`/live/api/sim`); the spec profile (`/spec/api/sim`) does not know the contract.
import { describe, expect, it } from 'bun:test';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../../src/app.ts';
import { defaultConfig } from '../../src/config.ts';
import { openInstance } from '../../src/instance.ts';

const ROOT = join(import.meta.dir, '..', '..');
const SPAN = { dataStartDate: '2024-01-01', dataEndDate: '2024-01-07' };
const FILE = 'test/fixtures/import/generic-zn-1s.csv';

function admin(dataDir: string, ...args: string[]) {
  const p = Bun.spawnSync([process.execPath, 'src/admin/cli.ts', ...args], {
    cwd: ROOT,
    env: { ...process.env, DATA_DIR: dataDir, DATA_START_DATE: SPAN.dataStartDate, DATA_END_DATE: SPAN.dataEndDate },
  });
  return { code: p.exitCode, json: JSON.parse(p.stdout.toString()) };
}

describe('admin data import of a live-profile instrument', () => {
  it('ZN: the 1 s file becomes two 10 s bars on its 1/64 grid, listed, and served by History under live', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rd-zn-'));
    const r = admin(dir, 'data', 'import', '--symbol', 'ZN', '--format', 'csv', FILE);
    expect(r.code).toBe(0);
    expect(r.json).toEqual({ symbol: 'ZN', files: [{
      file: 'generic-zn-1s.csv', status: 'imported', bars: 2, days: 1, sourceResolutionS: 1, first: '2024-01-02T14:30:00Z', last: '2024-01-02T14:30:10Z',
    }] });
    const listed = admin(dir, 'data', 'list').json.instruments.find((i: any) => i.symbol === 'ZN');
    expect(listed.imported).toEqual({ source: 'import', days: 1, bars: 2, first: '2024-01-02T14:30:00Z', last: '2024-01-02T14:30:10Z' });

    const s = await openInstance(defaultConfig({ dataDir: dir, ...SPAN }));
    try {
      const app = buildApp(s);
      const created = await s.users.create({ email: 'zn@example.com', plan: 'pro' });
      if (!created.ok) throw new Error('cannot create user');
      const post = async (prefix: string, path: string, body: unknown, token?: string) => {
        const res = await app.handle(new Request(`http://localhost${prefix}/api/sim/${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
          body: JSON.stringify(body),
        }));
        return (await res.json()) as any;
      };
      const token = (await post('', 'Auth/loginKey', { userName: 'zn@example.com', apiKey: created.value.apiKey })).token as string;
      const window = { contractId: 'CON.F.US.TYA.H24', unit: 1, unitNumber: 10, startTime: '2024-01-02T14:30:00Z', endTime: '2024-01-02T14:30:20Z' };
      // Buckets of 10 s: o of the first row, h/l the extremes, c of the last, v summed (rows 1–3, rows 4–5).
      expect(await post('/live', 'History/retrieveBars', { ...window, live: false, limit: 10 }, token)).toEqual({
        bars: [
          { t: '2024-01-02T14:30:10Z', o: 112.5, h: 112.546875, l: 112.5, c: 112.515625, v: 90 },
          { t: '2024-01-02T14:30:00Z', o: 112.5, h: 112.53125, l: 112.484375, c: 112.5, v: 240 },
        ],
        success: true, errorCode: 0, errorMessage: null,
      });
      expect(await post('/spec', 'History/retrieveBars', window, token)).toMatchObject({ success: false, errorCode: 1, errorMessage: 'Contract not found' });
    } finally {
      s.db.close();
    }
  });
});
