// The rollup builder's worker (rollup-builder.ts): generates a synthetic UTC day's 1 s bars and rolls
// them up, off the server's main thread. Pure computation on the deterministic generator: the same
// functions the main thread calls (generateDay, buildRollup), so the bars are the same, bit for bit
// (test/data/rollup-builder.test.ts). No SQL and no state between requests: the main thread keeps
// what comes back.

import { packBars } from './bar-columns.ts';
import { generateDay } from './generator.ts';
import { buildRollup, rollupWidthsFor } from './rollup.ts';
import type { RollupRequest, RollupReply } from './rollup-builder.ts';

declare const self: Worker;

self.onmessage = (event: MessageEvent<RollupRequest>) => {
  const { id, inst, day } = event.data;
  let reply: RollupReply;
  const transfer: ArrayBuffer[] = [];
  try {
    const bars = generateDay(inst, day);
    const rollups = rollupWidthsFor(inst).map((widthS) => {
      const built = buildRollup(bars, widthS);
      const packed = built && packBars(built);
      if (packed) transfer.push(packed.buffer as ArrayBuffer);
      return { widthS, packed };
    });
    reply = { id, rollups };
  } catch (e) {
    reply = { id, error: String(e) };
  }
  self.postMessage(reply, transfer);
};
