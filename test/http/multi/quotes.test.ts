// The market hub over a multi-instrument session (issue 34): one Replay/play streams quotes for every
// contract of the session to the official SignalR client, each contract's quotes following its own
// bars (a quote may stand for several bars merged, never for a bar out of order, never before the
// bar's close), ending at its last close. Both API profiles (the key's profile names the contract's symbol in the quote).
import { afterEach, describe, expect, it } from 'bun:test';
import { waitFor } from '../../support/app.ts';
import type { Row } from '../../support/challenge.ts';
import { hubBench, stopHubs } from './hubs.ts';
import { ES, multiApp, NQ } from './multi.ts';

afterEach(stopHubs);

const DAY = '2025-03-04';
const minute = (i: number) => new Date(Date.parse(`${DAY}T15:00:00Z`) + i * 60_000).toISOString().replace('.000Z', 'Z');
// NQ a bar every minute for 20 minutes, ES every other minute: their closes, in order.
const NQ_CLOSES = Array.from({ length: 20 }, (_, i) => 20_000 + i * 1.25);
const ES_CLOSES = Array.from({ length: 10 }, (_, i) => 5_000 - i * 0.5);
const DATA: Record<string, Row[]> = {
  NQ: NQ_CLOSES.map((p, i) => [minute(i), p]),
  ES: ES_CLOSES.map((p, i) => [minute(2 * i), p]),
};
/** A quote's timestamp for a bar opened at minute `i`: the close of its 1 m bucket. */
const closeOf = (i: number) => minute(i + 1).replace('Z', '.000+00:00');

for (const [profile, symbols] of [['spec', { [NQ]: 'NQ', [ES]: 'ES' }], ['live', { [NQ]: 'F.US.ENQ', [ES]: 'F.US.EP' }]] as const) {
  describe(`quotes of two contracts from one play (${profile})`, () => {
    it('every contract of the session is quoted, in its own bars\' order, up to its last close', async () => {
      const t = await multiApp(DATA);
      if (profile === 'live') await t.s.users.setKeyProfile(t.email, 'live');
      const b = await hubBench(t);
      const x = await b.post('Replay/start', { instrumentSymbols: ['NQ', 'ES'], startDate: DAY, timeframe: '1m' });
      expect(x.instruments.map((i: any) => i.contractId)).toEqual([NQ, ES]);
      const market = await b.connect('market');
      const got: Record<string, any[]> = { [NQ]: [], [ES]: [] };
      market.on('GatewayQuote', (contractId: string, q: any) => got[contractId].push(q));
      for (const c of [NQ, ES]) await market.invoke('SubscribeContractQuotes', c);
      for (const c of [NQ, ES]) got[c].length = 0; // the snapshot on subscribing: no price yet
      expect((await b.post('Replay/play', { accountId: x.accountId, speed: 50 })).playing).toBe(true);
      const pace = setInterval(() => t.clock.advance(20), 10);
      try {
        await waitFor(() => got[NQ].at(-1)?.lastPrice === NQ_CLOSES.at(-1) && got[ES].at(-1)?.lastPrice === ES_CLOSES.at(-1), 60_000);
      } finally {
        clearInterval(pace);
      }
      for (const [c, closes, every] of [[NQ, NQ_CLOSES, 1], [ES, ES_CLOSES, 2]] as const) {
        expect(got[c].length).toBeGreaterThan(0);
        for (const q of got[c]) expect(q).toMatchObject({ symbol: symbols[c], contract: c });
        // Each quote is one of the contract's closes, not before that close's time, in order.
        const seen = got[c].map((q) => {
          const i = closes.indexOf(q.lastPrice);
          expect(i).toBeGreaterThanOrEqual(0);
          expect(q.timestamp >= closeOf(i * every)).toBe(true);
          return i;
        });
        expect(seen).toEqual([...seen].sort((p, q) => p - q));
        const times = got[c].map((q) => q.timestamp);
        expect(times).toEqual([...times].sort());
      }
    }, 60_000);
  });
}
