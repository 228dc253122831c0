// Contract IDs `CON.F.US.{exchangeSymbol}.{monthCode}{YY}` and the front-month rule of every symbol.
//
// The roll rules, in one place (dates are UTC calendar dates of the call; business days are
// Monday–Friday, exchange holidays are not modelled):
// - equity_index_quarterly (NQ, ES, MNQ, MES): months H M U Z; a contract expires on the third
//   Friday of its month; the front month rolls to the next quarter eight calendar days before that
//   expiry (the CME floor convention: the Thursday of the week before), i.e. on the roll date the
//   next contract is already the front.
// - gold_active_months (GC): active months G J M Q Z; first notice day is the last business day of
//   the month before the contract month; the front rolls three business days before first notice.
// - crude_monthly (LIGHTCMDUSD): every month; the contract stops trading three business days before
//   the 25th calendar day of the month before its month (four if the 25th is not a business day);
//   the front rolls five business days before that last trading day.
// - spot_calendar_month (EURUSD): spot has no expiry; the month code is the current calendar month.
// - The live profile's rows (instruments.json) reuse these where their market does (YM, MYM, RTY,
//   M2K as equity index; MGC as gold; CL and MCL as crude: MCL's last day differs by a day at most,
//   and one rule keeps a micro on its mini's month) and add three:
// - treasury_quarterly (ZN, ZB): months H M U Z; first notice day is the last business day of the
//   month before the contract month; the front rolls three business days before it (longs must be
//   out before first notice, so volume moves in the prior month's last week).
// - fx_futures_quarterly (6E, 6B, 6J): months H M U Z; the last trading day is two business days
//   before the contract month's third Wednesday; the front rolls five business days before it (the
//   Monday of the week before).
// - natural_gas_monthly (NG): every month; the last trading day is three business days before the
//   first calendar day of the contract month; the front rolls five business days before it.
// A received ID is matched on its symbol segment only: the month/year segment is ignored (spec).

import type { ApiProfile } from './api-profile.ts';
import { findInstrument, type Instrument } from './instrument.ts';
import { gatewaySymbolId } from './symbol-id.ts';
import {
  findLegacyInstrument, LEGACY_INSTRUMENTS, type LegacyInstrument, legacyInstrumentForContractId,
} from './legacy-instruments.ts';

export const MONTH_CODES = 'FGHJKMNQUVXZ';
const DAY_MS = 86_400_000;

export interface ContractMonth {
  /** 1–12 */
  month: number;
  year: number;
}

function utcDay(y: number, m1: number, d: number): number {
  return Date.UTC(y, m1 - 1, d) / DAY_MS;
}

function weekday(day: number): number {
  return new Date(day * DAY_MS).getUTCDay(); // 0 Sunday … 6 Saturday
}

function isBusinessDay(day: number): boolean {
  const w = weekday(day);
  return w !== 0 && w !== 6;
}

function addBusinessDays(day: number, n: number): number {
  let d = day;
  let left = Math.abs(n);
  const step = n < 0 ? -1 : 1;
  while (left > 0) {
    d += step;
    if (isBusinessDay(d)) left--;
  }
  return d;
}

function nextMonth(c: ContractMonth): ContractMonth {
  return c.month === 12 ? { month: 1, year: c.year + 1 } : { month: c.month + 1, year: c.year };
}

/** Third Friday of a month, as a UTC day number. */
export function thirdFriday(year: number, month: number): number {
  const first = utcDay(year, month, 1);
  const offset = (5 - weekday(first) + 7) % 7;
  return first + offset + 14;
}

/** The day on which the front month moves past contract `c` (the first day `c` is no longer front). */
export function rollDay(rule: Instrument['rollRule'], c: ContractMonth): number {
  switch (rule) {
    case 'equity_index_quarterly':
      return thirdFriday(c.year, c.month) - 8;
    case 'gold_active_months': {
      const firstNotice = lastBusinessDayOfMonthBefore(c);
      return addBusinessDays(firstNotice, -3);
    }
    case 'crude_monthly': {
      const prev = c.month === 1 ? { month: 12, year: c.year - 1 } : { month: c.month - 1, year: c.year };
      const d25 = utcDay(prev.year, prev.month, 25);
      const lastTrade = addBusinessDays(d25, isBusinessDay(d25) ? -3 : -4);
      return addBusinessDays(lastTrade, -5);
    }
    case 'spot_calendar_month':
      return utcDay(c.month === 12 ? c.year + 1 : c.year, c.month === 12 ? 1 : c.month + 1, 1);
    case 'treasury_quarterly':
      return addBusinessDays(lastBusinessDayOfMonthBefore(c), -3);
    case 'fx_futures_quarterly':
      return addBusinessDays(addBusinessDays(thirdFriday(c.year, c.month) - 2, -2), -5);
    case 'natural_gas_monthly':
      return addBusinessDays(addBusinessDays(utcDay(c.year, c.month, 1), -3), -5);
  }
}

function lastBusinessDayOfMonthBefore(c: ContractMonth): number {
  let d = utcDay(c.year, c.month, 1) - 1;
  while (!isBusinessDay(d)) d--;
  return d;
}

function isListedMonth(rule: Instrument['rollRule'], month: number): boolean {
  switch (rule) {
    case 'equity_index_quarterly':
    case 'treasury_quarterly':
    case 'fx_futures_quarterly':
      return month % 3 === 0;
    case 'gold_active_months':
      return month === 2 || month === 4 || month === 6 || month === 8 || month === 12;
    case 'crude_monthly':
    case 'spot_calendar_month':
    case 'natural_gas_monthly':
      return true;
  }
}

/** The front contract month of `inst` on the UTC date of `nowMs`. */
export function frontMonth(inst: Instrument, nowMs: number): ContractMonth {
  const today = Math.floor(nowMs / DAY_MS);
  const date = new Date(nowMs);
  let c: ContractMonth = { month: date.getUTCMonth() + 1, year: date.getUTCFullYear() };
  // At most 24 months ahead: every rule has a listed month within a year, so this always ends.
  for (let i = 0; i < 24; i++, c = nextMonth(c)) {
    if (!isListedMonth(inst.rollRule, c.month)) continue;
    if (today < rollDay(inst.rollRule, c)) return c;
  }
  throw new Error(`no front month found for ${inst.symbol}`);
}

export function monthYearCode(c: ContractMonth): string {
  return `${MONTH_CODES[c.month - 1]}${String(c.year % 100).padStart(2, '0')}`;
}

/** `CON.{gatewaySymbolId}.{MYY}`: the gateway-style `symbolId` is this ID's root by construction. */
export function contractIdFor(inst: Instrument, nowMs: number): string {
  return `CON.${gatewaySymbolId(inst)}.${monthYearCode(frontMonth(inst, nowMs))}`;
}

/** `CON.F.US.{exchangeSymbol}.{MYY}` carrying the front month of `rollOn`'s roll rule. */
export function contractIdWithSymbol(exchangeSymbol: string, rollOn: Instrument, nowMs: number): string {
  return `CON.F.US.${exchangeSymbol}.${monthYearCode(frontMonth(rollOn, nowMs))}`;
}

/** Display name as the gateway prints it: symbol, month code, one-digit year (`NQZ5`). */
export function contractNameFor(inst: Instrument, nowMs: number): string {
  const c = frontMonth(inst, nowMs);
  return `${inst.symbol}${MONTH_CODES[c.month - 1]}${c.year % 10}`;
}

const CONTRACT_ID_RE = /^CON\.F\.US\.([A-Za-z0-9]+)(?:\.[A-Za-z0-9]*)?$/i;

/**
 * The instrument a received contract ID names, matched on its symbol segment only. Also accepts a
 * plain or exchange symbol (`NQ`, `ENQ`) and the gateway's symbol ID (`F.US.ENQ`, via findInstrument),
 * since bots send them. Among the instruments `profile` lists (findInstrument).
 */
export function instrumentForContractId(id: unknown, profile: ApiProfile | 'all' = 'spec'): Instrument | undefined {
  if (typeof id !== 'string') return undefined;
  const text = id.trim();
  const m = CONTRACT_ID_RE.exec(text);
  return findInstrument(m ? m[1] : text, profile);
}

// ---- the earlier family's contracts (src/domain/legacy-instruments.ts) ----
// Its IDs carry its own symbol (`CON.F.US.CL.J25`) and the front month of the base instrument's roll
// rule (CL rolls as LIGHTCMDUSD, whose bars it trades on).

export interface LegacyContract {
  instrument: LegacyInstrument;
  id: string;
}

export function legacyContractFor(l: LegacyInstrument, nowMs: number): LegacyContract {
  return { instrument: l, id: contractIdWithSymbol(l.symbol, l.base, nowMs) };
}

/**
 * The legacy instrument a received ID names: a contract ID of any month, as the current family also
 * accepts the gateway symbol ID (`F.US.CL`) and a bare symbol (`CL`).
 */
export function legacyInstrumentForId(id: unknown): LegacyInstrument | undefined {
  if (typeof id !== 'string') return undefined;
  return legacyInstrumentForContractId(id.toUpperCase()) ?? findLegacyInstrument(id);
}

/**
 * Every legacy contract whose symbol, description, symbol ID (`F.US.CL`) or contract ID contains the
 * text (case-insensitive), and the one a contract ID of any month names; null or blank text: all.
 * No cap: the earlier family "returns all matches".
 */
export function searchLegacyContracts(searchText: string | null, nowMs: number): LegacyContract[] {
  const all = LEGACY_INSTRUMENTS.map((l) => legacyContractFor(l, nowMs));
  const text = searchText?.trim().toLowerCase() ?? '';
  if (text === '') return all;
  const byId = legacyInstrumentForContractId(text.toUpperCase());
  return all.filter((c) => {
    const l = c.instrument;
    if (byId === l) return true;
    return [l.symbol, l.description, `F.US.${l.symbol}`, c.id].some((f) => f.toLowerCase().includes(text));
  });
}
