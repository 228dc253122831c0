// The one SQL interface (src/store/sql.ts), the same cases on SQLite and on PostgreSQL: parameters
// and the values they carry, transactions, savepoints and afterCommit, and how concurrent callers meet.

import { expect, it } from 'bun:test';
import type { Dialect, Sql } from '../../src/store/sql.ts';
import { eachBackend } from '../support/sql-backends.ts';

const SCRATCH: Record<Dialect, string> = {
  sqlite: 'CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, n INTEGER, flag INTEGER, data BLOB)',
  postgres: 'CREATE TABLE t (id BIGINT PRIMARY KEY, name TEXT, n BIGINT, flag INTEGER, data BYTEA)',
};

interface Row {
  id: number;
  name: string | null;
  n: number | null;
  flag: number | null;
  data: Uint8Array | null;
}

/** A promise and the function that settles it: a test holds a transaction open until it says so. */
function gate(): { wait: Promise<void>; open: () => void } {
  let open!: () => void;
  const wait = new Promise<void>((resolve) => (open = resolve));
  return { wait, open };
}

/** Whether `p` has settled once everything already queued has run (a few macrotask turns). */
async function settled(p: Promise<unknown>): Promise<boolean> {
  let done = false;
  p.then(
    () => (done = true),
    () => (done = true),
  );
  for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 10));
  return done;
}

async function ids(sql: Sql): Promise<number[]> {
  return (await sql.all<{ id: number }>('SELECT id FROM t ORDER BY id')).map((r) => r.id);
}

eachBackend('Sql', (open, dialect) => {
  async function scratch(): Promise<Sql> {
    const sql = await open();
    await sql.run(SCRATCH[dialect]);
    return sql;
  }

  it('all, get and run: rows, one row or null, and the number of rows written', async () => {
    const sql = await scratch();
    expect(await sql.run('INSERT INTO t (id, name) VALUES ($id, $name)', { id: 1, name: 'one' })).toBe(1);
    expect(await sql.run('INSERT INTO t (id, name) VALUES ($id, $name)', { id: 2, name: 'two' })).toBe(1);
    expect(await sql.run('UPDATE t SET n = $n', { n: 5 })).toBe(2);
    expect(await sql.run('DELETE FROM t WHERE id = $id', { id: 99 })).toBe(0);
    expect(await sql.all<{ id: number; name: string }>('SELECT id, name FROM t ORDER BY id')).toEqual([
      { id: 1, name: 'one' },
      { id: 2, name: 'two' },
    ]);
    expect(await sql.get<{ name: string }>('SELECT name FROM t WHERE id = $id', { id: 2 })).toEqual({ name: 'two' });
    expect(await sql.get('SELECT name FROM t WHERE id = $id', { id: 3 })).toBeNull();
  });

  it('a parameter used twice is one value; null and undefined are both NULL; booleans are 0 and 1', async () => {
    const sql = await scratch();
    await sql.run('INSERT INTO t (id, n, name, flag) VALUES ($id, $id, $name, $flag)', { id: 7, name: null, flag: true });
    await sql.run('INSERT INTO t (id, n, name, flag) VALUES ($id, $n, $name, $flag)', { id: 8, n: 1, name: undefined, flag: false });
    const rows = await sql.all<Row>('SELECT id, n, name, flag FROM t WHERE id = $x OR n = $x ORDER BY id', { x: 7 });
    expect(rows).toEqual([{ id: 7, n: 7, name: null, flag: 1 } as Row]);
    expect(await sql.all<Row>('SELECT id, name, flag FROM t WHERE flag = 0')).toEqual([{ id: 8, name: null, flag: 0 } as Row]);
    expect(await ids(sql)).toEqual([7, 8]);
  });

  it('64-bit integers, COUNT and SUM come back as JS numbers, exact up to 2^53', async () => {
    const sql = await scratch();
    const big = 2 ** 53 - 1;
    const ms = 1_795_642_997_327;
    await sql.run('INSERT INTO t (id, n) VALUES ($id, $n)', { id: 1, n: big });
    await sql.run('INSERT INTO t (id, n) VALUES ($id, $n)', { id: ms, n: -ms });
    const rows = await sql.all<Row>('SELECT id, n FROM t ORDER BY id');
    expect(rows).toEqual([{ id: 1, n: big } as Row, { id: ms, n: -ms } as Row]);
    const agg = await sql.get<{ c: unknown; s: unknown; m: unknown }>('SELECT COUNT(*) AS c, SUM(id) AS s, MAX(n) AS m FROM t');
    expect(agg).toEqual({ c: 2, s: ms + 1, m: big });
    expect(typeof agg!.s).toBe('number');
  });

  it('bytes go in as a Uint8Array and come back the same', async () => {
    const sql = await scratch();
    const bytes = new Uint8Array([0, 1, 2, 127, 128, 255, 0, 0x5c, 0x27]);
    await sql.run('INSERT INTO t (id, data) VALUES ($id, $data)', { id: 1, data: bytes });
    const row = await sql.get<Row>('SELECT data FROM t WHERE id = 1');
    expect(row!.data).toBeInstanceOf(Uint8Array);
    expect(Array.from(row!.data!)).toEqual(Array.from(bytes));
  });

  it('text with U+0000 (PostgreSQL text cannot hold it) is written on both as U+FFFD; other text exactly, lone surrogates as U+FFFD', async () => {
    const sql = await scratch();
    await sql.run('INSERT INTO t (id, name) VALUES ($id, $name)', { id: 1, name: 'a\u0000b\u0000' });
    await sql.run('INSERT INTO t (id, name) VALUES ($id, $name)', { id: 2, name: 'ü✓日本🚀\u0001\t' });
    await sql.run('INSERT INTO t (id, name) VALUES ($id, $name)', { id: 3, name: 'x\ud800y' });
    expect(await sql.all<Row>('SELECT id, name FROM t ORDER BY id')).toEqual([
      { id: 1, name: 'a\ufffdb\ufffd' },
      { id: 2, name: 'ü✓日本🚀\u0001\t' },
      { id: 3, name: 'x\ufffdy' },
    ] as Row[]);
    expect(await sql.get('SELECT id FROM t WHERE name = $n', { n: 'a\u0000b\u0000' })).toEqual({ id: 1 });
  });

  it('a transaction commits what it wrote and resolves to its result', async () => {
    const sql = await scratch();
    const result = await sql.transaction(async () => {
      expect(sql.inTransaction()).toBe(true);
      await sql.run('INSERT INTO t (id) VALUES (1)');
      await sql.run('INSERT INTO t (id) VALUES (2)');
      return 'done';
    });
    expect(result).toBe('done');
    expect(sql.inTransaction()).toBe(false);
    expect(await ids(sql)).toEqual([1, 2]);
  });

  it('a transaction that throws rolls back everything and rejects with the error', async () => {
    const sql = await scratch();
    const boom = new Error('boom');
    const tx = sql.transaction(async () => {
      await sql.run('INSERT INTO t (id) VALUES (1)');
      throw boom;
    });
    expect(tx).rejects.toBe(boom);
    await tx.catch(() => {});
    expect(await ids(sql)).toEqual([]);
    // The connection is usable afterwards, outside and in a new transaction.
    await sql.transaction(() => sql.run('INSERT INTO t (id) VALUES (3)'));
    expect(await ids(sql)).toEqual([3]);
  });

  it('a nested transaction that throws rolls back only its savepoint', async () => {
    const sql = await scratch();
    await sql.transaction(async () => {
      await sql.run('INSERT INTO t (id) VALUES (1)');
      const inner = sql.transaction(async () => {
        await sql.run('INSERT INTO t (id) VALUES (2)');
        throw new Error('inner');
      });
      await expect(inner).rejects.toThrow('inner');
      await sql.transaction(async () => {
        await sql.run('INSERT INTO t (id) VALUES (3)');
        await sql.transaction(() => sql.run('INSERT INTO t (id) VALUES (4)'));
        // Two levels down, a failure undoes only the innermost level.
        const deeper = sql.transaction(async () => {
          await sql.run('INSERT INTO t (id) VALUES (5)');
          throw new Error('deeper');
        });
        await expect(deeper).rejects.toThrow('deeper');
        await sql.run('INSERT INTO t (id) VALUES (6)');
      });
      expect(await ids(sql)).toEqual([1, 3, 4, 6]);
    });
    expect(await ids(sql)).toEqual([1, 3, 4, 6]);
  });

  it('afterCommit runs at once outside a transaction, after the outermost commit inside one, never after a rollback', async () => {
    const sql = await scratch();
    const ran: string[] = [];
    sql.afterCommit(() => ran.push('outside'));
    expect(ran).toEqual(['outside']);
    let seenByAfter: Promise<number[]> | null = null;
    await sql.transaction(async () => {
      await sql.run('INSERT INTO t (id) VALUES (1)');
      sql.afterCommit(() => {
        ran.push('outer');
        seenByAfter = ids(sql);
      });
      await sql.transaction(async () => sql.afterCommit(() => ran.push('nested')));
      expect(ran).toEqual(['outside']);
    });
    expect(ran).toEqual(['outside', 'outer', 'nested']);
    // Work run after the commit is outside the transaction and sees the committed row.
    expect(await seenByAfter!).toEqual([1]);
    await sql
      .transaction(async () => {
        sql.afterCommit(() => ran.push('rolled back'));
        throw new Error('no');
      })
      .catch(() => {});
    expect(ran).toEqual(['outside', 'outer', 'nested']);
  });

  it('afterCommit queued in a savepoint that rolls back is dropped; the rest runs at the commit', async () => {
    const sql = await scratch();
    const ran: string[] = [];
    await sql.transaction(async () => {
      sql.afterCommit(() => ran.push('kept'));
      await sql
        .transaction(async () => {
          await sql.run('INSERT INTO t (id) VALUES (2)');
          sql.afterCommit(() => ran.push('dropped'));
          throw new Error('inner');
        })
        .catch(() => {});
      sql.afterCommit(() => ran.push('after'));
    });
    expect(ran).toEqual(['kept', 'after']);
    expect(await ids(sql)).toEqual([]);
  });

  if (dialect === 'sqlite') {
    it('a statement from outside waits while a transaction awaits, and sees its rows only once committed', async () => {
      const sql = await scratch();
      const hold = gate();
      const inside = gate();
      const order: string[] = [];
      const tx = sql.transaction(async () => {
        await sql.run('INSERT INTO t (id) VALUES (1)');
        inside.open();
        await hold.wait;
        order.push('commit');
      });
      await inside.wait;
      const read = ids(sql).then((r) => {
        order.push('read');
        return r;
      });
      const write = sql.run('INSERT INTO t (id) VALUES (2)');
      expect(await settled(read)).toBe(false);
      expect(await settled(write)).toBe(false);
      hold.open();
      await tx;
      expect(await read).toEqual([1]);
      expect(await write).toBe(1);
      expect(order).toEqual(['commit', 'read']);
      expect(await ids(sql)).toEqual([1, 2]);
    });

    it('two transactions at once take turns: the second begins after the first commits', async () => {
      const sql = await scratch();
      const hold = gate();
      const inside = gate();
      const first = sql.transaction(async () => {
        await sql.run('INSERT INTO t (id, n) VALUES (1, 0)');
        inside.open();
        await hold.wait;
      });
      await inside.wait;
      const second = sql.transaction(async () => {
        const row = await sql.get<Row>('SELECT n FROM t WHERE id = 1');
        await sql.run('UPDATE t SET n = $n WHERE id = 1', { n: (row?.n ?? -10) + 1 });
      });
      expect(await settled(second)).toBe(false);
      hold.open();
      await Promise.all([first, second]);
      expect(await sql.get<Row>('SELECT n FROM t WHERE id = 1')).toEqual({ n: 1 } as Row);
    });
  }

  if (dialect === 'postgres') {
    it('two concurrent transactions updating one row both apply: the second waits on the row lock', async () => {
      const sql = await scratch();
      await sql.run('INSERT INTO t (id, n) VALUES (1, 0)');
      const hold = gate();
      const inside = gate();
      const first = sql.transaction(async () => {
        await sql.run('UPDATE t SET n = n + 1 WHERE id = 1');
        inside.open();
        await hold.wait;
      });
      await inside.wait;
      const second = sql.transaction(async () => {
        await sql.run('UPDATE t SET n = n + 10 WHERE id = 1');
        return sql.get<Row>('SELECT n FROM t WHERE id = 1');
      });
      expect(await settled(second)).toBe(false);
      // Outside both, the first's uncommitted write is not seen.
      expect(await sql.get<Row>('SELECT n FROM t WHERE id = 1')).toEqual({ n: 0 } as Row);
      hold.open();
      await first;
      expect(await second).toEqual({ n: 11 } as Row);
      expect(await sql.get<Row>('SELECT n FROM t WHERE id = 1')).toEqual({ n: 11 } as Row);
    });
  }
});
