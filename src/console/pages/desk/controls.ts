// The replay controls: step, jump, play, pause, speed, leave (the session stays live) and end
// (asked first). The server plays (Replay/play at
// 2 × speed bars a second, Replay/pause); the bars come back through the market hub (status.ts).
// Steps and jumps go through the core's queue with the hubs' bars, so they never overlap.

import { useEffect, useRef, useState } from 'preact/hooks';
import { sim } from '../../api.ts';
import type { ApiBar } from '../../chart.ts';
import { attempt } from '../../ui.tsx';
import type { Tables } from './book.ts';
import type { SessionCore } from './core.ts';
import type { Advance, PropFirm, Snapshot, Trade } from './model.ts';
import type { SessionFeed } from './session-feed.ts';
import { isPlayingRefusal } from './status.ts';
import { type Confirm, useConfirm } from './confirm.ts';
import { leaveCurrent, loadPlayedUntil, timeframeParts } from './model.ts';
import { clockAfter, jumpBoxText, parseJumpBox } from './sim-clock.ts';
import { zoneLabel } from '../../time-format.ts';

export interface ReplayControls {
  speed: number;
  setSpeed(v: number): void;
  /** A new speed while playing restarts the server's playback at it. */
  changeSpeed(v: number): void;
  /** The jump box's text: `YYYY-MM-DD HH:MM`, UTC (sim-clock.ts). */
  jumpAt: string;
  editJump(v: string): void;
  submitJump(): void;
  step(n: number): void;
  togglePlay(): void;
  /** Ending asks first: `confirmEnd.ask(true)` shows the question, `end()` ends. */
  confirmEnd: Confirm<true>;
  end(): void;
  /** Back to the start form; the session stays live, resumable from the live-sessions list. */
  leave(): void;
}


interface Parts {
  core: SessionCore;
  tables: Tables;
  session: SessionFeed;
}

export function useReplayControls(core: SessionCore, tables: Tables, session: SessionFeed, onLeave: (notice?: string) => void): ReplayControls {
  const [speed, setSpeed] = useState(5);
  const confirmEnd = useConfirm<true>();
  core.live.current.speed = speed;
  const p: Parts = { core, tables, session };
  const run = (f: () => Promise<void>) => attempt(core.setControlError, f);
  const play = (v = core.live.current.speed) => run(() => startPlay(core, v));
  const jump = useJumpTarget(clockAfter(session.lastTime, timeframeParts(core.meta.timeframe).widthS), (text) =>
    run(async () => {
      const iso = parseJumpBox(text);
      if (iso === null) throw new Error(`Jump to: write the time as YYYY-MM-DD HH:MM (${zoneLabel()}), not “${text}”`);
      await advance(p, 'Replay/jumpTo', { targetTime: iso }, false);
    }),
  );
  return {
    speed,
    setSpeed,
    changeSpeed: (v) => {
      if (core.live.current.playing && !core.live.current.over) play(v);
    },
    ...jump,
    step: (n) => run(() => advance(p, 'Replay/step', { steps: n }, true)),
    togglePlay: () => (core.live.current.playing ? run(() => pause(p)) : play()),
    confirmEnd,
    end: () => {
      confirmEnd.cancel();
      run(() => end(p));
    },
    // Unmounting the session pauses a playing session (session-feed.ts), so nothing plays unseen.
    leave: () => {
      if (core.live.current.over) return onLeave();
      leaveCurrent(core.accountId);
      onLeave(`${core.meta.accountName} is still live: resume it from the list on the right, or end it there.`);
    },
  };
}

/** Default jump target: an hour after the clock, until the user types one. */
function useJumpTarget(clock: string | null, jump: (text: string) => void): Pick<ReplayControls, 'jumpAt' | 'editJump' | 'submitJump'> {
  const [jumpAt, setJumpAt] = useState('');
  const edited = useRef(false);
  useEffect(() => {
    if (clock && !edited.current) setJumpAt(jumpBoxText(new Date(Date.parse(clock) + 3_600_000).toISOString()));
  }, [clock]);
  const editJump = (v: string) => {
    edited.current = true;
    setJumpAt(v);
  };
  const submitJump = () => {
    edited.current = false;
    if (jumpAt) jump(jumpAt);
  };
  return { jumpAt, editJump, submitJump };
}

/**
 * A step (its answer carries its bars) or a jump (its bars are read from History). A jump's bars are
 * asked for while the server plays them: the bars after the last one drawn, up to one bar past the
 * target; the jump's answer says how many of them it played.
 */
function advance({ core, session }: Parts, path: 'Replay/step' | 'Replay/jumpTo', body: Record<string, unknown>, withBars: boolean): Promise<void> {
  return core.serial(async () => {
    const L = core.live.current;
    if (L.over) return;
    const wanted = { count: null as number | null };
    const ahead = path === 'Replay/jumpTo' && L.lastTime ? jumpBars(core, L.lastTime, String(body.targetTime), wanted) : null;
    const r = await sim<Advance>(path, { accountId: core.accountId, ...body }).catch((e) => {
      wanted.count = 0;
      if (isPlayingRefusal(e)) core.setPlaying(true); // started elsewhere: Pause is the way on
      throw e;
    });
    const played = r.currentIndex - L.drawn;
    wanted.count = Math.max(played, 0);
    const read = ahead ? await ahead : null;
    // Fewer bars read than played (the server played past the target's bar): drawTo reads them itself.
    const bars = withBars ? (r.bars ?? []) : read && read.length >= played ? read.slice(0, Math.max(played, 0)) : null;
    await session.drawTo(r.currentIndex, bars);
    session.applyStatus(r);
  });
}

/** The bars a jump to `targetIso` will play (null when they cannot be read: drawTo reads them after). */
function jumpBars(core: SessionCore, lastTime: string, targetIso: string, wanted: { count: number | null }): Promise<ApiBar[] | null> {
  const endIso = new Date(Date.parse(targetIso) + timeframeParts(core.meta.timeframe).widthS * 1000).toISOString();
  return loadPlayedUntil(core.metaRef.current, lastTime, endIso, wanted).catch(() => null);
}

/** The server plays at 2 × speed bars a second; the bars come back through the market hub. */
async function startPlay(core: SessionCore, speed: number): Promise<void> {
  if (core.live.current.over) return;
  core.setAtEnd(false);
  core.setPlaying(true);
  try {
    await sim('Replay/play', { accountId: core.accountId, speed });
  } catch (e) {
    core.setPlaying(false);
    throw e;
  }
}

/**
 * Pauses the server's playback; its answer's snapshot is exact, and a status read lines the chart up
 * with it. The button reads Play once the server has paused (not while the pause is on its way, when
 * the server still plays and a step or jump would be refused).
 */
async function pause({ core, session }: Parts): Promise<void> {
  const r = await sim<{ account: Snapshot | null; propFirm: PropFirm | null }>('Replay/pause', { accountId: core.accountId });
  core.setPlaying(false);
  if (r.account) core.serverSnap(r.account);
  if (r.propFirm) session.setPropFirm(r.propFirm);
  await session.syncStatus();
}

async function end({ core, tables }: Parts): Promise<void> {
  const { accountId, live } = core;
  core.setPlaying(false);
  await core.serial(async () => {
    const r = await sim<{ ended: boolean; account: (Snapshot & { filledOrders: unknown[] }) | null }>('Replay/end', { accountId });
    const t = await sim<{ trades: Trade[] }>('Trade/search', { accountId }).catch(() => null);
    tables.setBook({ positions: [], orders: [], fills: t?.trades ?? live.current.book.fills });
    if (r.account) core.setSnap(r.account);
    core.finish('ended', r.account, null, t?.trades.length ?? 0);
    core.refreshChallenge();
  });
}
