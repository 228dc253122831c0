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

/** Risk ($), beside the brackets: blank leaves the size field as it is; set, the size is what it buys at the stop. */
export function RiskField({ m }: { m: TicketModel }) {
  return (
    <label class="risk-field" title="Dollars to risk: the size becomes what they buy at the stop-loss (or a Stop's price)">
      <span class="nowrap">
        Risk <span class="muted">($)</span>
      </span>
      <input name="riskUsd" type="number" min={0} step={1} placeholder="off" value={m.risk} onInput={(e) => m.setRisk(inputValue(e))} />
    </label>
  );
}

/** The size the risk buys and one contract's risk, with a note when capped or too small (only with a risk). */
export function RiskNote({ sizing }: { sizing: RiskSizing | null }) {
  if (sizing === null) return null;
  return (
    <p class={`risk-note small ${sizing.size === null || sizing.note ? 'warn' : 'muted'}`} data-testid="risk-note">
      {sizing.size !== null && (
        <>
          Size <b data-testid="risk-size">{sizing.size}</b>
          {sizing.perContract !== null && <> · {money(sizing.perContract)} a contract at the stop</>}
        </>
      )}
      {sizing.note && <span class="risk-why">{sizing.size !== null ? ' · ' : ''}{sizing.note}</span>}
    </p>
  );
}

/** The templates on one line (choosing one fills the bracket fields); Edit opens naming, renaming and deleting. */
export function TemplateBar({ m }: { m: TicketModel }) {
  const t = m.templates;
  const [editing, setEditing] = useState(false);
  return (
    <div class="template-bar" data-testid="templates">
      <div class="template-pick">
        <select name="template" aria-label="Bracket template" title="Bracket template: its stop-loss and take-profit fill the fields below (B/S place them)" value={t.chosen ?? ''} onChange={(e) => t.choose(inputValue(e) || null)}>
          <option value="">No bracket template</option>
          {t.list.map((x) => (
            <option key={x.name} value={x.name}>
              {x.name} — {describeTemplate(x)}
            </option>
          ))}
        </select>
        <button type="button" class={`small ghost ${editing ? 'on' : ''}`} aria-expanded={editing} data-testid="template-edit" onClick={() => setEditing(!editing)}>
          Edit
        </button>
      </div>
      {editing && <TemplateEdit t={t} />}
    </div>
  );
}

/** Save the bracket fields under a name (the same name replaces it), rename or delete the chosen template. */
function TemplateEdit({ t }: { t: TicketModel['templates'] }) {
  const [name, setName] = useState('');
  const [error, setError] = useState<string | null>(null);
  const act = (f: (n: string) => string | null) => {
    const e = f(name);
    setError(e);
    if (e === null) setName('');
  };
  const chosen = t.list.some((x) => x.name === t.chosen);
  return (
    <>
      <div class="template-edit">
        <input name="templateName" type="text" placeholder="template name" value={name} onInput={(e) => setName(inputValue(e))} aria-label="Template name" />
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
    </>
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
