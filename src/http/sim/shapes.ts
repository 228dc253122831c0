// The current family's wire shapes (resources: contracts, orders, positions, trades, the account
// snapshot, replay progress): TypeBox values that schemas.ts builds its endpoints from, and that the
// console takes its types from (`import type` + `Static`). This module imports nothing of the server
// but the shared shapes, so the console's type check and bundle stay free of it (test/tidy.test.ts).

import { Type as T } from '@sinclair/typebox';
import { accountContract, Bar, Nullable, OrderSideValue, OrderStatusValue, OrderTypeValue, PositionTypeValue, STRICT } from '../shared/schemas.ts';

export const Contract = T.Object(
  {
    id: T.String({ description: 'Contract ID, CON.F.US.{symbol}.{monthYear}' }),
    name: T.String(),
    description: T.String(),
    tickSize: T.Number(),
    tickValue: T.Number(),
    activeContract: T.Boolean(),
    symbolId: T.String(),
  },
  { ...STRICT, title: 'Contract' },
);

export const Order = T.Object(
  {
    id: T.Integer(),
    ...accountContract,
    symbolId: T.String(),
    creationTimestamp: T.String(),
    updateTimestamp: Nullable(T.String()),
    status: OrderStatusValue,
    type: OrderTypeValue,
    side: OrderSideValue,
    size: T.Integer(),
    limitPrice: Nullable(T.Number()),
    stopPrice: Nullable(T.Number()),
    fillVolume: T.Integer(),
    filledPrice: Nullable(T.Number()),
    customTag: T.Null(),
  },
  { ...STRICT, title: 'Order' },
);

export const Position = T.Object(
  {
    id: T.Integer(),
    ...accountContract,
    contractDisplayName: T.String(),
    creationTimestamp: T.String(),
    type: PositionTypeValue,
    size: T.Integer(),
    averagePrice: T.Number(),
  },
  { ...STRICT, title: 'Position' },
);

export const Trade = T.Object(
  {
    id: T.Integer(),
    ...accountContract,
    creationTimestamp: T.String(),
    price: T.Number(),
    profitAndLoss: T.Null(),
    fees: T.Number(),
    side: OrderSideValue,
    size: T.Integer(),
    voided: T.Boolean(),
    orderId: T.Integer(),
  },
  { ...STRICT, title: 'Trade' },
);

export const snapshotFields = {
  balance: T.Number(),
  equity: T.Number(),
  unrealizedPnl: T.Number(),
  marginUsed: T.Number(),
  positions: T.Integer(),
  pendingOrders: T.Integer(),
};

export const AccountSnapshot = T.Object(snapshotFields, { ...STRICT, title: 'AccountSnapshot' });

export const FilledOrder = T.Object({ orderId: T.Integer(), fillPrice: T.Number(), fillQty: T.Integer() }, { ...STRICT, title: 'FilledOrder' });

export const PropFirm = T.Object(
  {
    status: T.Union([T.Literal('active'), T.Literal('passed'), T.Literal('violated'), T.Literal('ended')]),
    isFunded: T.Boolean(),
    currentPhase: T.Union([T.Literal('evaluation'), T.Literal('performance')]),
    tradingDaysCount: T.Integer(),
    drawdownLocked: T.Boolean(),
  },
  { ...STRICT, title: 'PropFirm' },
);

export const Violation = T.Object(
  {
    rule: Nullable(T.Union([T.Literal('maxLossLimit'), T.Literal('dailyLossLimit')])),
    message: T.String(),
    value: T.Number(),
    limit: T.Number(),
    time: T.String(),
    barIndex: T.Integer(),
    phase: T.Union([T.Literal('evaluation'), T.Literal('performance')]),
  },
  { ...STRICT, title: 'Violation' },
);

/** What Replay/step and Replay/jumpTo answer besides the envelope (step adds `bars`). */
export const progressFields = {
  barsProcessed: T.Integer({ description: 'Bars actually advanced; 0 means end of data' }),
  currentIndex: T.Integer(),
  totalBars: T.Integer(),
  account: AccountSnapshot,
  propFirm: Nullable(PropFirm),
  filledOrders: T.Array(FilledOrder),
  violations: T.Array(Violation),
};

export const ReplayStepAnswer = T.Object({ ...progressFields, bars: T.Array(Bar) }, { ...STRICT, title: 'ReplayStepAnswer' });

