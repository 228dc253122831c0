// A store that cannot write (disk full, injected with PRAGMA max_page_count) or cannot answer:
// requests answer HTTP 503 with Retry-After and the envelope, not 500; /health says so; the log
// gets one line per interval with a count, not a stack trace per request; and the service recovers
// once writes succeed again, without a restart.
import { describe, expect, it } from 'bun:test';
import { buildApp, type Logger } from '../../src/app.ts';
import { limits } from '../../src/config.ts';
import { makeApp, readReply, type TestApp } from '../support/app.ts';

const UNAVAILABLE = { success: false, errorCode: 503, errorMessage: 'Storage unavailable, retry later' };

function capture(): { log: Logger; errors: { message: string; fields: Record<string, unknown> }[] } {
  const errors: { message: string; fields: Record<string, unknown> }[] = [];
  return { errors, log: { info() {}, error: (message, fields) => void errors.push({ message, fields: fields ?? {} }) } };
}

async function health(app: ReturnType<typeof buildApp>) {
  return readReply(await app.handle(new Request('http://localhost/health')));
}

/** Caps the database at the pages it has now, so the next write that needs a page fails with SQLITE_FULL. */
function fillDisk(t: TestApp): void {
  const { page_count } = t.s.db.query('PRAGMA page_count').get() as { page_count: number };
  t.s.db.exec(`PRAGMA max_page_count = ${page_count}`);
}

function freeDisk(t: TestApp): void {
  t.s.db.exec('PRAGMA max_page_count = 1073741823');
}

describe('a full disk', () => {
  it('writes answer 503 with Retry-After; /health is degraded; one log line per interval; recovery without restart', async () => {
    const t = await makeApp();
    const { log, errors } = capture();
    const app = buildApp(t.s, log);
    const login = async () =>
      readReply(await app.handle(new Request('http://localhost/api/sim/Auth/loginKey', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ userName: t.email, apiKey: t.apiKey }),
      })));
    expect((await login()).body.success).toBe(true);
    expect((await health(app)).status).toBe(200);

    fillDisk(t);
    // Each login stores a token row: within a page's worth of them one needs a new page.
    let r = await login();
    for (let i = 0; i < 60 && r.status === 200; i++) r = await login();
    expect(r.status).toBe(503);
    expect(r.headers.get('retry-after')).toBe(String(limits.storeRetryAfterS));
    expect(r.body).toEqual(UNAVAILABLE);
    for (let i = 0; i < 20; i++) expect((await login()).status).toBe(503);
    // 21 failures, one line.
    expect(errors).toHaveLength(1);
    expect(errors[0].message).toBe('store: writes are failing (disk full or I/O error); answering 503');
    expect(errors[0].fields).toMatchObject({ failures: 1, error: 'database or disk is full' });

    const h = await health(app);
    expect(h.status).toBe(503);
    expect(h.headers.get('retry-after')).toBe(String(limits.storeRetryAfterS));
    expect(h.body).toMatchObject({ status: 'degraded', database: 'degraded' });

    // A minute later the next failure logs again, with the count since the last line.
    t.clock.advance(limits.storeFailureLogIntervalMs);
    expect((await login()).status).toBe(503);
    expect(errors).toHaveLength(2);
    expect(errors[1].fields).toMatchObject({ failures: 21, sinceS: limits.storeFailureLogIntervalMs / 1000 });

    // Space comes back: writes succeed at once; /health reads ok once no failure was seen for a while.
    freeDisk(t);
    expect((await login()).body.success).toBe(true);
    t.clock.advance(limits.storeRecoverAfterMs);
    const back = await health(app);
    expect(back.status).toBe(200);
    expect(back.body).toMatchObject({ status: 'ok', database: 'ok' });
    expect(errors).toHaveLength(2);
  });

  it('reads keep working while writes fail', async () => {
    const t = await makeApp();
    const token = await t.login();
    fillDisk(t);
    const r = await t.post('Contract/search', { searchText: 'NQ' }, token);
    expect(r.status).toBe(200);
    expect(r.body.success).toBe(true);
  });
});

describe('/health and a store that answers errors', () => {
  it('a database that cannot be read → 503, database error', async () => {
    const t = await makeApp();
    t.s.db.close();
    const h = await health(t.app);
    expect(h.status).toBe(503);
    expect(h.body).toMatchObject({ status: 'degraded', database: 'error', schemaVersion: -1 });
  });

  it('a request that meets a damaged file → 503, and /health reports database error', async () => {
    const t = await makeApp();
    const { log, errors } = capture();
    const app = buildApp(t.s, log);
    const token = await t.login();
    // The store answers as a damaged file does (SQLITE_CORRUPT), wherever a request reads it.
    const corrupt = Object.assign(new Error('database disk image is malformed'), { code: 'SQLITE_CORRUPT' });
    t.s.accounts.search = () => {
      throw corrupt;
    };
    const r = await readReply(await app.handle(new Request('http://localhost/api/sim/Account/search', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: '{}',
    })));
    expect(r.status).toBe(503);
    expect(r.body).toEqual(UNAVAILABLE);
    expect(errors.map((e) => e.message)).toEqual(['store: the database file is damaged; answering 503']);
    const h = await health(app);
    expect(h.status).toBe(503);
    expect(h.body).toMatchObject({ status: 'degraded', database: 'error' });
  });
});

describe('a shared store shutting down, or a wait on it running out', () => {
  it('answers 503 with Retry-After and the envelope, never 500: a terminated connection (57P01) is the store unavailable, a lock time-out (55P03) is busy', async () => {
    const t = await makeApp();
    const { log, errors } = capture();
    const app = buildApp(t.s, log);
    const token = await t.login();
    // The errors as Bun's PostgreSQL client raises them (their SQLSTATE in errno).
    const shutdown = Object.assign(new Error('terminating connection due to administrator command'), { code: 'ERR_POSTGRES_SERVER_ERROR', errno: '57P01' });
    const lockWait = Object.assign(new Error('canceling statement due to lock timeout'), { code: 'ERR_POSTGRES_SERVER_ERROR', errno: '55P03' });
    const search = () =>
      app.handle(new Request('http://localhost/api/sim/Account/search', {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: '{}',
      })).then(readReply);
    t.s.accounts.search = () => {
      throw shutdown;
    };
    const down = await search();
    expect(down.status).toBe(503);
    expect(down.headers.get('retry-after')).toBe(String(limits.storeRetryAfterS));
    expect(down.body).toEqual(UNAVAILABLE);
    t.s.accounts.search = () => {
      throw lockWait;
    };
    const busy = await search();
    expect(busy.status).toBe(503);
    expect(busy.headers.get('retry-after')).toBe('1');
    expect(busy.body).toEqual({ success: false, errorCode: 503, errorMessage: 'Service busy, retry later' });
    // The shutdown is logged once as the store failing; the lock wait is no failure of the store.
    expect(errors.map((e) => e.message)).toEqual(['store: writes are failing (disk full or I/O error); answering 503']);
  });
});

describe('/health follows the store both ways', () => {
  it('a full disk: degraded at the first failed write, ok at the first look once space is back (a second later, not 30), degraded while still full', async () => {
    const t = await makeApp();
    const { log } = capture();
    const app = buildApp(t.s, log);
    const login = async () =>
      readReply(await app.handle(new Request('http://localhost/api/sim/Auth/loginKey', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ userName: t.email, apiKey: t.apiKey }),
      })));
    fillDisk(t);
    let r = await login();
    for (let i = 0; i < 60 && r.status === 200; i++) r = await login();
    expect(r.status).toBe(503);
    // Still full: every look finds the file unable to grow.
    for (let i = 0; i < 3; i++) {
      t.clock.advance(limits.storeProbeIntervalMs);
      expect((await health(app)).body).toMatchObject({ status: 'degraded', database: 'degraded' });
    }
    freeDisk(t);
    // The next look finds the file can grow again, and the failures before it are over.
    t.clock.advance(limits.storeProbeIntervalMs);
    const back = await health(app);
    expect(back.status).toBe(200);
    expect(back.body).toMatchObject({ status: 'ok', database: 'ok' });
    expect((await login()).body.success).toBe(true);
  });
});
