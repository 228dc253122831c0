// Nodes that serve HTTPS (TLS_CERT_FILE, TLS_KEY_FILE) and trust each other through the cluster's own
// CA (NODE_CA_FILE): a request reaching a node that does not hold the session is forwarded over
// HTTPS, with the token in it encrypted; a node that does not trust the CA refuses the hop (503, the
// client retries elsewhere) rather than send the token to a server it cannot verify. The CA and the
// nodes' certificate are made here with openssl.

import { afterAll, beforeAll, expect, it } from 'bun:test';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Cluster, startCluster } from '../support/cluster.ts';
import { describePg } from '../support/postgres.ts';
import { type ServerProcess, spawnServer } from '../support/server-process.ts';

let c: Cluster;
let pki: { ca: string; cert: string; key: string; caPem: string };
let stranger: ServerProcess | null = null;

function openssl(dir: string, ...args: string[]): void {
  const r = Bun.spawnSync(['openssl', ...args], { cwd: dir });
  if (r.exitCode !== 0) throw new Error(`openssl ${args.join(' ')}: ${r.stderr.toString()}`);
}

/** A CA, and a certificate it signs for 127.0.0.1 (every node's address here). */
function makePki(): typeof pki {
  const dir = mkdtempSync(join(tmpdir(), 'rd-pki-'));
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  openssl(dir, 'req', '-x509', ...ec, '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=ReplayDesk test cluster CA');
  openssl(dir, 'req', ...ec, '-keyout', 'node.key', '-out', 'node.csr', '-subj', '/CN=127.0.0.1');
  writeFileSync(join(dir, 'ext.cnf'), 'subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\n');
  openssl(dir, 'x509', '-req', '-in', 'node.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'node.pem', '-days', '2', '-extfile', 'ext.cnf');
  return { ca: join(dir, 'ca.pem'), cert: join(dir, 'node.pem'), key: join(dir, 'node.key'), caPem: readFileSync(join(dir, 'ca.pem'), 'utf8') };
}

async function callAt(base: string, path: string, body: unknown, token = ''): Promise<{ status: number; body: any; retryAfter: string | null }> {
  const res = await fetch(`${base}/api/sim/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
    tls: { ca: pki.caPem },
    signal: AbortSignal.timeout(120_000),
  } as RequestInit);
  return { status: res.status, body: await res.json(), retryAfter: res.headers.get('retry-after') };
}

describePg('nodes on HTTPS with the cluster CA', () => {
  beforeAll(async () => {
    pki = makePki();
    c = await startCluster(2, { TLS_CERT_FILE: pki.cert, TLS_KEY_FILE: pki.key, NODE_CA_FILE: pki.ca });
  }, 300_000);

  afterAll(async () => {
    stranger?.proc.kill('SIGTERM');
    await stranger?.proc.exited;
    await c?.stop();
  });

  it('forwards over HTTPS to the holder; a node without the CA refuses the hop with 503', async () => {
    const [a, b] = c.nodes;
    expect(a.server.base).toStartWith('https://127.0.0.1:');
    const login = await callAt(a.server.base, 'Auth/loginKey', { userName: c.demo.userName, apiKey: c.demo.apiKey });
    expect(login.body.success).toBe(true);
    const token = login.body.token as string;
    const start = await callAt(a.server.base, 'Replay/start', { instrumentSymbol: 'NQ', startDate: '2025-03-03', timeframe: '1m' }, token);
    expect(start.body.success).toBe(true);
    const accountId = start.body.accountId as number;
    const [lease] = await c.db`SELECT node_id, node_url FROM session_leases WHERE account_id = ${accountId}`;
    expect(lease).toEqual({ node_id: a.id, node_url: a.server.base });
    // Through the node that does not hold it: forwarded over HTTPS, verified against the CA.
    const stepped = await callAt(b.server.base, 'Replay/step', { accountId, steps: 2 }, token);
    expect(stepped).toMatchObject({ status: 200, body: { success: true, currentIndex: 2 } });
    // A node serving TLS that was not given the CA cannot verify the holder: no hop, a 503 to retry.
    stranger = await spawnServer({
      env: { DATABASE_URL: c.databaseUrl, DATA_DIR: mkdtempSync(join(tmpdir(), 'rd-stranger-')), NODE_ID: 'stranger', LOG_REQUESTS: 'false', DATA_START_DATE: '2025-01-01', DATA_END_DATE: '2025-06-30', TLS_CERT_FILE: pki.cert, TLS_KEY_FILE: pki.key },
      timeoutMs: 120_000,
    });
    const refused = await callAt(stranger.base, 'Replay/step', { accountId, steps: 1 }, token);
    expect(refused).toMatchObject({ status: 503, retryAfter: '1', body: { success: false, errorCode: 503, errorMessage: 'The session is moving to another server; retry' } });
    const again = await callAt(b.server.base, 'Replay/step', { accountId, steps: 1 }, token);
    expect(again).toMatchObject({ status: 200, body: { success: true, currentIndex: 3 } });
  }, 300_000);
});
