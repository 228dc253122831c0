// One throwaway PostgreSQL per test process. With TEST_DATABASE_URL, an existing server on which
// the tests may create databases; otherwise a cluster of our own (initdb into a temp folder, trust
// auth, a free loopback port, durability off for speed), started once at the first need and stopped
// with its folder once the process is gone. Without PostgreSQL the suites skip with one line naming
// the install command, and fail instead when REQUIRE_POSTGRES=1 (set by .ci/run).

import { afterAll, describe, it } from 'bun:test';
import { SQL } from 'bun';
import { spawn, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const POSTGRES_INSTALL_HINT = 'apt-get install postgresql (or set TEST_DATABASE_URL to a server the tests may create databases on)';

const SYSTEM_PG_ROOT = '/usr/lib/postgresql';
/** The server's own user: postgres refuses to run as root. */
const SERVER_USER = 'postgres';
const START_WAIT_S = 60;
const START_ATTEMPTS = 3;

interface Binaries {
  initdb: string;
  pgCtl: string;
}

function onPath(name: string): string | null {
  for (const dir of (process.env.PATH ?? '').split(':')) {
    if (dir && existsSync(join(dir, name))) return join(dir, name);
  }
  return null;
}

/** initdb and pg_ctl from PATH, else from the newest Debian install. */
function findBinaries(): Binaries | null {
  const initdb = onPath('initdb');
  const pgCtl = onPath('pg_ctl');
  if (initdb && pgCtl) return { initdb, pgCtl };
  if (!existsSync(SYSTEM_PG_ROOT)) return null;
  const versions = readdirSync(SYSTEM_PG_ROOT).sort((a, b) => Number(b) - Number(a));
  for (const v of versions) {
    const bin = join(SYSTEM_PG_ROOT, v, 'bin');
    if (existsSync(join(bin, 'initdb')) && existsSync(join(bin, 'pg_ctl'))) {
      return { initdb: join(bin, 'initdb'), pgCtl: join(bin, 'pg_ctl') };
    }
  }
  return null;
}

const isRoot = process.getuid?.() === 0;

/** Whether a PostgreSQL can be had: a given server, or binaries to start one (as root, with a postgres user to run it). */
export function postgresAvailable(): boolean {
  if (process.env.TEST_DATABASE_URL || process.env[PARENT_CLUSTER_ENV]) return true;
  if (findBinaries() === null) return false;
  return !isRoot || spawnSync('id', ['-u', SERVER_USER]).status === 0;
}

/** Runs a server binary, as the postgres user when we are root; throws with its output on failure. */
function runServerTool(cmd: string, args: string[]): void {
  const [file, argv] = isRoot ? ['runuser', ['-u', SERVER_USER, '--', cmd, ...args]] : [cmd, args];
  const r = spawnSync(file, argv, { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status}): ${r.stderr || r.stdout || r.error}`);
}

function serverUid(): { uid: number; gid: number } {
  const uid = spawnSync('id', ['-u', SERVER_USER], { encoding: 'utf8' });
  const gid = spawnSync('id', ['-g', SERVER_USER], { encoding: 'utf8' });
  if (uid.status !== 0 || gid.status !== 0) throw new Error(`running as root needs a "${SERVER_USER}" user to run the test PostgreSQL`);
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/**
 * Stops the cluster and removes its folder once this process is gone, however it ends: bun test
 * fires no `exit` event, and a killed process runs no handler. A detached shell polls our pid.
 */
function stopWhenGone(dir: string, pgCtl: string): void {
  const ctl = isRoot ? `runuser -u ${SERVER_USER} -- '${pgCtl}'` : `'${pgCtl}'`;
  const script =
    `while kill -0 ${process.pid} 2>/dev/null; do sleep 1; done; ` +
    `${ctl} stop -D '${join(dir, 'data')}' -m immediate -w >/dev/null 2>&1; rm -rf '${dir}'`;
  spawn('sh', ['-c', script], { detached: true, stdio: 'ignore' }).unref();
}

/** Settings for test speed only: a crash of the test server may lose or corrupt its data, which is thrown away anyway. */
const TEST_SERVER_SETTINGS = ['fsync=off', 'synchronous_commit=off', 'full_page_writes=off', 'max_connections=400'];

/** initdb into a temp folder and start on a free loopback port; resolves to the admin URL. */
async function startOwnCluster(bins: Binaries): Promise<string> {
  return (await startServerIn(bins)).url;
}

/** A throwaway server of a test's own, which it may stop, start again (same port) and pause. */
export interface OwnPostgres {
  /** The admin URL (database `postgres`). */
  url: string;
  /** `pg_ctl stop`: `fast` (clients told, as a restart does) or `immediate` (a crash). */
  stop(mode?: 'fast' | 'immediate'): void;
  /** Starts it again on the same port and folder. */
  start(): void;
  /** The postmaster's process id (SIGSTOP/SIGCONT it to freeze the whole server). */
  pid(): number;
}

async function startServerIn(bins: Binaries): Promise<OwnPostgres> {
  const dir = mkdtempSync(join(tmpdir(), 'replaydesk-pg-'));
  stopWhenGone(dir, bins.pgCtl);
  if (isRoot) {
    const { uid, gid } = serverUid();
    chownSync(dir, uid, gid);
  }
  const data = join(dir, 'data');
  runServerTool(bins.initdb, ['-D', data, '-U', SERVER_USER, '--auth=trust', '-E', 'UTF8', '--locale=C', '--no-sync']);
  // The free port may be taken before the server binds it (the machine is shared): try another.
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const opts = [`-p ${port}`, `-k ${dir}`, `-c listen_addresses=127.0.0.1`, ...TEST_SERVER_SETTINGS.map((s) => `-c ${s}`)];
    const log = join(dir, `server-${port}.log`);
    const start = () => runServerTool(bins.pgCtl, ['start', '-D', data, '-w', '-t', String(START_WAIT_S), '-l', log, '-o', opts.join(' ')]);
    try {
      start();
    } catch (e) {
      if (attempt >= START_ATTEMPTS) throw new Error(`${(e as Error).message}\nserver log:\n${readFileSync(log, 'utf8').slice(-2000)}`);
      continue;
    }
    return {
      url: `postgres://${SERVER_USER}@127.0.0.1:${port}/postgres`,
      stop: (mode = 'fast') => runServerTool(bins.pgCtl, ['stop', '-D', data, '-m', mode, '-w']),
      start,
      pid: () => Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]),
    };
  }
}

/**
 * A PostgreSQL server for one test alone (initdb of its own, seconds): for tests that stop, restart
 * or freeze the server, which would break every other test sharing the process's server.
 */
export async function ownPostgres(): Promise<OwnPostgres> {
  const bins = findBinaries();
  if (!bins) throw new Error(`no PostgreSQL found; install it with: ${POSTGRES_INSTALL_HINT}`);
  return startServerIn(bins);
}

/**
 * Set by a test process for a child `bun test` it spawns (test/http/postgres-store.test.ts): the
 * parent's own throwaway cluster, which the child uses instead of an initdb of its own (seconds of a
 * busy machine). It is as disposable as the child's own would be, so templates are allowed on it.
 */
const PARENT_CLUSTER_ENV = 'REPLAYDESK_TEST_PG_CLUSTER_URL';

let adminUrl: Promise<string> | null = null;

/** The URL of a database we may run CREATE DATABASE from; the server is started at the first call. */
function server(): Promise<string> {
  if (adminUrl) return adminUrl;
  const given = process.env.TEST_DATABASE_URL ?? process.env[PARENT_CLUSTER_ENV];
  if (given) return (adminUrl = Promise.resolve(given));
  const bins = findBinaries();
  if (!bins) return Promise.reject(new Error(`no PostgreSQL found; install it with: ${POSTGRES_INSTALL_HINT}`));
  return (adminUrl = startOwnCluster(bins));
}

/**
 * The environment for a child `bun test` to share this process's PostgreSQL: TEST_DATABASE_URL
 * passes on by itself; our own cluster (started now if need be) is named in PARENT_CLUSTER_ENV.
 */
export async function clusterEnvForChild(): Promise<Record<string, string>> {
  if (process.env.TEST_DATABASE_URL) return {};
  return { [PARENT_CLUSTER_ENV]: await server() };
}

/** Whether the server is a throwaway one of the tests' own (ours or a parent test process's). */
const ownServer = (): boolean => !process.env.TEST_DATABASE_URL;

let admin: SQL | null = null;
let made = 0;
/** Databases made by the running suite, dropped after it (with FORCE: a pool left open does not stop it). */
let createdHere: string[] = [];

async function adminClient(): Promise<{ sql: SQL; url: string }> {
  const url = await server();
  admin ??= new SQL(url, { max: 1 });
  return { sql: admin, url };
}

function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

/**
 * Creates a database with a name of its own and answers its URL: empty, or a copy of `template`
 * (a name from templateDatabase).
 */
export async function freshDatabase(template?: string): Promise<string> {
  const { sql, url } = await adminClient();
  const name = `replaydesk_test_${process.pid}_${++made}_${Date.now().toString(36)}`;
  const strategy = template && (await fileCopyWorks()) ? ' STRATEGY = FILE_COPY' : '';
  await sql.unsafe(`CREATE DATABASE ${name}${template ? ` TEMPLATE ${template}${strategy}` : ''}`);
  createdHere.push(name);
  return withDatabase(url, name);
}

let fileCopy: Promise<boolean> | null = null;

/**
 * Whether to copy templates file by file (PostgreSQL 15+, on our own server only): a small template
 * copies in ~30 ms instead of ~130 ms through the WAL (the default strategy), at the price of a
 * checkpoint, which costs nothing with fsync off and which a shared server should not be made to pay.
 */
function fileCopyWorks(): Promise<boolean> {
  fileCopy ??= ownServer()
    ? adminClient().then(async ({ sql }) => Number((await sql.unsafe('SHOW server_version_num'))[0].server_version_num) >= 150_000)
    : Promise.resolve(false);
  return fileCopy;
}

const templates = new Map<string, Promise<string | null>>();

/**
 * A database prepared once per process by `prepare` (which must close its connections), to copy
 * with freshDatabase: copying is faster than migrating each time. Null on a TEST_DATABASE_URL
 * server, where a template would outlive the process.
 */
export function templateDatabase(key: string, prepare: (url: string) => Promise<void>): Promise<string | null> {
  if (process.env.TEST_DATABASE_URL) return Promise.resolve(null);
  let pending = templates.get(key);
  if (!pending) {
    pending = (async () => {
      const { sql, url } = await adminClient();
      // The process id in the name: a child test process may share its parent's cluster.
      const name = `replaydesk_template_${key}_${process.pid}`;
      await sql.unsafe(`CREATE DATABASE ${name}`);
      await prepare(withDatabase(url, name));
      return name;
    })();
    templates.set(key, pending);
  }
  return pending;
}

async function dropCreated(): Promise<void> {
  const names = createdHere;
  createdHere = [];
  if (!admin) return;
  for (const name of names) await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
}

let skipNoted = false;

/**
 * A `describe` for suites that need PostgreSQL: skipped (one line for the whole process) when none
 * can be had, failing when REQUIRE_POSTGRES=1.
 */
export function describePg(name: string, fn: () => void): void {
  if (postgresAvailable()) {
    describe(name, () => {
      afterAll(dropCreated);
      fn();
    });
    return;
  }
  if (process.env.REQUIRE_POSTGRES === '1') {
    describe(name, () => {
      it('has a PostgreSQL to run against', () => {
        throw new Error(`REQUIRE_POSTGRES=1 but no PostgreSQL found; install it with: ${POSTGRES_INSTALL_HINT}`);
      });
    });
    return;
  }
  if (!skipNoted) console.warn(`[PostgreSQL tests skipped] no PostgreSQL found; install it with: ${POSTGRES_INSTALL_HINT}`);
  skipNoted = true;
  describe.skip(name, fn);
}
