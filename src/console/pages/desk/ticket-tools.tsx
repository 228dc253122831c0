// The ticket's order tools (layout; their state is ticket-model.ts): the dollars to risk and the
// size they buy (risk-size.ts), the bracket templates (templates-model.ts) and a one-cancels-other
// link to a working order (oco-links.ts).

import { useState } from 'preact/hooks';
import { money } from '../../ui.tsx';
import { type Order, sideWord, typeShort } from './model.ts';
import type { RiskSizing } from './risk-size.ts';
import type { TicketModel } from './ticket-model.ts';
import { describeTemplate } from './templates-model.ts';

const inputValue = (e: Event) => (e.target as HTMLInputElement).value;

/** Risk ($): blank leaves the size field as it is; set, the size is what it buys at the stop, with a note when capped or too small. */
export function RiskField({ m, sizing }: { m: TicketModel; sizing: RiskSizing | null }) {
  return (
    <div class="risk-row">
      <label class="risk-field">
        <span class="nowrap">
          Risk <span class="muted">($)</span>
        </span>
        <input name="riskUsd" type="number" min={0} step={1} placeholder="size by hand" value={m.risk} onInput={(e) => m.setRisk(inputValue(e))} />
      </label>
      {sizing && (
        <p class={`risk-note small ${sizing.size === null || sizing.note ? 'warn' : 'muted'}`} data-testid="risk-note">
          {sizing.size !== null && (
            <>
              Size <b data-testid="risk-size">{sizing.size}</b>
              {sizing.perContract !== null && <> · {money(sizing.perContract)} a contract at the stop</>}
            </>
          )}
          {sizing.note && <span class="risk-why"> {sizing.note}</span>}
        </p>
      )}
    </div>
  );
}

/** The templates: choose one (its legs fill the bracket fields), keep the fields under a name, rename or delete the chosen one. */
export function TemplateBar({ m }: { m: TicketModel }) {
  const t = m.templates;
  const [name, setName] = useState('');
  const [error, setError] = useState<string | null>(null);
  const act = (f: (n: string) => string | null) => {
    const e = f(name);
    setError(e);
    if (e === null) setName('');
  };
  const chosen = t.list.find((x) => x.name === t.chosen);
  return (
    <div class="template-bar" data-testid="templates">
      <label class="template-pick">
        Bracket template
        <select name="template" value={t.chosen ?? ''} onChange={(e) => t.choose(inputValue(e) || null)}>
          <option value="">None</option>
          {t.list.map((x) => (
            <option key={x.name} value={x.name}>
              {x.name} — {describeTemplate(x)}
            </option>
          ))}
        </select>
      </label>
      <div class="template-edit">
        <input name="templateName" type="text" placeholder="name" value={name} onInput={(e) => setName(inputValue(e))} aria-label="Template name" />
        <button type="button" class="small ghost" data-testid="template-save" title="Keep the stop-loss, take-profit and trailing below under this name" onClick={() => act(t.saveAs)}>
          Save
        </button>
        <button type="button" class="small ghost" data-testid="template-rename" disabled={!chosen} title="Give the chosen template this name" onClick={() => act(t.rename)}>
          Rename
        </button>
        <button type="button" class="small ghost" data-testid="template-delete" disabled={!chosen} onClick={() => (t.remove(), setError(null))}>
          Delete
        </button>
      </div>
      {error && (
        <p class="error small" role="alert" data-testid="template-error">
          {error}
        </p>
      )}
    </div>
  );
}

/** OCO with a working order: the ticket's next order joins it, one-cancels-other. */
export function OcoField({ m, orders, price }: { m: TicketModel; orders: readonly Order[]; price: (o: Order) => string }) {
  const { oco } = m;
  if (orders.length === 0) return null;
  const withId = oco.withId !== null && orders.some((o) => o.id === oco.withId) ? oco.withId : null;
  return (
    <label class="oco-pick" title="One-cancels-other: when either fills, the other is canceled">
      OCO with
      <select name="ocoWith" value={withId === null ? '' : String(withId)} onChange={(e) => oco.setWithId(inputValue(e) === '' ? null : Number(inputValue(e)))}>
        <option value="">None</option>
        {orders.map((o) => (
          <option key={o.id} value={String(o.id)}>
            #{o.id} {sideWord(o.side)} {o.size} {typeShort(o.type)} {price(o)}
          </option>
        ))}
      </select>
    </label>
  );
}
