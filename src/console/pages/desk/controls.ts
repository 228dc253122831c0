// The replay controls: step, jump, play, pause, speed, leave (the session stays live) and end
// (asked first). The server plays (Replay/play at
// 2 × speed bars a second, Replay/pause); the bars come back through the market hub (status.ts).
// Steps and jumps go through the core's queue with the hubs' bars, so they never overlap.

import { useEffect, useRef, useState } from 'preact/hooks';
import { sim } from '../../api.ts';
import { attempt } from '../../ui.tsx';
import type { Tables } from './book.ts';
import type { SessionCore } from './core.ts';
import type { Advance, PropFirm, Snapshot, Trade } from './model.ts';
import type { SessionFeed } from './session-feed.ts';
import { isPlayingRefusal } from './status.ts';
import { type Confirm, useConfirm } from './confirm.ts';
import { leaveCurrent } from './model.ts';
import { jumpBoxText, parseJumpBox } from './sim-clock.ts';
import { formatTime, zoneLabel } from '../../time-format.ts';

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
  const jump = useJumpTarget(session.clock, (text) =>
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
 * A step (its answer carries its bars) or a jump (its bars, and the server's clock, are read after
 * its answer through the console's own read: never History's budget). A jump that played nothing
 * says why: the time was not ahead of the session's clock, the market was closed, or the data ended.
 */
function advance({ core, session }: Parts, path: 'Replay/step' | 'Replay/jumpTo', body: Record<string, unknown>, withBars: boolean): Promise<void> {
  return core.serial(async () => {
    const L = core.live.current;
    if (L.over) return;
    core.setNotice(null);
    const before = L.clock;
    const r = await sim<Advance>(path, { accountId: core.accountId, ...body }).catch((e) => {
      if (isPlayingRefusal(e)) core.setPlaying(true); // started elsewhere: Pause is the way on
      throw e;
    });
    if (withBars) await session.drawTo(r.currentIndex, r.bars ?? []);
    else await session.catchUp().catch(() => null);
    session.applyStatus(r);
    if (!withBars && r.barsProcessed === 0) core.setNotice(jumpNotice(String(body.targetTime), before, L.clock, r));
  });
}

/** Why a jump played no bar, in the trader's words and zone. */
function jumpNotice(target: string, before: string | null, after: string | null, r: Advance): string | null {
  const at = (iso: string | null) => (iso ? `${formatTime(iso).slice(0, 16)} ${zoneLabel()}` : 'its start');
  if (before !== null && Date.parse(target) <= Date.parse(before)) {
    return `Not moved: ${at(target)} is not after the session's clock, ${at(before)}. Replay only moves forward; jump to a later time.`;
  }
  if (r.currentIndex >= r.totalBars && r.totalBars > 0) return null; // the end-of-data note says it
  if (after !== null && after !== before) return `No bars from ${at(before)} to ${at(after)}: the market was closed. The clock moved to ${at(after)}.`;
  return `Not moved: no bar closes before ${at(target)}.`;
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
