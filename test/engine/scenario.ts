// Tiny text DSL for engine scenarios: bars as 'o=100 h=104 l=99 c=103' (integer ticks), orders as
// 'buy limit 1 @100 sl=4 tp=8', fills printed as '#1 buy 1@100 b0' (order id, side, size@price, bar
// index; 'pre' for fills made at placement before the first bar).

import { allocBars, type BarColumns } from '../../src/data/bar-columns.ts';
import { findInstrument, type Instrument } from '../../src/domain/instrument.ts';
import type { EngineConfig, PlaceOrderRequest } from '../../src/engine/engine.ts';
import { SessionEngine } from '../../src/engine/engine.ts';
import { type Fill, OrderSide, OrderType } from '../../src/engine/types.ts';

/** First bar time of every scenario; bar i opens at T0 + i (1 s stored bars). */
export const T0 = 1_700_000_000;

export const NQ = findInstrument('NQ') as Instrument;
/** NQ without fees, so fill-path scenarios show prices only. */
export const NQ_NO_FEES: Instrument = { ...NQ, feePerSideCents: 0 };

export function bars(specs: readonly string[], startS = T0): BarColumns {
  const b = allocBars(specs.length);
  specs.forEach((spec, i) => {
    const f = fields(spec);
    const o = f.get('o');
    const c = f.get('c') ?? o;
    const h = f.get('h') ?? Math.max(o ?? 0, c ?? 0);
    const l = f.get('l') ?? Math.min(o ?? 0, c ?? 0);
    if (o === undefined || c === undefined || h < Math.max(o, c) || l > Math.min(o, c)) {
      throw new Error(`bad bar '${spec}'`);
    }
    b.time[i] = f.get('t') ?? startS + i;
    b.open[i] = o;
    b.high[i] = h;
    b.low[i] = l;
    b.close[i] = c;
    b.volume[i] = 1;
  });
  b.length = specs.length;
  return b;
}

function fields(spec: string): Map<string, number> {
  const m = new Map<string, number>();
  for (const part of spec.trim().split(/\s+/)) {
    const [k, v] = part.split('=');
    m.set(k, Number(v));
  }
  return m;
}

const TYPES: Record<string, OrderType> = {
  limit: OrderType.Limit, market: OrderType.Market, stop: OrderType.Stop, stoplimit: OrderType.StopLimit,
  trail: OrderType.TrailingStop, joinbid: OrderType.JoinBid, joinask: OrderType.JoinAsk,
};

/** Words that set a flag of the request: the gateway's opt-ins. */
const FLAGS: Record<string, 'suspendLegs' | 'recordRejection'> = { suspend: 'suspendLegs', record: 'recordRejection' };

/**
 * 'buy limit 1 @100', 'sell stop 2 @96', 'buy stoplimit 1 stop=100 limit=101', 'buy market 1 sl=4 tp=8';
 * the gateway's model: 'sell trail 1 trail=5', 'buy joinbid 1', 'buy market 1 sltrail=5' (a trailing
 * stop-loss of 5), 'tag=x', 'link=3', and the flags 'suspend', 'record'. A gateway type or a trailing
 * leg opts in to extended types.
 */
export function order(spec: string): PlaceOrderRequest {
  const [sideWord, typeWord, sizeWord, ...rest] = spec.trim().split(/\s+/);
  const type = TYPES[typeWord];
  if (type === undefined) throw new Error(`bad order '${spec}'`);
  const req: { -readonly [K in keyof PlaceOrderRequest]: PlaceOrderRequest[K] } = {
    type, side: sideWord === 'buy' ? OrderSide.Buy : OrderSide.Sell, size: Number(sizeWord),
  };
  if (type === OrderType.TrailingStop || type === OrderType.JoinBid || type === OrderType.JoinAsk) req.extendedTypes = true;
  for (const part of rest) {
    if (FLAGS[part] !== undefined) {
      req[FLAGS[part]] = true;
      continue;
    }
    if (part.startsWith('@')) {
      const p = Number(part.slice(1));
      if (type === OrderType.Stop) req.stopTicks = p;
      else req.limitTicks = p;
      continue;
    }
    const [k, v] = part.split('=');
    const n = Number(v);
    if (k === 'stop') req.stopTicks = n;
    else if (k === 'limit') req.limitTicks = n;
    else if (k === 'sl') req.slTicks = n;
    else if (k === 'tp') req.tpTicks = n;
    else if (k === 'trail') req.trailTicks = n;
    else if (k === 'sltrail') Object.assign(req, { slTicks: n, slType: OrderType.TrailingStop, extendedTypes: true });
    else if (k === 'tag') req.customTag = v;
    else if (k === 'link') req.linkedOrderId = n;
    else throw new Error(`bad order field '${part}' in '${spec}'`);
  }
  return req;
}

export function fmtFill(f: Fill, startS = T0): string {
  const when = f.timeS < startS ? 'pre' : `b${f.timeS - startS}`;
  return `#${f.orderId} ${f.side === OrderSide.Buy ? 'buy' : 'sell'} ${f.size}@${f.priceTicks} ${when}`;
}

export interface Scenario {
  /** Last price before the first bar (setLastPrice); default 100. */
  readonly last?: number;
  readonly orders: readonly string[];
  readonly bars: readonly string[];
  readonly cfg?: Partial<EngineConfig>;
  readonly inst?: Instrument;
}

/** Places the orders at T0 − 1, processes all bars, returns the engine. Fails on a rejected order. */
export function runScenario(s: Scenario): SessionEngine {
  const e = new SessionEngine(s.inst ?? NQ_NO_FEES, { startingBalanceCents: 5_000_000, ...s.cfg });
  e.setLastPrice(s.last ?? 100, T0 - 1);
  for (const spec of s.orders) {
    const r = e.placeOrder(order(spec), T0 - 1);
    if (!r.ok) throw new Error(`order '${spec}' rejected: ${r.error.reason}`);
  }
  const b = bars(s.bars);
  e.processBars(b, 0, b.length);
  return e;
}
