// The order ticket's state and what it makes: the type, the size, the prices, the trail and the
// bracket distances the trader set, read by the ticket's Buy/Sell buttons and by the B/S keys alike,
// so a hotkey order carries the same stop-loss (trailing or not) and take-profit as the button beside it.
// A risk in dollars sizes both (risk-size.ts); a chosen bracket template (templates-model.ts) fills
// the bracket fields, so the B/S keys place its legs too.

import { useState } from 'preact/hooks';
import { bracketTemplates, setBracketTemplates } from '../../preferences.ts';
import type { TicketOrder } from './chart-rules.ts';
import { type RiskSizing, riskSize, stopDistanceTicks } from './risk-size.ts';
import { type BracketTemplate, fromTicket, removed, renamed, saved } from './templates-model.ts';
import { linked, type Links, loadLinks, pruned, saveLinks } from './oco-links.ts';

/** An order the ticket places: the chart's shape, and a working order to link with as one-cancels-other. */
export type TicketPlace = TicketOrder & { linkedOrderId?: number };

export type { TicketOrder };

export interface TicketModel {
  type: number;
  size: number;
  setSize(n: number): void;
  limit: string;
  setLimit(v: string): void;
  stop: string;
  setStop(v: string): void;
  /** A Trailing stop's trail in ticks. */
  trail: string;
  setTrail(v: string): void;
  sl: string;
  setSl(v: string): void;
  /** The stop-loss bracket trails (its ticks are the trail). */
  slTrailing: boolean;
  setSlTrailing(b: boolean): void;
  tp: string;
  setTp(v: string): void;
  needsLimit: boolean;
  needsStop: boolean;
  needsTrail: boolean;
  /** Chooses an order type; its price fields start at the last price. */
  choose(type: number, lastPrice: number | null, decimals: number): void;
  /** The ticket's order on one side (the Buy and Sell buttons). */
  order(side: 0 | 1): TicketPlace;
  /** A market order of the ticket's size with its brackets (the B and S keys). */
  marketOrder(side: 0 | 1): TicketOrder;
  /** The dollars to risk (blank: the size field is the size). */
  risk: string;
  setRisk(v: string): void;
  /** The size the risk buys on this contract (null: no risk set, the size field is the size). */
  sizing(at: RiskContext): RiskSizing | null;
  templates: Templates;
  oco: Oco;
}

/** One-cancels-other with a working order (oco-links.ts): the ticket's next order links to `withId`. */
export interface Oco {
  withId: number | null;
  setWithId(id: number | null): void;
  /** The links this desk asked for (order id → group). */
  links: Links;
  /** `newId` was placed linked to `withId`. */
  link(newId: number, withId: number): void;
  /** Only these orders still work: the others leave their groups. */
  keep(workingIds: readonly number[]): void;
}

/** What sizing by risk needs of the traded contract and the plan. */
export interface RiskContext {
  lastPrice: number | null;
  tickSize: number;
  tickValue: number;
  /** The plan's limit in minis (null: no plan). */
  maxContracts: number | null;
  isMicro: boolean;
}

/** The bracket templates: the list, the one chosen, and their edits (each answers a refusal's text, or null). */
export interface Templates {
  list: BracketTemplate[];
  chosen: string | null;
  /** Chooses one (null: none): its legs fill the bracket fields. */
  choose(name: string | null): void;
  /** Keeps the bracket fields as a template of this name (the same name replaces it), and chooses it. */
  saveAs(name: string): string | null;
  rename(to: string): string | null;
  remove(): void;
}

const num = (v: string) => (v.trim() === '' ? null : Number(v));

export function useTicketModel(accountId: number): TicketModel {
  const [type, setType] = useState(2);
  const [size, setSize] = useState(1);
  const [limit, setLimit] = useState('');
  const [stop, setStop] = useState('');
  const [trail, setTrail] = useState('');
  const [sl, setSl] = useState('');
  const [slTrailing, setSlTrailing] = useState(false);
  const [tp, setTp] = useState('');
  const [risk, setRisk] = useState('');
  const needsLimit = type === 1 || type === 3;
  const needsStop = type === 3 || type === 4;
  const needsTrail = type === 5;
  const choose = (t: number, lastPrice: number | null, decimals: number) => {
    setType(t);
    if (lastPrice === null) return;
    if ((t === 1 || t === 3) && limit === '') setLimit(lastPrice.toFixed(decimals));
    if ((t === 3 || t === 4) && stop === '') setStop(lastPrice.toFixed(decimals));
  };
  const slTicks = num(sl);
  const brackets = { slTicks, tpTicks: num(tp), ...(slTrailing && slTicks !== null ? { slTrailing: true } : {}) };
  const prices = { limitPrice: needsLimit ? num(limit) : null, stopPrice: needsStop ? num(stop) : null, ...(needsTrail ? { trailTicks: num(trail) } : {}) };
  const fields = { sl, tp, slTrailing, setSl, setTp, setSlTrailing };
  const templates = useTemplates(fields);
  const oco = useOco(accountId);
  // The stop-loss bracket's ticks, else a Stop's distance from the last price (a market entry
  // protected by a stop order placed after it: docs/decisions.md, "Desk order tools").
  const sizing = (at: RiskContext) => {
    if (risk.trim() === '') return null;
    const stopTicks = slTicks ?? (type === 4 ? stopDistanceTicks(at.lastPrice, num(stop), at.tickSize) : null);
    return riskSize({ riskUsd: num(risk), stopTicks, tickValue: at.tickValue, maxContracts: at.maxContracts, isMicro: at.isMicro });
  };
  return {
    type,
    size,
    setSize,
    limit,
    setLimit,
    stop,
    setStop,
    trail,
    setTrail,
    sl,
    setSl,
    slTrailing,
    setSlTrailing,
    tp,
    setTp,
    needsLimit,
    needsStop,
    needsTrail,
    choose,
    order: (side) => ({ side, type, size, ...prices, ...brackets, ...(oco.withId !== null && type !== 2 ? { linkedOrderId: oco.withId } : {}) }),
    marketOrder: (side) => ({ side, type: 2, size, limitPrice: null, stopPrice: null, ...brackets }),
    risk,
    setRisk,
    sizing,
    templates,
    oco,
  };
}

function useOco(accountId: number): Oco {
  const [withId, setWithId] = useState<number | null>(null);
  const [links, setLinksState] = useState<Links>(() => loadLinks(accountId));
  // Functional updates: a link and a prune in one render both count.
  const update = (f: (l: Links) => Links) =>
    setLinksState((prev) => {
      const next = f(prev);
      if (next !== prev) saveLinks(accountId, next);
      return next;
    });
  return {
    withId,
    setWithId,
    links,
    link: (newId, to) => update((l) => linked(l, newId, to)),
    keep: (ids) => update((l) => pruned(l, ids)),
  };
}

interface BracketFieldState {
  sl: string;
  tp: string;
  slTrailing: boolean;
  setSl(v: string): void;
  setTp(v: string): void;
  setSlTrailing(b: boolean): void;
}

/** The templates, read once from this browser's store and written back on each edit. */
function useTemplates(f: BracketFieldState): Templates {
  const [list, setListState] = useState<BracketTemplate[]>(() => bracketTemplates());
  const [chosen, setChosen] = useState<string | null>(null);
  const setList = (next: BracketTemplate[]) => {
    setListState(next);
    setBracketTemplates(next);
  };
  const choose = (name: string | null) => {
    const t = list.find((x) => x.name === name);
    setChosen(t ? t.name : null);
    if (!t) return;
    f.setSl(t.slTicks === null ? '' : String(t.slTicks));
    f.setTp(t.tpTicks === null ? '' : String(t.tpTicks));
    f.setSlTrailing(t.slTrailing);
  };
  const saveAs = (name: string) => {
    const t = fromTicket(name, f, list.filter((x) => x.name !== name.trim()));
    if (typeof t === 'string') return t;
    const next = saved(list, t);
    if (typeof next === 'string') return next;
    setList(next);
    setChosen(t.name);
    return null;
  };
  const rename = (to: string) => {
    if (chosen === null) return 'Choose a template to rename';
    const next = renamed(list, chosen, to);
    if (typeof next === 'string') return next;
    setList(next);
    setChosen(to.trim());
    return null;
  };
  const remove = () => {
    if (chosen === null) return;
    setList(removed(list, chosen));
    setChosen(null);
  };
  return { list, chosen, choose, saveAs, rename, remove };
}
