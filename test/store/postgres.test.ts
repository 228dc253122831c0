// Opening the PostgreSQL store: it migrates a fresh database to the code's version, leaves a current
// one alone, migrates once when several nodes start together, and refuses a newer schema. And the
// tests' own server goes away with the process that started it.

import { expect, it } from 'bun:test';
import { SQL } from 'bun';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { PG_MIGRATIONS } from '../../src/store/migrations.ts';
import { openPostgres, pgSchemaVersion, SchemaTooNewError } from '../../src/store/postgres.ts';
import { describePg, freshDatabase } from '../support/postgres.ts';

describePg('openPostgres', () => {
  it('migrates a fresh database to the last step, and a second open changes nothing', async () => {
    const url = await freshDatabase();
    const raw = new SQL(url, { max: 1 });
    expect(await pgSchemaVersion(raw)).toBe(0);
    const first = await openPostgres(url);
    expect(await pgSchemaVersion(first)).toBe(PG_MIGRATIONS.length);
    await first.run(`INSERT INTO meta (key, value) VALUES ('k', 'v')`);
    await first.close();
    const again = await openPostgres(url);
    expect(await pgSchemaVersion(again)).toBe(PG_MIGRATIONS.length);
    expect(await again.all('SELECT key, value FROM meta')).toEqual([{ key: 'k', value: 'v' }]);
    expect(await again.all('SELECT version FROM schema_version')).toEqual([{ version: PG_MIGRATIONS.length }]);
    await again.close();
    await raw.close();
  });

  it('several nodes opening one fresh database at once all start, and it is migrated once', async () => {
    const url = await freshDatabase();
    const nodes = await Promise.all([1, 2, 3, 4].map(() => openPostgres(url, { max: 2 })));
    for (const node of nodes) expect(await pgSchemaVersion(node)).toBe(PG_MIGRATIONS.length);
    // A second run of a step would have failed on CREATE TABLE; one version row was written.
    expect(await nodes[0].all('SELECT version FROM schema_version')).toEqual([{ version: PG_MIGRATIONS.length }]);
    for (const node of nodes) await node.close();
  });

  it('refuses a database migrated by a newer version, and leaves it as it was', async () => {
    const url = await freshDatabase();
    await (await openPostgres(url)).close();
    const raw = new SQL(url, { max: 1 });
    const newer = PG_MIGRATIONS.length + 1;
    await raw.unsafe(`UPDATE schema_version SET version = ${newer}`);
    const opening = openPostgres(url);
    expect(opening).rejects.toBeInstanceOf(SchemaTooNewError);
    expect(opening).rejects.toThrow(`schema version ${newer}, newer than this ReplayDesk knows (${PG_MIGRATIONS.length})`);
    await opening.catch(() => {});
    expect(await pgSchemaVersion(raw)).toBe(newer);
    await raw.close();
  });

  it('a failing step rolls the whole migration back: no table, no version', async () => {
    const url = await freshDatabase();
    const raw = new SQL(url, { max: 1 });
    // A table in the way of step 2 makes it fail after step 1 ran.
    await raw.unsafe('CREATE TABLE bar_chunks (x INTEGER)');
    expect(openPostgres(url)).rejects.toThrow('already exists');
    await openPostgres(url).catch(() => {});
    expect(await pgSchemaVersion(raw)).toBe(0);
    expect(await raw.unsafe(`SELECT to_regclass('users') IS NULL AS gone`)).toEqual([{ gone: true }]);
    await raw.close();
  });
});

/** A process of its own that starts the test server, makes a database and exits at once. */
const CHILD = `
  import { freshDatabase } from ${JSON.stringify(join(import.meta.dir, '..', 'support', 'postgres.ts'))};
  import { SQL } from 'bun';
  const url = await freshDatabase();
  const sql = new SQL(url, { max: 1 });
  const [row] = await sql.unsafe('SHOW data_directory');
  console.log(JSON.stringify({ url, dir: row.data_directory }));
  await sql.close();
  process.exit(0);
`;

const GONE_WAIT_MS = 60_000;

describePg('the test server', () => {
  it.skipIf(Boolean(process.env.TEST_DATABASE_URL))('is stopped and its folder removed once the process that started it exits', async () => {
    const env = { ...process.env };
    delete env.TEST_DATABASE_URL;
    const child = Bun.spawn([process.execPath, '-e', CHILD], { env, stdout: 'pipe', stderr: 'pipe' });
    const [out, err, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
    expect({ code, err }).toEqual({ code: 0, err: '' });
    const { url, dir } = JSON.parse(out) as { url: string; dir: string };
    expect(dir).toEndWith('data');
    const deadline = Date.now() + GONE_WAIT_MS;
    while (existsSync(dir) && Date.now() < deadline) await Bun.sleep(100);
    expect(existsSync(join(dir, '..'))).toBe(false);
    const probe = new SQL(url, { max: 1, connectionTimeout: 5 });
    expect(probe.unsafe('SELECT 1')).rejects.toThrow();
    await probe.unsafe('SELECT 1').catch(() => {});
    await probe.close();
  });
});
