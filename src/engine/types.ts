// The engine's vocabulary: order enums (numbers as the gateway schema writes them), the order and
// fill records, and the sentinels the trigger scan uses. Prices are integer ticks, money integer
// cents, times epoch seconds taken from bars or passed in by the caller (never a clock).

/** The spec's order types and wire numbers (spec "Order": 1 Limit, 2 Market, 3 StopLimit, 4 Stop). */
export const SpecOrderType = { Limit: 1, Market: 2, StopLimit: 3, Stop: 4 } as const;
export type SpecOrderType = (typeof SpecOrderType)[keyof typeof SpecOrderType];

/**
 * Every order type the engine knows, with the gateway's wire numbers: the spec's four, and the live
 * gateway's 5 TrailingStop, 6 JoinBid, 7 JoinAsk (rules in engine.ts and matching.ts). The engine
 * takes the last three only from a request that opts in (`extendedTypes`), so the spec's behaviour
 * stays the default.
 */
export const OrderType = { ...SpecOrderType, TrailingStop: 5, JoinBid: 6, JoinAsk: 7 } as const;
export type OrderType = (typeof OrderType)[keyof typeof OrderType];

/** The types only a request that opts in may use. */
export function isExtendedType(type: OrderType): boolean {
  return type === OrderType.TrailingStop || type === OrderType.JoinBid || type === OrderType.JoinAsk;
}

export const OrderSide = { Buy: 0, Sell: 1 } as const;
export type OrderSide = (typeof OrderSide)[keyof typeof OrderSide];

/** The spec's order statuses (spec "Order": 1 Partial, 2 Filled, 3 Canceled, 6 Pending). */
export const SpecOrderStatus = { Open: 1, Filled: 2, Canceled: 3, Pending: 6 } as const;
export type SpecOrderStatus = (typeof SpecOrderStatus)[keyof typeof SpecOrderStatus];

/**
 * Order status with the gateway's wire numbers. The engine produces Pending (6, a working order),
 * Filled (2), Canceled (3: by the trader, one-cancels-other, or a bracket leg fitted to the position)
 * and Expired (4: still working when the session or the challenge phase ended); Rejected (5) records a
 * refused placement and Suspended (8) a bracket leg waiting for its entry's fill, both only for a
 * request that asks for them. Open (1) is the wire's name for a working order in Order/searchOpen
 * (ProjectX's "Open"; docs/gateway-profile.md) and would mark a partial fill, which this engine never makes.
 * The spec knows 1, 2, 3 and 6 only: its presenters map 4 to 3 (see docs/decisions.md).
 */
export const OrderStatus = { ...SpecOrderStatus, Expired: 4, Rejected: 5, Suspended: 8 } as const;
export type OrderStatus = (typeof OrderStatus)[keyof typeof OrderStatus];

export interface Order {
  readonly id: number;
  readonly type: OrderType;
  readonly side: OrderSide;
  /**
   * Requested contracts. Bracket legs shrink to the position when it is reduced by other means; a
   * modify may change the size of a working order (engine.ts, "Modify").
   */
  size: number;
  /** Prices of a working order can change by a modify; its type and side never do. */
  limitTicks: number | null;
  stopTicks: number | null;
  status: OrderStatus;
  /** 0 or size: fills are all-or-nothing. */
  fillVolume: number;
  /** Fill price; with all-or-nothing fills this is also the average fill price. */
  filledPriceTicks: number | null;
  readonly createdS: number;
  /**
   * Time of the last change made to the order: its fill, cancel or expiry, a modify, a suspended
   * leg's start (the live gateway's `updateTimestamp`); null until the first. A trailing stop's
   * ratchet is the market moving it, not a change made to it, and leaves it as it is.
   */
  updatedS: number | null;
  /** Bracket distances requested on an entry order, absolute ticks; the legs are spawned on its fill. */
  readonly slTicks: number | null;
  readonly tpTicks: number | null;
  /** On a bracket leg: the entry order that spawned it. */
  readonly parentId: number | null;
  /** Legs of one bracket share an ocoId (the entry's id); a fill of one cancels the other. */
  readonly ocoId: number | null;
  /** Stop-limit only: the stop price has been touched and the order now rests as a limit. */
  triggered: boolean;
  /**
   * Time priority among working orders, smaller first (order-book.ts): the engine's sequence number
   * taken at placement, and again by a modify that loses priority. Not the id, which never changes.
   */
  prioritySeq: number;
  /** TrailingStop only: the trail distance in ticks (≥ 1). */
  trailTicks: number | null;
  /**
   * TrailingStop only: the most favourable price reached since the order started trailing (highest
   * for a sell, lowest for a buy); `stopTicks` is this minus (sell) or plus (buy) `trailTicks`.
   */
  trailExtremeTicks: number | null;
  /** On an entry with a stop-loss bracket: the leg's type, Stop or TrailingStop (its slTicks is then the trail). */
  readonly slType: OrderType | null;
  /** The client's tag, unique among the account's orders (the service checks); echoed as given. */
  readonly customTag: string | null;
  /**
   * One-cancels-other group made by `linkedOrderId` (the id of the group's first order): a fill of a
   * member cancels the others. Separate from a bracket's `ocoId`.
   */
  linkId: number | null;
  /**
   * JoinBid / JoinAsk only: placed at the touch and not yet past its placement moment, so it does not
   * fill at the price it joined (matching.ts, rule 9); cleared on the next walked bar or a repricing.
   */
  passive: boolean;
  /** An entry with suspended legs: the anchor price their prices were last set from (engine.ts, "Suspended legs"). */
  legsAnchorTicks: number | null;
}

export interface Fill {
  readonly id: number;
  readonly orderId: number;
  readonly side: OrderSide;
  readonly size: number;
  readonly priceTicks: number;
  readonly timeS: number;
  /** feePerSideCents × size, deducted from the balance. */
  readonly feeCents: number;
  /** Gross P&L realized by the part of this fill that reduced the position (FIFO), before fees. */
  readonly realizedPnlCents: number;
  /**
   * Contracts of this fill that reduced the position (0: it only opened or added; a flip closes the
   * old position's contracts and opens the rest). Absent on fills stored before it was kept.
   */
  readonly closedQty?: number;
}

/** Whether a fill closed contracts (fills stored before `closedQty` was kept: whether it realized P&L). */
export function closesPosition(f: Fill): boolean {
  return f.closedQty !== undefined ? f.closedQty > 0 : f.realizedPnlCents !== 0;
}

/** A price no Int32 bar high reaches: "no up-trigger". */
export const NO_UP_TRIGGER_TICKS = 2_147_483_647;
/** A price no Int32 bar low reaches: "no down-trigger". */
export const NO_DOWN_TRIGGER_TICKS = -2_147_483_648;
/** A bar time no stored bar reaches (bar times are Uint32 epoch seconds below 2^31 until 2038). */
export const NO_EVENT_S = 4_294_967_296;

export function isBuy(side: OrderSide): boolean {
  return side === OrderSide.Buy;
}

/** +1 for buys, -1 for sells: the sign a fill adds to the net position. */
export function sideSign(side: OrderSide): 1 | -1 {
  return side === OrderSide.Buy ? 1 : -1;
}

export function oppositeSide(side: OrderSide): OrderSide {
  return side === OrderSide.Buy ? OrderSide.Sell : OrderSide.Buy;
}
