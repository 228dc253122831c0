// The cluster's event bus over a real PostgreSQL (two pools on one database, two nodes): events
// published in a burst leave as a few NOTIFYs (a batch a message, in parts when long) and reach the
// other node every one, in order, with their contents; a burst published while a message is in
// flight follows it; an event larger than a notification crosses whole.

import { expect, it } from 'bun:test';
import { limits } from '../../src/config.ts';
import { ClusterEventBus } from '../../src/service/events/cluster-bus.ts';
import { openPostgres } from '../../src/store/postgres.ts';
import type { PostgresSql } from '../../src/store/sql-postgres.ts';
import { describePg, freshDatabase } from '../support/postgres.ts';

type Ev = { topic: string; n: number; pad: string };

/** A node's bus over its own pool, counting the NOTIFYs it sends on the events channel. */
function node(sql: PostgresSql, id: string) {
  const sent = { events: 0 };
  const counting = {
    notify: (channel: string, payload: string) => {
      if (channel === 'replaydesk_events') sent.events++;
      return sql.notify(channel, payload);
    },
    listen: sql.listen.bind(sql),
  };
  const errors: Error[] = [];
  return { bus: new ClusterEventBus<Ev>(counting as unknown as PostgresSql, id, (e) => errors.push(e)), sent, errors };
}

async function until(cond: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(10);
  }
}

describePg('the cluster event bus (two nodes on one PostgreSQL)', () => {
  it('a burst of events crosses in a few NOTIFYs, every one in order, long ones whole; a burst during a send follows it', async () => {
    const url = await freshDatabase();
    const pools = [await openPostgres(url), await openPostgres(url)];
    const a = node(pools[0], 'node-a');
    const b = node(pools[1], 'node-b');
    try {
      await a.bus.start();
      await b.bus.start();
      const heard: Ev[] = [];
      b.bus.subscribe('t', (e) => heard.push(e));
      await until(() => a.bus.listeners('t') === 1, "node A to hear of node B's subscription");

      const long = 'x'.repeat(limits.clusterEventPartChars * 2 + 17);
      const first = Array.from({ length: 300 }, (_, n) => ({ topic: 't', n, pad: n % 100 === 50 ? long : `p${n}` }));
      for (const e of first) a.bus.publish(e);
      // A second burst in a later turn, while the first may still be on its way.
      await Bun.sleep(0);
      const second = Array.from({ length: 200 }, (_, k) => ({ topic: 't', n: 300 + k, pad: `q${k}` }));
      for (const e of second) a.bus.publish(e);
      await until(() => heard.length >= 500, 'the 500 events at node B');
      await Bun.sleep(200);

      expect(heard).toEqual([...first, ...second]);
      const bytes = JSON.stringify([...first, ...second]).length;
      // One notification per event before; now a message per batch, each in parts of the bound.
      expect(a.sent.events).toBeLessThanOrEqual(Math.ceil(bytes / limits.clusterEventPartChars) + 4);
      expect([a.errors, b.errors]).toEqual([[], []]);
      console.log(`cluster bus: 500 events (${bytes} bytes of JSON) crossed in ${a.sent.events} NOTIFYs`);
    } finally {
      await a.bus.stop();
      await b.bus.stop();
      for (const p of pools) await p.close();
    }
  }, 120_000);
});
