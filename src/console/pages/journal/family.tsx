// A family of branches in the journal (issue 30, "Rewind, by branching"): a session and every branch
// made of it (Replay/branch), found by following each journal row's `branch.parentAccountId`. The
// detail shows the family side by side with the statistics the list has (its "Branches" section);
// the list orders each branch under its parent, marked.

import { useEffect, useState } from 'preact/hooks';
import { ErrorLine, money, signClass, THead, utc } from '../../ui.tsx';
import { zoneLabel } from '../../time-format.ts';
import { type JournalSession, loadJournal } from './model.ts';
import '../branching.css';

/** A session in its family's order, `depth` 0 for a root (a session that is no branch, or whose parent is not listed). */
export interface Member {
  session: JournalSession;
  depth: number;
}

/** The sessions with each branch right after its parent (depth first), roots in the order given. */
export function familyOrder(sessions: readonly JournalSession[]): Member[] {
  const byId = new Map(sessions.map((s) => [s.accountId, s]));
  const children = new Map<number, JournalSession[]>();
  const roots: JournalSession[] = [];
  for (const s of sessions) {
    const p = s.branch?.parentAccountId;
    if (p !== undefined && byId.has(p) && p !== s.accountId) children.set(p, [...(children.get(p) ?? []), s]);
    else roots.push(s);
  }
  const out: Member[] = [];
  const seen = new Set<number>();
  const visit = (s: JournalSession, depth: number) => {
    if (seen.has(s.accountId)) return;
    seen.add(s.accountId);
    out.push({ session: s, depth });
    // Branches in the order they left their parent (earliest branch time first).
    const kids = [...(children.get(s.accountId) ?? [])].sort((a, b) => Date.parse(a.branch!.time) - Date.parse(b.branch!.time) || a.accountId - b.accountId);
    for (const k of kids) visit(k, depth + 1);
  };
  for (const r of roots) visit(r, 0);
  return out;
}

/** `current`'s family: its root (followed up through the listed parents) and every branch of it, family-ordered. */
export function familyOf(sessions: readonly JournalSession[], current: JournalSession): Member[] {
  const all = [...sessions.filter((s) => s.accountId !== current.accountId), current];
  const byId = new Map(all.map((s) => [s.accountId, s]));
  let root = current;
  for (let guard = 0; guard < all.length && root.branch && byId.has(root.branch.parentAccountId); guard++) root = byId.get(root.branch.parentAccountId)!;
  const ordered = familyOrder(all);
  const start = ordered.findIndex((m) => m.session.accountId === root.accountId);
  const rest = ordered.slice(start + 1);
  const end = rest.findIndex((m) => m.depth === 0);
  return ordered.slice(start, end === -1 ? undefined : start + 1 + end);
}

/** Net P&L per round trip (the journal's review calls it expectancy); null without trades. */
export const expectancy = (s: JournalSession): number | null => (s.results.totalTrades ? s.results.totalPnl / s.results.totalTrades : null);

/** `↳ branch of 12 at 10:01 UTC` (the time in the chosen zone), or practice of a challenge. */
export function BranchMark({ s }: { s: JournalSession }) {
  if (!s.branch) return null;
  return (
    <span class="muted small branch-mark" data-testid="branch-mark" title={`A branch (Replay/branch) of account ${s.branch.parentAccountId}, from its bar closing ${utc(s.branch.time)}`}>
      ↳ branch of {s.branch.parentAccountId} at {utc(s.branch.time).slice(0, 16)}
      {s.branch.practiceOf !== null ? ` · practice of challenge ${s.branch.practiceOf}` : ''}
    </span>
  );
}

/** The detail's "Branches": the family side by side, the current session highlighted; nothing for a session without branches. */
export function BranchesSection({ current }: { current: JournalSession }) {
  const [family, setFamily] = useState<Member[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    loadJournal().then((all) => setFamily(familyOf(all, current)), (e) => setError(e instanceof Error ? e.message : String(e)));
  }, [current.accountId]);
  if (error) return <section class="card"><h3>Branches</h3><ErrorLine error={`Branches not loaded: ${error}`} /></section>;
  if (!family || (family.length < 2 && !current.branch)) return null;
  return (
    <section class="card" data-testid="journal-family">
      <h3>Branches · {family.length === 1 ? 'one session' : `${family.length} sessions`} of one family · times {zoneLabel()}</h3>
      <p class="muted small">The session and every branch of it (Step back, Branch here, Replay/branch): each starts as its parent stood at its branch time and goes its own way.</p>
      <FamilyTable family={family} currentId={current.accountId} />
      {current.branch && !family.some((m) => m.session.accountId === current.branch!.parentAccountId) && (
        <p class="muted small">Its parent, account {current.branch.parentAccountId}, is not in the journal (still live, or beyond the list).</p>
      )}
    </section>
  );
}

const COLUMNS = (z: string) => ['Session', `Branched at (${z})`, { num: 'Trades' }, { num: 'Win rate' }, { num: 'Net P&L' }, { num: 'Expectancy' }, 'Status'] as const;

function FamilyTable({ family, currentId }: { family: Member[]; currentId: number }) {
  return (
    <table class="family-table journal-table" data-testid="family-table">
      <THead columns={COLUMNS(zoneLabel())} />
      <tbody>
        {family.map(({ session: s, depth }) => {
          const e = expectancy(s);
          const current = s.accountId === currentId;
          return (
            <tr key={s.accountId} data-account-id={s.accountId} class={current ? 'current' : ''} data-current={current ? 'true' : undefined}>
              <td style={{ paddingLeft: `${0.5 + depth * 1.2}rem` }}>
                {depth > 0 && '↳ '}
                {current ? <strong class="mono">{s.name}</strong> : <a class="mono" href={`#/journal?id=${s.accountId}`}>{s.name}</a>}
                {current && <span class="muted small"> (this one)</span>}
              </td>
              <td class="mono">{s.branch ? utc(s.branch.time).slice(0, 16) : 'root'}{s.branch?.practiceOf != null ? ' · practice' : ''}</td>
              <td class="num">{s.results.totalTrades}</td>
              <td class="num">{s.results.totalTrades ? `${s.results.winRate.toFixed(1)}%` : '—'}</td>
              <td class={`num ${signClass(s.results.totalPnl)}`}>{money(s.results.totalPnl)}</td>
              <td class={`num ${signClass(e)}`}>{e === null ? '—' : money(e)}</td>
              <td class="small">{s.status === 'ended' ? 'ended' : 'live'}</td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
