// Market data across nodes on one PostgreSQL: an import made by the admin CLI's services reaches
// every node's History (bars and rollups), a node started later serves it from its first request,
// an import in progress answers 503 on every node, and generated days are identical everywhere.
// Nodes here are in-process service sets with their own DATA_DIR files (what a node process holds).

import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../../src/app.ts';
import { defaultConfig } from '../../src/config.ts';
import { systemClock } from '../../src/lib/clock.ts';
import { randomSecret } from '../../src/lib/secrets.ts';
import { createServices, type Services } from '../../src/service/services.ts';
import { openDb } from '../../src/store/db.ts';
import { openPostgres } from '../../src/store/postgres.ts';
import { SharedImportLocks } from '../../src/store/shared-bars.ts';
import { readReply } from '../support/app.ts';
import { describePg, freshDatabase } from '../support/postgres.ts';

const CONTRACT = 'CON.F.US.ENQ.H25';
const DAY = '2025-03-04';
const secret = new TextEncoder().encode(randomSecret());

interface Node {
  s: Services;
  app: ReturnType<typeof buildApp>;
}

describePg('market data across nodes', () => describe('three nodes and the admin CLI', () => {
  let url: string;
  const nodes: Node[] = [];
  let token: string;

  async function node(id: string, serve = true): Promise<Node> {
    const dir = mkdtempSync(join(tmpdir(), `rd-md-${id}-`));
    const sql = await openPostgres(url, { max: 3 });
    const config = defaultConfig({ dataDir: dir, nodeId: id, rollupWorkers: 0 });
    const s = await createServices({ config, clock: systemClock, db: openDb(join(dir, 'replaydesk.db')), sql, jwtSecret: secret, restoreSessions: serve });
    const n = { s, app: buildApp(s) };
    nodes.push(n);
    return n;
  }

  async function bars(n: Node, unitNumber: number, unit = 2) {
    const body = { contractId: CONTRACT, live: false, unit, unitNumber, startTime: `${DAY}T14:00:00Z`, endTime: `${DAY}T16:30:00Z`, includePartialBar: true };
    const res = await n.app.handle(
      new Request('http://localhost/api/sim/History/retrieveBars', {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify(body),
      }),
    );
    return readReply(res);
  }

  /** NQ's stored 1 s bars 14:30–15:29, each of minute m at 21000.00 + m (high one point above, low one below), volume 1. */
  function csv(): string {
    const lines = ['timestamp,open,high,low,close,volume'];
    for (let k = 0; k < 3600; k++) {
      const t = new Date(Date.parse(`${DAY}T14:30:00Z`) + k * 1000).toISOString().replace('.000Z', 'Z');
      const p = 21000 + Math.floor(k / 60);
      lines.push(`${t},${p},${p + 1},${p - 1},${p},1`);
    }
    const dir = mkdtempSync(join(tmpdir(), 'rd-md-file-'));
    writeFileSync(join(dir, 'nq.csv'), `${lines.join('\n')}\n`);
    return join(dir, 'nq.csv');
  }

  async function until<T>(what: string, get: () => Promise<T>, ok: (v: T) => boolean): Promise<T> {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const v = await get();
      if (ok(v)) return v;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await Bun.sleep(50);
    }
  }

  beforeAll(async () => {
    url = await freshDatabase();
    const a = await node('a');
    await node('b');
    const created = await a.s.users.create({ email: 'md@example.com', plan: 'pro' });
    if (!created.ok) throw new Error('user');
    const login = await a.app.handle(
      new Request('http://localhost/api/sim/Auth/loginKey', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ userName: 'md@example.com', apiKey: created.value.apiKey }),
      }),
    );
    token = ((await login.json()) as { token: string }).token;
  }, 120_000);

  afterAll(async () => {
    for (const n of nodes) await n.s.shutdown();
  });

  it('generated days are the same bars on every node, minutes and hours', async () => {
    for (const unitNumber of [1, 60]) {
      const [a, b] = await Promise.all([bars(nodes[0], unitNumber), bars(nodes[1], unitNumber)]);
      expect(a.body.success).toBe(true);
      expect(a.body.bars.length).toBeGreaterThan(0);
      expect(b.body.bars).toEqual(a.body.bars);
    }
  });

  it('an import by the admin CLI reaches every node, a node started later too, and rollups follow', async () => {
    const admin = await node('admin', false);
    const r = await admin.s.marketData.importFile('NQ', 'csv', 'UTC', csv());
    expect(r.ok ? r.value : r.error).toMatchObject({ status: 'imported', bars: 3600, days: 1 });
    const imported = (v: Awaited<ReturnType<typeof bars>>) => v.body.bars?.[0]?.o === 21000;
    for (const n of nodes.slice(0, 2)) {
      const minutes = await until('the import on a node', () => bars(n, 1), imported);
      expect(minutes.body.bars.length).toBe(60);
      expect(minutes.body.bars[59]).toEqual({ t: `${DAY}T15:29:00Z`, o: 21059, h: 21060, l: 21058, c: 21059, v: 60 });
      // The hour built before the import was generated; now it is the imported minutes' hour.
      const hours = await bars(n, 60);
      expect(hours.body.bars).toEqual([
        { t: `${DAY}T14:00:00Z`, o: 21000, h: 21030, l: 20999, c: 21029, v: 1800 },
        { t: `${DAY}T15:00:00Z`, o: 21030, h: 21060, l: 21029, c: 21059, v: 1800 },
      ]);
    }
    const late = await node('late');
    expect((await bars(late, 1)).body.bars).toEqual((await bars(nodes[0], 1)).body.bars);
    expect((await late.s.marketData.list()).find((i) => i.symbol === 'NQ')?.imported).toMatchObject({ days: 1, bars: 3600 });
  });

  it('an import in progress answers 503 on every node, and its instrument is free once it ends', async () => {
    const importer = await openPostgres(url, { max: 2 });
    const locks = new SharedImportLocks(importer);
    let release!: () => void;
    let held!: () => void;
    const heldNow = new Promise<void>((r) => (held = r));
    const holding = locks.hold('NQ', () => {
      held();
      return new Promise<void>((r) => (release = r));
    });
    await heldNow;
    try {
      expect(await locks.hold('NQ', async () => 'second')).toBeNull();
      for (const n of nodes.slice(0, 2)) {
        const r = await bars(n, 5);
        expect(r.status).toBe(503);
        expect(r.body).toMatchObject({ success: false });
      }
    } finally {
      release();
      await holding;
    }
    for (const n of nodes.slice(0, 2)) expect((await bars(n, 5)).body.success).toBe(true);
    await importer.close();
  });
}));
