// Bracket templates (ATM-style presets, pure: no DOM, so test/console runs them): a name, a
// stop-loss and a take-profit in ticks (either may be absent), and whether the stop-loss trails (the
// server's TrailingStop leg: its ticks are the trail). One is chosen in the ticket; choosing it fills
// the ticket's bracket fields, which the Buy/Sell buttons and the B/S keys read alike. The list is
// the trader's, kept in this browser's localStorage (preferences.ts) like the console's other
// preferences (docs/decisions.md, "Desk order tools").

import { BRACKET_TEMPLATES_MAX, TEMPLATE_NAME_CHARS_MAX } from '../../limits.ts';

export interface BracketTemplate {
  name: string;
  slTicks: number | null;
  tpTicks: number | null;
  slTrailing: boolean;
}


const ticksOk = (t: unknown): t is number | null => t === null || (typeof t === 'number' && Number.isInteger(t) && t >= 1 && t <= 100_000);

/** A stored list read back: the well-formed templates, others dropped (an edited or older store never breaks the ticket). */
export function parseTemplates(v: unknown): BracketTemplate[] {
  if (!Array.isArray(v)) return [];
  const out: BracketTemplate[] = [];
  for (const t of v) {
    if (!t || typeof t !== 'object') continue;
    const { name, slTicks, tpTicks, slTrailing } = t as Record<string, unknown>;
    if (typeof name !== 'string' || nameError(name, out) !== null || !ticksOk(slTicks) || !ticksOk(tpTicks)) continue;
    out.push({ name: name.trim(), slTicks, tpTicks, slTrailing: slTrailing === true && slTicks !== null });
    if (out.length === BRACKET_TEMPLATES_MAX) break;
  }
  return out;
}

/** Why `name` cannot name a template among `list` (`except`: the one being renamed), or null. */
export function nameError(name: string, list: readonly BracketTemplate[], except?: string): string | null {
  const n = name.trim();
  if (n === '') return 'Name the template';
  if (n.length > TEMPLATE_NAME_CHARS_MAX) return `A template’s name has at most ${TEMPLATE_NAME_CHARS_MAX} characters`;
  if (list.some((t) => t.name.toLowerCase() === n.toLowerCase() && t.name !== except)) return `A template named ${n} exists`;
  return null;
}

/** The ticket's bracket fields as a template (blank fields: no leg); a text when they make none. */
export function fromTicket(name: string, f: { sl: string; tp: string; slTrailing: boolean }, list: readonly BracketTemplate[]): BracketTemplate | string {
  const bad = nameError(name, list);
  if (bad !== null) return bad;
  const ticks = (v: string) => (v.trim() === '' ? null : Number(v));
  const slTicks = ticks(f.sl);
  const tpTicks = ticks(f.tp);
  if (!ticksOk(slTicks) || !ticksOk(tpTicks)) return 'Stop-loss and take-profit are whole ticks, at least 1';
  if (slTicks === null && tpTicks === null) return 'Set a stop-loss or a take-profit to keep as a template';
  return { name: name.trim(), slTicks, tpTicks, slTrailing: f.slTrailing && slTicks !== null };
}

/** The list with `t` added (or replacing one of its name); a text past BRACKET_TEMPLATES_MAX. */
export function saved(list: readonly BracketTemplate[], t: BracketTemplate): BracketTemplate[] | string {
  const i = list.findIndex((x) => x.name === t.name);
  if (i >= 0) return list.map((x, j) => (j === i ? t : x));
  if (list.length >= BRACKET_TEMPLATES_MAX) return `At most ${BRACKET_TEMPLATES_MAX} templates: delete one first`;
  return [...list, t];
}

/** The list with `from` renamed `to`; a text when `to` cannot name it. */
export function renamed(list: readonly BracketTemplate[], from: string, to: string): BracketTemplate[] | string {
  const bad = nameError(to, list, from);
  if (bad !== null) return bad;
  return list.map((t) => (t.name === from ? { ...t, name: to.trim() } : t));
}

export function removed(list: readonly BracketTemplate[], name: string): BracketTemplate[] {
  return list.filter((t) => t.name !== name);
}

/** A template's legs in words: `SL 40 (trailing) · TP 80`. */
export function describeTemplate(t: BracketTemplate): string {
  const sl = t.slTicks === null ? 'no SL' : `SL ${t.slTicks}${t.slTrailing ? ' trailing' : ''}`;
  const tp = t.tpTicks === null ? 'no TP' : `TP ${t.tpTicks}`;
  return `${sl} · ${tp}`;
}
