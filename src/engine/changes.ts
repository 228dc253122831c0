// What a session engine changed, in the order it happened: the journal the real-time hubs are fed
// from (service/replay/events.ts). The engine appends to it only while a caller has asked for it
// (SessionEngine.beginChanges), and only when an order or a fill changes: the bar loop itself never
// allocates. Entries are copies, so a later change of the same order does not rewrite an earlier entry.

import type { Fill, Order } from './types.ts';

export type EngineChange =
  /**
   * An order was placed (created) or changed: filled, canceled, expired, modified, a bracket leg
   * resized or made working, a stop-limit armed at its stop (`armed`: a change of state no client
   * sees, stored all the same), or a trailing stop's stop moved by the price (`trailed`: one entry for
   * a run of such moves with nothing else between them, in its last state).
   */
  | {
      readonly kind: 'order';
      readonly order: Readonly<Order>;
      readonly created: boolean;
      readonly timeS: number;
      readonly armed?: true;
      readonly trailed?: true;
    }
  /** A fill, with the account and the position as they stand right after it. */
  | {
      readonly kind: 'fill';
      readonly fill: Fill;
      readonly balanceCents: number;
      readonly positionQty: number;
      /** Average entry price of the position after the fill; when it closed it, the average it had. */
      readonly avgPriceTicks: number;
      /** Net position before the fill (to tell an opening from a change or a close). */
      readonly previousQty: number;
      /**
       * The position's opening (engine.ts `positionOpening`) right after the fill, or, when the fill
       * left the account flat, the opening of the position it closed; null when unknown.
       */
      readonly positionOpenedS: number | null;
      readonly positionOpenFillId: number | null;
    };
