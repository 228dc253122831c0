// Strict client models of the live gateway's REST answers and hub payloads, as the public SDKs'
// strict models read them (pydantic with `extra="forbid"`, zod `.strict()`): every field the live
// gateway sends is required, no other key is allowed, timestamps must be datetimes. Written here from
// the live gateway's public documentation and the SDKs' own models (listed in docs/gateway-profile.md),
// independently of the server's schemas, so a server schema that drifted from the gateway would not
// move them along.

import { type TObject, type TProperties, type TSchema, Type as T } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';

const STRICT = { additionalProperties: false } as const;
const DATETIME = T.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d+)?(Z|[+-]\\d{2}:\\d{2})$' });
const Int = T.Integer();
const Num = T.Number();
const NullableNum = T.Union([T.Number(), T.Null()]);
const NullableStr = T.Union([T.String(), T.Null()]);

export const Account = T.Object({ id: Int, name: T.String(), balance: Num, canTrade: T.Boolean(), isVisible: T.Boolean(), simulated: T.Boolean() }, STRICT);

export const Contract = T.Object({
  id: T.String(), name: T.String(), description: T.String(), tickSize: Num, tickValue: Num, activeContract: T.Boolean(), symbolId: T.String(),
}, STRICT);

const OrderFields = {
  id: Int, accountId: Int, contractId: T.String(), symbolId: T.String(), creationTimestamp: DATETIME, updateTimestamp: DATETIME,
  status: T.Integer({ minimum: 0, maximum: 8 }), type: T.Integer({ minimum: 1, maximum: 7 }), side: T.Integer({ minimum: 0, maximum: 1 }),
  size: Int, fillVolume: Int,
};

export const Order = T.Object({ ...OrderFields, limitPrice: NullableNum, stopPrice: NullableNum, filledPrice: NullableNum, customTag: NullableStr }, STRICT);

export const Position = T.Object({
  id: Int, accountId: Int, contractId: T.String(), creationTimestamp: DATETIME, type: T.Integer({ minimum: 0, maximum: 2 }), size: Int, averagePrice: Num,
}, STRICT);

export const Trade = T.Object({
  id: Int, accountId: Int, contractId: T.String(), creationTimestamp: DATETIME, price: Num, profitAndLoss: NullableNum, fees: Num,
  side: T.Integer({ minimum: 0, maximum: 1 }), size: Int, voided: T.Boolean(), orderId: Int,
}, STRICT);

export const Bar = T.Object({ t: DATETIME, o: Num, h: Num, l: Num, c: Num, v: Int }, STRICT);

/** A hub's order: null fields are left out, bracket legs name their entry. */
export const OrderEvent = T.Object({
  ...OrderFields,
  limitPrice: T.Optional(Num), stopPrice: T.Optional(Num), filledPrice: T.Optional(Num), customTag: T.Optional(T.String()), parentOrderId: T.Optional(Int),
}, STRICT);

export const Quote = T.Object({
  symbol: T.String(), symbolName: T.String(), lastPrice: Num, bestBid: Num, bestAsk: Num, change: Num, changePercent: Num, open: Num, high: Num,
  low: Num, volume: Num, lastUpdated: DATETIME, timestamp: DATETIME, contract: T.String(),
}, STRICT);

/** `{action, data}`, the live gateway's wrapped user event. */
export const Wrapped = <S extends TSchema>(data: S) => T.Object({ action: T.Integer({ minimum: 0, maximum: 2 }), data }, STRICT);

/** An answer: the gateway's envelope and the endpoint's own fields. */
export const Answer = <P extends TProperties>(props: P) =>
  T.Object({ ...props, success: T.Boolean(), errorCode: Int, errorMessage: NullableStr }, STRICT);

export const Answers = {
  'Auth/loginKey': Answer({ token: T.String() }),
  'Account/search': Answer({ accounts: T.Array(Account) }),
  'Contract/available': Answer({ contracts: T.Array(Contract) }),
  'History/retrieveBars': Answer({ bars: T.Array(Bar) }),
  'Order/place': Answer({ orderId: Int }),
  'Order/modify': Answer({}),
  'Order/search': Answer({ orders: T.Array(Order) }),
  'Order/searchOpen': Answer({ orders: T.Array(Order) }),
  'Position/searchOpen': Answer({ positions: T.Array(Position) }),
  'Trade/search': Answer({ trades: T.Array(Trade) }),
  // ReplayDesk's own endpoints, from its spec.
  'Replay/start': Answer({
    accountId: Int, sessionId: T.String(), totalBars: Int, historyBars: Int,
    instrument: T.Object({ name: T.String(), contractId: T.String(), tickSize: Num, tickValue: Num }, STRICT),
  }),
  'Replay/play': Answer({ playing: T.Boolean(), speed: Num }),
  'Replay/step': Answer({
    barsProcessed: Int, currentIndex: Int, totalBars: Int,
    account: T.Object({ balance: Num, equity: Num, unrealizedPnl: Num, marginUsed: Num, positions: Int, pendingOrders: Int }, STRICT),
    propFirm: T.Null(), filledOrders: T.Array(T.Object({ orderId: Int, fillPrice: Num, fillQty: Int }, STRICT)), violations: T.Array(T.Never()),
    bars: T.Array(Bar),
  }),
} as const;

export type Path = keyof typeof Answers;

/** A refusal has the envelope only. */
const Refusal = Answer({});

const compiled = new Map<TSchema, ReturnType<typeof TypeCompiler.Compile>>();

/** `value` checked against `schema`; throws with the first problem, as a strict client would. */
export function parseStrict<S extends TObject>(schema: S, value: unknown, what: string): any {
  let check = compiled.get(schema);
  if (!check) compiled.set(schema, (check = TypeCompiler.Compile(schema)));
  if (check.Check(value)) return value;
  const e = check.Errors(value).First();
  throw new Error(`${what}: ${e?.path || '/'} ${e?.message}; got ${JSON.stringify(value).slice(0, 400)}`);
}

/** A REST answer parsed strictly: the endpoint's model when it succeeded, the bare envelope when refused. */
export function parseAnswer(path: Path, body: { success?: unknown }): any {
  return parseStrict(body.success === true ? Answers[path] : Refusal, body, path);
}
