// Issue 34's promise to one-instrument sessions: a session started with the spec's `instrumentSymbol`
// alone answers byte for byte what it answered before multi-instrument sessions existed. The same
// script (start, steps, orders with brackets, the searches, a jump, play, pause, end) runs under both
// API profiles and every answer's raw text is compared with the one recorded from the code before the
// change (single-session.golden.json, `UPDATE_MULTI_GOLDEN=1` records it again: only ever on that
// code). The session id is random and is the one field masked.
import { describe, expect, it } from 'bun:test';
import { join } from 'node:path';
import { LIVE } from '../../support/live.ts';
import { type BarSpec, DAY, replayApp, type ReplayTestApp } from '../../support/replay.ts';

const GOLDEN = join(import.meta.dir, 'single-session.golden.json');
const BARS: BarSpec[] = [[19995, 20005, 19990, 20000], [20000, 20004, 19999, 20003], [20003, 20003, 19980, 19985], 19986, 19990, 19992, 19991];

type Exchange = [path: string, request: unknown, response: string];

/** POSTs `body` to the current family and returns the raw answer, the session id masked. */
async function raw(t: ReplayTestApp, path: string, body: unknown): Promise<string> {
  const res = await t.app.handle(new Request(`http://localhost/api/sim/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${t.token}` },
    body: JSON.stringify(body),
  }));
  return `${res.status} ${(await res.text()).replace(/"rs_[^"]*"/g, '"rs_…"')}`;
}

/** The script, as a bot of the spec would run it; every exchange in order. */
async function script(profile: 'spec' | 'live'): Promise<Exchange[]> {
  const t = await replayApp(BARS, { historyClose: 19_990, config: profile === 'live' ? LIVE : {} });
  const log: Exchange[] = [];
  const call = async (path: string, body: Record<string, unknown>) => {
    const text = await raw(t, path, body);
    log.push([path, body, text]);
    return JSON.parse(text.slice(4));
  };
  const { accountId, instrument } = await call('Replay/start', { instrumentSymbol: 'NQ', startDate: DAY, timeframe: '1m' });
  const contractId = instrument.contractId;
  await call('Replay/step', { accountId, steps: 2 });
  // The gateway's bracket form under live (signed ticks and a type), the spec's plain one otherwise.
  const brackets = profile === 'live'
    ? { stopLossBracket: { ticks: -40, type: 4 }, takeProfitBracket: { ticks: 80, type: 1 } }
    : { stopLossBracket: { ticks: 40 }, takeProfitBracket: { ticks: 80 } };
  await call('Order/place', { accountId, contractId, type: 2, side: 0, size: 2, ...brackets });
  await call('Order/place', { accountId, contractId, type: 1, side: 0, size: 1, limitPrice: 19_981 });
  await call('Replay/step', { accountId });
  for (const path of ['Order/search', 'Order/searchOpen', 'Position/searchOpen', 'Trade/search']) await call(path, { accountId });
  await call('Account/search', {});
  await call('Replay/jumpTo', { accountId, targetTime: '2025-03-03T14:35:00Z' });
  await call('Replay/pause', { accountId });
  await call('Position/partialCloseContract', { accountId, contractId, size: 1 });
  await call('Position/closeContract', { accountId, contractId });
  await call('Replay/play', { accountId, speed: 2 });
  await call('Replay/pause', { accountId });
  await call('Replay/step', { accountId, steps: 5 });
  await call('Replay/end', { accountId });
  return log;
}

describe('a session started with instrumentSymbol alone', () => {
  for (const profile of ['spec', 'live'] as const) {
    it(`answers byte for byte as before multi-instrument sessions (${profile})`, async () => {
      const got = await script(profile);
      const file = Bun.file(GOLDEN);
      const golden: Record<string, Exchange[]> = (await file.exists()) ? await file.json() : {};
      if (process.env.UPDATE_MULTI_GOLDEN === '1') {
        golden[profile] = got;
        await Bun.write(GOLDEN, `${JSON.stringify(golden, null, 1)}\n`);
      }
      expect(got).toEqual(golden[profile]);
      // And no field of the extension anywhere.
      for (const [, , text] of got) expect(text).not.toMatch(/"instruments"|"barsByContract"/);
    });
  }
});
