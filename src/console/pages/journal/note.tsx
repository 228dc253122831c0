// A note editor: the text as the server keeps it, Save when changed (or Ctrl/Cmd+Enter), blank
// deletes. One for the session, one per trade.

import { useState } from 'preact/hooks';
import { attempt, ErrorLine } from '../../ui.tsx';
import { saveNote } from './model.ts';

interface Props {
  accountId: number;
  tradeNumber: number | null;
  initial: string;
  placeholder: string;
  /** A one-line field (trade rows) or a text area (the session). */
  multiline?: boolean;
}

export function NoteEditor({ accountId, tradeNumber, initial, placeholder, multiline }: Props) {
  const [saved, setSaved] = useState(initial);
  const [text, setText] = useState(initial);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [justSaved, setJustSaved] = useState(false);
  const dirty = text !== saved;
  const save = async () => {
    if (!dirty || busy) return;
    setBusy(true);
    const kept = await attempt(setError, () => saveNote(accountId, tradeNumber, text));
    setBusy(false);
    if (kept === undefined) return;
    setSaved(kept);
    setText(kept);
    setJustSaved(true);
  };
  const onKey = (e: KeyboardEvent) => {
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey || !multiline)) {
      e.preventDefault();
      void save();
    }
  };
  const onInput = (e: Event) => {
    setText((e.target as HTMLInputElement | HTMLTextAreaElement).value);
    setJustSaved(false);
  };
  const id = tradeNumber === null ? 'session' : String(tradeNumber);
  return (
    <div class={`note-editor ${multiline ? 'multi' : ''}`}>
      {multiline ? (
        <textarea rows={3} value={text} placeholder={placeholder} onInput={onInput} onKeyDown={onKey} data-testid={`note-${id}`} aria-label={placeholder} />
      ) : (
        <input type="text" value={text} placeholder={placeholder} onInput={onInput} onKeyDown={onKey} data-testid={`note-${id}`} aria-label={placeholder} />
      )}
      <button type="button" class="small" disabled={!dirty || busy} onClick={save} data-testid={`save-note-${id}`}>
        {busy ? 'Saving…' : 'Save'}
      </button>
      {justSaved && !dirty && (
        <span class="muted small" data-testid={`note-saved-${id}`}>
          Saved
        </span>
      )}
      <ErrorLine error={error} />
    </div>
  );
}
