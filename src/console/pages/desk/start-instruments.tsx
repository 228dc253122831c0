// The start form's other instruments: a session may replay up to four instruments side by side on
// one clock and one account (Replay/start's `instrumentSymbols`, issue 34). The first is the form's
// Instrument; these join it, each chart beside the others.

import '../desk-panes.css';
import { instrumentForContractId } from '../../../domain/contract-id.ts';
import { MAX_PANES } from './layout-model.ts';
import type { Contract } from './model.ts';

interface Props {
  contracts: readonly Contract[];
  /** The form's Instrument: never offered again. */
  first: string;
  extras: readonly string[];
  setExtras(ids: string[]): void;
}

/** The picked instruments as chips (each removable) and a select to add one more, up to four in all. */
export function MoreInstruments({ contracts, first, extras, setExtras }: Props) {
  const offered = contracts.filter((c) => c.id !== first && !extras.includes(c.id));
  const nameOf = (id: string) => contracts.find((c) => c.id === id)?.name ?? id;
  return (
    <div class="span-2 more-instruments" data-testid="more-instruments">
      <span class="label">
        Side by side <span class="muted">(optional, one clock and one account)</span>
      </span>
      <div class="more-row">
        {extras.map((id) => (
          <span class="chip picked" key={id} data-testid="picked-instrument">
            {nameOf(id)}
            <button type="button" class="small ghost" aria-label={`Remove ${nameOf(id)}`} onClick={() => setExtras(extras.filter((x) => x !== id))}>
              ×
            </button>
          </span>
        ))}
        {extras.length < MAX_PANES - 1 && (
          <select name="addInstrument" value="" onChange={(e) => {
            const id = (e.target as HTMLSelectElement).value;
            if (id) setExtras([...extras, id]);
          }}>
            <option value="">+ Add an instrument…</option>
            {offered.map((c) => (
              <option value={c.id} key={c.id}>
                {c.name} — {c.description}
              </option>
            ))}
          </select>
        )}
      </div>
    </div>
  );
}

/**
 * Replay/start's instruments for the form: `instrumentSymbols` (the first the form's Instrument)
 * when other instruments join it, else the spec's `contractId` alone.
 */
export function instrumentsBody(first: string, extras: readonly string[]): Record<string, unknown> {
  const live = extras.filter((id) => id !== first);
  if (live.length === 0) return { contractId: first };
  return { instrumentSymbols: [first, ...live].map((id) => instrumentForContractId(id, 'all')?.symbol ?? id) };
}

/** The session's instruments in the order started, as the form's list describes them. */
export function pickedContracts(contracts: readonly Contract[], first: string, extras: readonly string[]): Contract[] | undefined {
  if (extras.length === 0) return undefined;
  return [first, ...extras].map((id) => contracts.find((c) => c.id === id)).filter((c): c is Contract => c !== undefined);
}
