// The desk's wire shapes that the event folding (live.ts) shares with the REST reads: the fields the
// hub's payloads and the REST answers both carry, typed from the server's schemas (plain data, no
// DOM, so the folding is tested without a browser: test/console/).

import type { Static } from '@sinclair/typebox';
import type * as sim from '../../../http/sim/shapes.ts';

export type Snapshot = Static<typeof sim.AccountSnapshot>;

export type Order = Pick<
  Static<typeof sim.Order>,
  'id' | 'contractId' | 'creationTimestamp' | 'updateTimestamp' | 'status' | 'type' | 'side' | 'size' | 'limitPrice' | 'stopPrice' | 'fillVolume' | 'filledPrice'
>;

export type Position = Pick<Static<typeof sim.Position>, 'id' | 'contractId' | 'contractDisplayName' | 'type' | 'size' | 'averagePrice'>;

export type Trade = Pick<Static<typeof sim.Trade>, 'id' | 'contractId' | 'creationTimestamp' | 'price' | 'fees' | 'side' | 'size' | 'orderId'>;
