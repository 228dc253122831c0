// Rewinding on the desk by branching (issue 30, docs/api.md "Branching a session"): "Step back" is a
// branch at the previous bar's close, "Branch here" one at the current bar (the state before the
// commands sent at that time); either makes a new session the desk then switches to, leaving the
// original as it is. The switch goes through the desk page (desk.tsx) by DeskSwitchContext, with a
// note that says what happened until the branch's clock moves on.

import { createContext } from 'preact';
import { useContext, useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, auth, sim } from '../../api.ts';
import { formatTime, zoneLabel } from '../../time-format.ts';
import { describeSession, saveMeta, type SessionMeta, timeframeParts } from './model.ts';
import { jumpBoxText, parseJumpBox } from './sim-clock.ts';
import { isTyping } from './keys.ts';

/** What the desk says after a branch, on the branch, while its clock is still the branch time. */
export interface BranchNote {
  accountId: number;
  time: string;
  text: string;
}

/** The desk page's way to put another session on the desk (desk.tsx provides it). */
export interface DeskSwitch {
  to(meta: SessionMeta, note: BranchNote | null): void;
  note: BranchNote | null;
}

export const DeskSwitchContext = createContext<DeskSwitch | null>(null);

/** A branch time, or why there is none now. */
export type BranchAt = { time: string; reason: null } | { time: null; reason: string };

const none = (reason: string): BranchAt => ({ time: null, reason });

/** Why no branch applies now (playing, loading, ended), or null. */
function blockedWhy(clock: string | null, playing: boolean, blocked: boolean): string | null {
  if (playing) return 'Pause first: a branch starts from a bar that stays put';
  if (blocked || clock === null) return 'The session is over or still loading';
  return null;
}

/**
 * The previous bar's close: the server's clock minus one bar of the session's timeframe (the last
 * grid time before the clock when the clock is the session's end, off the grid). At the session's
 * first bar there is none: a branch leaves from a bar already played.
 */
export function stepBackTime(meta: SessionMeta, clock: string | null, playing: boolean, blocked: boolean): BranchAt {
  const why = blockedWhy(clock, playing, blocked);
  if (why) return none(why);
  let widthMs: number;
  try {
    widthMs = timeframeParts(meta.timeframe).widthS * 1000;
  } catch {
    return none(`Step back works on fixed timeframes, not ${meta.timeframe}`);
  }
  const now = Date.parse(clock!);
  const prev = now % widthMs === 0 ? now - widthMs : Math.floor(now / widthMs) * widthMs;
  if (meta.startTime === null || prev <= Date.parse(meta.startTime)) return none('At the session’s first bar: there is no earlier bar to step back to');
  return { time: new Date(prev).toISOString(), reason: null };
}

/** The current bar's close (the server's clock): the state before the commands sent at this time. */
export function branchHereTime(meta: SessionMeta, clock: string | null, playing: boolean, blocked: boolean): BranchAt {
  const why = blockedWhy(clock, playing, blocked);
  if (why) return none(why);
  if (meta.startTime === null || Date.parse(clock!) <= Date.parse(meta.startTime)) return none('No bar played yet: step or jump first');
  return { time: clock!, reason: null };
}

/** `15:02 CT`: a branch time as the note says it, in the chosen zone; with its date when not `ref`'s day. */
export function shortTime(iso: string, ref: string | null = null): string {
  const t = formatTime(iso);
  return `${ref !== null && formatTime(ref).slice(0, 10) !== t.slice(0, 10) ? t.slice(0, 16) : t.slice(11, 16)} ${zoneLabel()}`;
}

/**
 * "Branch at…": a time typed like the jump box's (`YYYY-MM-DD HH:MM`, the chosen zone), checked in
 * the trader's words before the server is asked: a bar close already played, on the timeframe's grid.
 */
export function typedBranchTime(meta: SessionMeta, clock: string | null, playing: boolean, blocked: boolean, text: string): BranchAt {
  const why = blockedWhy(clock, playing, blocked);
  if (why) return none(why);
  const iso = parseJumpBox(text.trim());
  if (iso === null) return none(`Branch at: write the time as YYYY-MM-DD HH:MM (${zoneLabel()})`);
  const at = (t: string) => `${jumpBoxText(t)} ${zoneLabel()}`;
  const ms = Date.parse(iso);
  if (meta.startTime === null || ms <= Date.parse(meta.startTime) || ms > Date.parse(clock!)) {
    return none(`Branch at: ${at(iso)} is not a bar already played; pick a time after the session's start, ${meta.startTime ? at(meta.startTime) : '—'}, and at most its clock, ${at(clock!)}`);
  }
  let widthMs = 0;
  try {
    widthMs = timeframeParts(meta.timeframe).widthS * 1000;
  } catch {
    // A calendar timeframe: the server checks its grid.
  }
  if (widthMs > 0 && ms % widthMs !== 0 && ms !== Date.parse(clock!)) return none(`Branch at: ${at(iso)} is not the close of a ${meta.timeframe} bar`);
  return { time: iso, reason: null };
}

/** Branches `meta`'s session at `time` and describes the new session (kept as this browser's current one). */
export async function branchAt(meta: SessionMeta, time: string, verb: 'Stepped back to' | 'Branched at', from: string | null): Promise<{ meta: SessionMeta; note: BranchNote }> {
  const r = await sim<{ accountId: number; branchTime: string }>('Replay/branch', { accountId: meta.accountId, time });
  const next = await describeSession(r.accountId);
  saveMeta(next);
  const text = `${verb} ${shortTime(r.branchTime, from)} on a branch of ${meta.accountName}; the original session is kept (Journal / live sessions)`;
  return { meta: next, note: { accountId: next.accountId, time: r.branchTime, text } };
}

/** The parent of a branch as the chip names it: live (resumable on the desk) or ended (its journal page). */
export interface ParentInfo {
  accountId: number;
  name: string;
  live: SessionMeta | null;
}

/** Reads the branch's parent: live when the console still lists it, else its name from the journal. */
async function readParent(accountId: number): Promise<ParentInfo> {
  try {
    const live = await describeSession(accountId);
    return { accountId, name: live.accountName, live };
  } catch (e) {
    if (!(e instanceof ApiError)) throw e;
  }
  const j = await auth<{ name: string }>('GET', `journal/${accountId}`).catch(() => null);
  return { accountId, name: j?.name ?? `account ${accountId}`, live: null };
}

export interface Branching {
  stepBack: BranchAt;
  branchHere: BranchAt;
  busy: boolean;
  error: string | null;
  /** What the last branch did, while the branch's clock is still its branch time. */
  note: string | null;
  parent: ParentInfo | null;
  run(at: BranchAt, verb: 'Stepped back to' | 'Branched at'): void;
  /** The "Branch at…" box's text, and its time (or why it does not apply). */
  typed: string;
  setTyped(v: string): void;
  /** Branches at the typed time, or says why not. */
  runTyped(): void;
  /** Resumes the parent on the desk (a live parent only). */
  resumeParent(): void;
}

export function useBranching(meta: SessionMeta, clock: string | null, playing: boolean, blocked: boolean): Branching {
  const desk = useContext(DeskSwitchContext);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [parent, setParent] = useState<ParentInfo | null>(null);
  const [typed, setTyped] = useState('');
  const parentId = meta.branch?.parentAccountId ?? null;
  useEffect(() => {
    if (parentId !== null) readParent(parentId).then(setParent, () => setParent({ accountId: parentId, name: `account ${parentId}`, live: null }));
  }, [parentId]);
  const n = desk?.note;
  const note = n && n.accountId === meta.accountId && (clock === null || Date.parse(clock) === Date.parse(n.time)) ? n.text : null;
  const run = (at: BranchAt, verb: 'Stepped back to' | 'Branched at') => {
    if (at.time === null || busy || !desk) return;
    setBusy(true);
    setError(null);
    branchAt(meta, at.time, verb, clock).then(
      (b) => desk.to(b.meta, b.note),
      (e) => {
        setBusy(false);
        setError(`Not branched: ${e instanceof Error ? e.message : String(e)}`);
      },
    );
  };
  // Described afresh: the parent may have moved (or ended) since the chip read it.
  const resumeParent = () => {
    if (!parent?.live || !desk) return;
    describeSession(parent.accountId).then(
      (m) => (saveMeta(m), desk.to(m, null)),
      (e) => setError(`Not resumed: ${e instanceof Error ? e.message : String(e)}`),
    );
  };
  const runTyped = () => {
    const at = typedBranchTime(meta, clock, playing, blocked, typed);
    if (at.time === null) setError(at.reason);
    else run(at, 'Branched at');
  };
  const stepBack = stepBackTime(meta, clock, playing, blocked);
  return { stepBack, branchHere: branchHereTime(meta, clock, playing, blocked), busy, error, note, parent, run, resumeParent, typed, setTyped, runTyped };
}

/**
 * ← steps back, as the replay bar's button does (keys.ts: not while a field takes the key, nor with
 * a modifier); a step back that does not apply (playing, the first bar) does nothing.
 */
export function useStepBackKey(b: Branching): void {
  const latest = useRef(b);
  latest.current = b;
  useEffect(() => {
    const h = (e: KeyboardEvent) => {
      if (e.key !== 'ArrowLeft' || e.ctrlKey || e.metaKey || e.altKey || e.shiftKey || isTyping(e.target, e.key)) return;
      e.preventDefault();
      const cur = latest.current;
      cur.run(cur.stepBack, 'Stepped back to');
    };
    addEventListener('keydown', h);
    return () => removeEventListener('keydown', h);
  }, []);
}
