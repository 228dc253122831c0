// The desk's keyboard: → or N steps one bar (Shift: ten), Space plays or pauses, B and S buy and
// sell at market (the ticket's size and brackets: a chosen template's), R reverses the ticket
// contract's position, C cancels every working order and F flattens every position. ← steps back
// (a branch at the previous bar: branching.ts useStepBackKey, beside the replay bar's button).
// Keys a field takes (isTyping), or with a modifier, are left alone.

import { useEffect, useRef } from 'preact/hooks';

export interface KeyCommands {
  step(n: number): void;
  togglePlay(): void;
  market(side: 0 | 1): void;
  cancelAll(): void;
  flattenAll(): void;
  reverse(): void;
}

/**
 * Whether the focused field takes key `k` itself. A checkbox takes none: the keys stay the desk's
 * (as on a button) once it has been clicked. A number field (the ticket's) or a slider (the speed)
 * takes no letter and no space: after typing a size or touching the speed, B, S, Space… are the
 * desk's; their arrows stay theirs (a cursor, a value).
 */
export function isTyping(t: EventTarget | null, k: string): boolean {
  const el = t as HTMLElement | null;
  if (!el) return false;
  const tag = el.tagName;
  if (tag === 'INPUT') {
    const type = (el as HTMLInputElement).type;
    if (type === 'checkbox') return false;
    if (type === 'number' || type === 'range') return k.startsWith('Arrow');
    return true;
  }
  return tag === 'TEXTAREA' || tag === 'SELECT' || el.isContentEditable;
}

/** `blocked`: the session is over or loading; `playing`: steps wait for a pause. */
export function useDeskKeys(blocked: boolean, playing: boolean, commands: KeyCommands): void {
  const keys = useRef<(e: KeyboardEvent) => void>(() => {});
  keys.current = (e: KeyboardEvent) => {
    if (e.ctrlKey || e.metaKey || e.altKey || isTyping(e.target, e.key) || blocked) return;
    const k = e.key;
    if (k === 'ArrowRight' || k === 'n' || k === 'N') {
      e.preventDefault();
      if (!playing) commands.step(e.shiftKey ? 10 : 1);
    } else if (k === ' ') {
      e.preventDefault();
      commands.togglePlay();
    } else if (k === 'b' || k === 'B') {
      e.preventDefault();
      commands.market(0);
    } else if (k === 's' || k === 'S') {
      e.preventDefault();
      commands.market(1);
    } else if (k === 'c' || k === 'C') {
      e.preventDefault();
      commands.cancelAll();
    } else if (k === 'f' || k === 'F') {
      e.preventDefault();
      commands.flattenAll();
    } else if (k === 'r' || k === 'R') {
      e.preventDefault();
      commands.reverse();
    }
  };
  useEffect(() => {
    const h = (e: KeyboardEvent) => keys.current(e);
    addEventListener('keydown', h);
    return () => removeEventListener('keydown', h);
  }, []);
}
