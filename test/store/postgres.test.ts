// Opening the PostgreSQL store: it migrates a fresh database to the code's version, leaves a current
// one alone, migrates once when several nodes start together, and refuses a newer schema.

import { expect, it } from 'bun:test';
import { SQL } from 'bun';
import { PG_MIGRATIONS } from '../../src/store/migrations-pg.ts';
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
