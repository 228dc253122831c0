// The desk's top bar: the instrument, the session's clock and progress, the hubs' link state and
// the replay controls (layout only; the commands are controls.ts').

import type { LinkState } from '../../hubs.ts';
import { ErrorLine, utc } from '../../ui.tsx';
import type { Progress } from './chart-bars.ts';
import type { ReplayControls } from './controls.ts';
import type { SessionMeta } from './model.ts';
import { ContractName } from './contract-label.tsx';
import { zoneLabel } from '../../time-format.ts';
import { type Branching, shortTime, useBranching, useStepBackKey } from './branching.ts';
import '../branching.css';

const LINK_WORD: Record<LinkState, string> = { connecting: 'Connecting', up: 'Live', reconnecting: 'Reconnecting…', down: 'Offline' };
const LINK_TITLE: Record<LinkState, string> = {
  connecting: 'Connecting to the real-time hubs',
  up: 'The chart and the tables follow the session as it moves, from any tab',
  reconnecting: 'The real-time connection dropped; reconnecting (the tables are read again once it is back)',
  down: 'No real-time connection: reload the page to try again',
};

interface BarProps {
  meta: SessionMeta;
  /** The server's clock, the simulated now (ISO). */
  clock: string | null;
  progress: Progress;
  link: LinkState;
  controls: ReplayControls;
  playing: boolean;
  /** The session is over or still loading: no command applies. */
  blocked: boolean;
  /** The session has ended: the badge says so, not the hubs' link. */
  ended: boolean;
  error: string | null;
  /** What the last move did or why the chart is behind, shown until it no longer applies. */
  notes: (string | null)[];
}

export function ReplayBar({ meta, clock, progress, link, controls, playing, blocked, ended, error, notes }: BarProps) {
  const branching = useBranching(meta, clock, playing, blocked);
  useStepBackKey(branching);
  const pct = progress.totalBars ? (100 * progress.currentIndex) / progress.totalBars : 0;
  return (
    <header class="card desk-bar">
      <div class="bar-row">
        <div class="instrument">
          <ContractName contract={meta.contract} at={clock} />
          <span class="muted desc" title={meta.contract.description}>{meta.contract.description}</span>
          <span class="chip">{meta.timeframe}</span>
          {meta.challengeName && meta.branch?.practiceOf == null && <span class="chip chip-warn">{meta.challengeName}</span>}
        </div>
        <div class="clock">
          <span class="mono" data-testid="sim-time" data-iso={clock ?? ''} title="Simulated now, as the server keeps it: the close of the last bar played (bars are named by their open)">
            {clock ? utc(clock) : '—'}
          </span>
          <span class="muted small">{zoneLabel()}</span>
          <div class="progress" title={`${progress.currentIndex} of ${progress.totalBars} bars`}>
            <div style={{ width: `${pct}%` }} />
          </div>
          <span class="mono small muted" data-testid="progress">
            {progress.currentIndex.toLocaleString('en-US')} / {progress.totalBars.toLocaleString('en-US')}
          </span>
          {ended ? (
            <span class="link link-ended" data-testid="link" data-state="ended" title="The session has ended: nothing moves any more">
              Ended
            </span>
          ) : (
            <span class={`link link-${link}`} data-testid="link" data-state={link} title={LINK_TITLE[link]}>
              {LINK_WORD[link]}
            </span>
          )}
        </div>
        <ControlButtons controls={controls} playing={playing} blocked={blocked} />
      </div>
      <div class="branch-line">
        <BranchButtons b={branching} />
        <BranchChip meta={meta} b={branching} />
      </div>
      <ErrorLine error={error ?? branching.error} />
      {branching.note && (
        <p class="bar-note branch-note" data-testid="branch-note">
          {branching.note}
        </p>
      )}
      {notes.filter((n) => n !== null).map((n) => (
        <p class="bar-note" data-testid="bar-note" key={n}>
          {n}
        </p>
      ))}
    </header>
  );
}

/**
 * On a branch: its parent and branch time (the parent resumed on the desk when it is live, else its
 * journal page), and "practice" on a challenge session's branch (never the evaluation).
 */
function BranchChip({ meta, b }: { meta: SessionMeta; b: Branching }) {
  const br = meta.branch;
  if (!br) return null;
  const name = b.parent?.name ?? `account ${br.parentAccountId}`;
  const text = `Branch of ${name} at ${shortTime(br.time)}`;
  return (
    <>
      {b.parent?.live ? (
        <button type="button" class="chip chip-branch" onClick={b.resumeParent} data-testid="branch-parent" title={`Resume ${name} on the desk (it is still live); this branch stays live too`}>
          {text} · resume
        </button>
      ) : (
        <a class="chip chip-branch" href={`#/journal?id=${br.parentAccountId}`} data-testid="branch-parent" title={`${name} has ended: open it in the journal`}>
          {text}
        </a>
      )}
      {br.practiceOf !== null && (
        <span class="chip chip-warn" data-testid="branch-practice" title={`A practice branch of challenge account ${br.practiceOf}: its rules are shown and applied to this copy, but it never counts for the evaluation and never takes a payout`}>
          practice
        </span>
      )}
    </>
  );
}

/** Step back (a branch at the previous bar's close) and Branch here (at the current one); each says why when it does not apply. */
function BranchButtons({ b }: { b: Branching }) {
  const back = b.stepBack;
  const here = b.branchHere;
  return (
    <div class="branch-controls">
      <button type="button" onClick={() => b.run(back, 'Stepped back to')} disabled={back.time === null || b.busy} data-testid="step-back"
        title={back.reason ?? `Step back to ${shortTime(back.time!)} (←): a new session branched at the previous bar; this one is kept`}>
        Step back <kbd>←</kbd>
      </button>
      <button type="button" onClick={() => b.run(here, 'Branched at')} disabled={here.time === null || b.busy} data-testid="branch-here"
        title={here.reason ?? `Branch here, at ${shortTime(here.time!)}, before the orders sent at this bar: a new session; this one is kept`}>
        Branch here
      </button>
      <TimeForm cls="branch-at" name="branchAt" value={b.typed} onEdit={b.setTyped} onSubmit={b.runTyped} label="Branch at" title={`Branch at a bar already played: its close, ${zoneLabel()}, 24-hour`}>
        <button type="submit" disabled={here.time === null || b.busy || !b.typed.trim()} data-testid="branch-at" title={here.reason ?? 'A new session as this one stood at that bar close; this one is kept'}>
          Branch at…
        </button>
      </TimeForm>
    </div>
  );
}

function ControlButtons({ controls: c, playing, blocked }: { controls: ReplayControls; playing: boolean; blocked: boolean }) {
  return (
    <div class="controls">
      <button type="button" onClick={() => c.step(1)} disabled={playing || blocked} data-testid="step" title="Step one bar (→ or N)">
        Step <kbd>→</kbd>
      </button>
      <button type="button" onClick={() => c.step(10)} disabled={playing || blocked} title="Step ten bars (Shift+→)">
        ×10
      </button>
      <button type="button" class={playing ? 'primary' : ''} onClick={c.togglePlay} disabled={blocked} data-testid="play" title="Play / pause (Space)">
        {playing ? 'Pause' : 'Play'} <kbd>Space</kbd>
      </button>
      <label class="speed" title="Speed: 2 × speed bars a second">
        <span>
          Speed <span class="mono speed-val">{c.speed}</span>
        </span>
        <input
          type="range"
          min={1}
          max={50}
          value={c.speed}
          onInput={(e) => c.setSpeed(Number((e.target as HTMLInputElement).value))}
          onChange={(e) => c.changeSpeed(Number((e.target as HTMLInputElement).value))}
          name="speed"
        />
      </label>
      <TimeForm cls="jump" name="jumpTo" value={c.jumpAt} onEdit={c.editJump} onSubmit={c.submitJump} label="Jump to" title={`Jump to this time, ${zoneLabel()}, 24-hour: YYYY-MM-DD HH:MM`}>
        <button type="submit" disabled={playing || blocked} data-testid="jump" title={playing ? 'Pause to jump' : undefined}>
          Jump
        </button>
      </TimeForm>
      <button type="button" class="ghost" onClick={c.leave} data-testid="leave" title="Back to the start form; the session stays live and can be resumed">
        Leave
      </button>
      <button type="button" class="ghost end" onClick={() => c.confirmEnd.ask(true)} disabled={blocked} data-testid="end">
        End session
      </button>
      {c.confirmEnd.asked && <EndConfirm controls={c} />}
    </div>
  );
}

/** A time typed as `YYYY-MM-DD HH:MM` in the chosen zone (the jump box, Branch at…), with its button. */
function TimeForm(p: { cls: string; name: string; value: string; onEdit: (v: string) => void; onSubmit: () => void; label: string; title: string; children: preact.ComponentChildren }) {
  return (
    <form
      class={p.cls}
      onSubmit={(e) => {
        e.preventDefault();
        p.onSubmit();
      }}
    >
      <input
        type="text"
        name={p.name}
        value={p.value}
        placeholder="YYYY-MM-DD HH:MM"
        spellcheck={false}
        autocomplete="off"
        onInput={(e) => p.onEdit((e.target as HTMLInputElement).value)}
        aria-label={`${p.label} (${zoneLabel()}, YYYY-MM-DD HH:MM)`}
        title={p.title}
      />
      {p.children}
    </form>
  );
}

function EndConfirm({ controls: c }: { controls: ReplayControls }) {
  return (
    <div class="end-confirm" role="alertdialog" aria-label="End the session" data-testid="end-confirm">
      <p>
        <strong>End this session?</strong> Working orders are canceled, positions are closed at the last price, and the session cannot be resumed.
      </p>
      <div class="row">
        <button type="button" class="sell" onClick={c.end} data-testid="end-yes">
          End session
        </button>
        <button type="button" class="ghost" onClick={c.confirmEnd.cancel} data-testid="end-no">
          Keep it
        </button>
      </div>
    </div>
  );
}
