// The hubs as `npm start` serves them: the official client reaches both hubs of the real server
// process on its one port, negotiating or not, and a graceful stop closes them with allowReconnect.
import { expect, it } from 'bun:test';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HttpTransportType, HubConnectionBuilder, LogLevel } from '@microsoft/signalr';
import { spawnServer } from '../support/server-process.ts';

it('the server process serves /hubs/user and /hubs/market; SIGTERM closes hub connections and stops cleanly', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'rd-hubs-'));
  const s = await spawnServer({ timeoutMs: 60_000, env: { DATA_DIR: dir, DATA_START_DATE: '2025-02-24', DATA_END_DATE: '2025-03-07' } });
  try {
    const creds = JSON.parse(readFileSync(join(dir, 'demo-credentials.json'), 'utf8'));
    const login = await fetch(`${s.base}/api/sim/Auth/loginKey`, { method: 'POST', body: JSON.stringify(creds) });
    const token = ((await login.json()) as any).token as string;
    const start = await fetch(`${s.base}/api/sim/Replay/start`, {
      method: 'POST', headers: { authorization: `Bearer ${token}` }, body: JSON.stringify({ instrumentSymbol: 'ES', startDate: '2025-03-03', timeframe: '1m' }),
    });
    const session = (await start.json()) as any;
    expect(session.success).toBe(true);
    const user = new HubConnectionBuilder()
      .withUrl(`${s.base}/hubs/user`, { accessTokenFactory: () => token }) // negotiate first
      .configureLogging(LogLevel.None)
      .build();
    const market = new HubConnectionBuilder()
      .withUrl(`${s.base}/hubs/market?access_token=${token}`, { skipNegotiation: true, transport: HttpTransportType.WebSockets })
      .configureLogging(LogLevel.None)
      .build();
    await user.start();
    await market.start();
    await user.invoke('SubscribeOrders', session.accountId);
    const quotes: any[] = [];
    market.on('GatewayQuote', (_id, q) => quotes.push(q));
    await market.invoke('SubscribeContractQuotes', session.instrument.contractId);
    await fetch(`${s.base}/api/sim/Replay/step`, {
      method: 'POST', headers: { authorization: `Bearer ${token}` }, body: JSON.stringify({ accountId: session.accountId, steps: 3 }),
    });
    const deadline = Date.now() + 20_000;
    const last = '2025-03-03T00:03:00.000+00:00';
    while (quotes.at(-1)?.timestamp !== last && Date.now() < deadline) await Bun.sleep(10);
    // The current quote at once, then the step's: quotes of one step share a frame, so they may merge.
    expect(quotes.length).toBeGreaterThanOrEqual(2);
    expect(quotes.at(-1)).toMatchObject({ symbol: 'ES', timestamp: '2025-03-03T00:03:00.000+00:00' });
    const closed = new Promise<Error | undefined>((resolve) => user.onclose(resolve));
    s.proc.kill('SIGTERM');
    expect(await closed).toBeUndefined(); // a close without an error: the server went away cleanly
    expect(await s.proc.exited).toBe(0);
    await market.stop();
  } finally {
    s.proc.kill('SIGKILL');
  }
}, 90_000);
