// A tags editor: the tags as the server keeps them (lower case, sorted), typed as a comma-separated
// list; Save when changed (or Enter); an empty field clears them. One for the session, one per trade.

import { useState } from 'preact/hooks';
import { attempt, ErrorLine } from '../../ui.tsx';
import { saveTags } from './model.ts';

interface Props {
  accountId: number;
  tradeNumber: number | null;
  initial: readonly string[];
  /** Told the tags kept after each save (the page's filter lists them). */
  onSaved?: (tags: string[]) => void;
}

const split = (text: string) => text.split(',').map((t) => t.trim()).filter((t) => t !== '');

export function TagsEditor({ accountId, tradeNumber, initial, onSaved }: Props) {
  const [saved, setSaved] = useState(initial.join(', '));
  const [text, setText] = useState(saved);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const dirty = text !== saved;
  const save = async () => {
    if (!dirty || busy) return;
    setBusy(true);
    const kept = await attempt(setError, () => saveTags(accountId, tradeNumber, split(text)));
    setBusy(false);
    if (kept === undefined) return;
    setSaved(kept.join(', '));
    setText(kept.join(', '));
    onSaved?.(kept);
  };
  const id = tradeNumber === null ? 'session' : String(tradeNumber);
  return (
    <div class="tags-editor">
      <input
        type="text"
        value={text}
        placeholder="tags, comma separated"
        aria-label="Tags"
        data-testid={`tags-${id}`}
        onInput={(e) => setText((e.target as HTMLInputElement).value)}
        onKeyDown={(e) => {
          if (e.key !== 'Enter') return;
          e.preventDefault();
          void save();
        }}
      />
      {dirty && (
        <button type="button" class="small" disabled={busy} onClick={save} data-testid={`save-tags-${id}`}>
          {busy ? 'Saving…' : 'Save'}
        </button>
      )}
      <ErrorLine error={error} />
    </div>
  );
}
