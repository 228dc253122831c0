// The real server process (`bun src/main.ts`) answers History's longest spans from its encoding
// worker (issue 32, http/shared/bars-worker.ts), the same bars in JSON and msgpack, and its SIGTERM
// shutdown ends the worker: it logs what the workers did and that none runs, then exits 0.
import { describe, expect, it } from 'bun:test';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { unpack } from 'msgpackr';
import { spawnServer } from '../support/server-process.ts';

describe('the server process', () => {
  it('answers 20,000 bars from its History worker, JSON and msgpack alike, and SIGTERM ends the worker', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rd-hw-'));
    const s = await spawnServer({ timeoutMs: 60_000, env: { DATA_DIR: dir, DATA_START_DATE: '2025-02-01', DATA_END_DATE: '2025-03-07' } });
    try {
      const creds = JSON.parse(readFileSync(join(dir, 'demo-credentials.json'), 'utf8'));
      const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
        fetch(`${s.base}/api/sim/${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
      const token = ((await (await post('Auth/loginKey', creds)).json()) as { token: string }).token;
      const body = { contractId: 'CON.F.US.ENQ.H25', live: false, unit: 2, unitNumber: 1, startTime: '2025-02-10T00:00:00Z', endTime: '2025-03-06T00:00:00Z', limit: 20_000 };
      const auth = { authorization: `Bearer ${token}` };
      const json = (await (await post('History/retrieveBars', body, auth)).json()) as { bars: unknown[]; success: boolean };
      const packed = unpack(new Uint8Array(await (await post('History/retrieveBars', body, { ...auth, accept: 'application/x-msgpack' })).arrayBuffer()));
      expect(json.success).toBe(true);
      expect(json.bars).toHaveLength(20_000);
      expect(packed).toEqual(json);
      s.proc.kill('SIGTERM');
      expect(await s.proc.exited).toBe(0);
      // Both answers were the worker's, or the sliced path's when it was slower than its bound on a busy machine.
      const [, encoded, fallbacks] = /history encoding workers stopped.*encoded=(\d+) .*fallbacks=(\d+) .*running=0/.exec(s.log()) ?? [];
      expect(Number(encoded) + Number(fallbacks)).toBe(2);
      expect(Number(encoded)).toBeGreaterThan(0);
      expect(s.log()).toContain('INFO stopped');
    } finally {
      s.proc.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
