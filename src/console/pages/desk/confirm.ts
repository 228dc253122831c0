// A command that asks first: `ask(subject)` shows the question, `cancel()` withdraws it, and the
// component runs the command on the second click. Used for ending a session (the desk's bar and
// the live-sessions list), which cannot be undone.

import { useState } from 'preact/hooks';

export interface Confirm<T> {
  /** What the question is about (null: no question open). */
  asked: T | null;
  ask(subject: T): void;
  cancel(): void;
}

export function useConfirm<T>(): Confirm<T> {
  const [asked, setAsked] = useState<T | null>(null);
  return { asked, ask: setAsked, cancel: () => setAsked(null) };
}
