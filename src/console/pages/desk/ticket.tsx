// The order ticket: market, limit, stop, stop-limit and trailing stop (its trail in ticks), size, and
// stop-loss (plain or trailing) / take-profit brackets in ticks (layout; its state is ticket-model.ts,
// which the B/S keys read too). Errors from Order/place show under it. Its order tools (risk sizing,
// bracket templates, OCO with a working order) are ticket-tools.tsx.

import { ErrorLine } from '../../ui.tsx';
import { type Order, ORDER_TYPES } from './model.ts';
import type { RiskContext, TicketModel, TicketOrder } from './ticket-model.ts';
import { OcoField, RiskField, RiskNote, TemplateBar } from './ticket-tools.tsx';

export type { TicketOrder };

interface Props {
  ticket: TicketModel;
  tickSize: number;
  decimals: number;
  lastPrice: number | null;
  disabled: boolean;
  error: string | null;
  busy: boolean;
  /** The Buy (0) and Sell (1) buttons: the ticket's order, sized by its risk when it has one. */
  onPlace: (side: 0 | 1) => void;
  /** What sizing by risk knows of the contract and the plan. */
  risk: RiskContext;
  /** The contract's working orders, to link the next order with (OCO). */
  orders: readonly Order[];
  orderPrice: (o: Order) => string;
  /** The contract it trades, named when the session has several. */
  contractName?: string;
}

const TYPE_HINTS: Record<number, string> = { 5: 'Trailing stop: its stop follows the price at the trail, and fires when the price turns back to it' };

const inputValue = (e: Event) => (e.target as HTMLInputElement).value;

export function Ticket({ ticket: m, tickSize, decimals, lastPrice, disabled, error, busy, onPlace, contractName, risk, orders, orderPrice }: Props) {
  const { type } = m;
  const sizing = m.sizing(risk);
  // Sized by risk: the size it buys (none: the buttons say so and place nothing).
  const size = sizing === null ? m.size : sizing.size;
  // A refused price or bracket (at or below 0, off the tick grid) shows under the prices it names.
  const priceError = error !== null && /price|bracket|stop-loss|take-profit|tick size/i.test(error);

  const label = ORDER_TYPES.find((t) => t.value === type)!.short;
  return (
    <section class="card ticket" data-testid="ticket">
      <div class="ticket-head">
        <h3>
          Order ticket{contractName && <span class="sym ticket-contract" data-testid="ticket-contract"> {contractName}</span>}
        </h3>
        <span class="muted small ticket-keys">
          <kbd>B</kbd> buy / <kbd>S</kbd> sell at market, with these brackets
        </span>
      </div>
      <div class="seg" role="radiogroup" aria-label="Order type">
        {ORDER_TYPES.map((t) => (
          <button type="button" key={t.value} class={t.value === type ? 'on' : ''} aria-pressed={t.value === type} title={TYPE_HINTS[t.value]} onClick={() => m.choose(t.value, lastPrice, decimals)} data-type={t.label}>
            {t.label}
          </button>
        ))}
      </div>
      <PriceFields m={m} size={size} tickSize={tickSize} decimals={decimals} lastPrice={lastPrice} />
      {priceError && (
        <div data-testid="ticket-price-error">
          <ErrorLine error={error} />
        </div>
      )}
      <TemplateBar m={m} />
      <BracketFields m={m} />
      <RiskNote sizing={sizing} />
      {/* A market order fills at once: linking it would only cancel the other. */}
      {type !== 2 && <OcoField m={m} orders={orders} price={orderPrice} />}
      <div class="ticket-actions">
        <button type="button" class="buy" disabled={disabled || busy} onClick={() => onPlace(0)} data-testid="buy">
          Buy {size ?? '—'} {label}
        </button>
        <button type="button" class="sell" disabled={disabled || busy} onClick={() => onPlace(1)} data-testid="sell">
          Sell {size ?? '—'} {label}
        </button>
      </div>
      {!priceError && <ErrorLine error={error} />}
    </section>
  );
}

/** The size and the prices the type needs: none at market, a stop, a limit, both, or a trail in ticks. */
function PriceFields({ m, size, tickSize, decimals, lastPrice }: { m: TicketModel; size: number | null; tickSize: number; decimals: number; lastPrice: number | null }) {
  const { needsLimit, needsStop, needsTrail } = m;
  const nudge = (v: string, set: (s: string) => void, ticks: number) => {
    const base = v === '' ? (lastPrice ?? 0) : Number(v);
    set((Math.round(base / tickSize + ticks) * tickSize).toFixed(decimals));
  };
  const price = (title: string, name: string, v: string, set: (s: string) => void) => (
    <label class="price-field">
      {title}
      <span class="price-in">
        <input name={name} type="number" step={tickSize} value={v} onInput={(e) => set(inputValue(e))} />
        <button type="button" class="small ghost" tabIndex={-1} onClick={() => nudge(v, set, -1)}>
          −
        </button>
        <button type="button" class="small ghost" tabIndex={-1} onClick={() => nudge(v, set, 1)}>
          +
        </button>
      </span>
    </label>
  );
  return (
    <div class={`ticket-grid ${needsStop && needsLimit ? 'two-prices' : ''}`}>
      <label class="size-field">
        Size
        <input
          name="size"
          type="number"
          min={1}
          max={1000}
          step={1}
          value={size ?? ''}
          readOnly={m.risk.trim() !== ''}
          title={m.risk.trim() !== '' ? 'Sized by the risk below: clear it to size by hand' : undefined}
          onInput={(e) => m.setSize(Number(inputValue(e)))}
        />
      </label>
      {!needsStop && !needsLimit && !needsTrail && (
        <label class="price-field">
          Price
          <span class="at-market" title="Fills at the next price">
            Market{lastPrice !== null && <span class="muted"> · last {lastPrice.toFixed(decimals)}</span>}
          </span>
        </label>
      )}
      {needsStop && price('Stop price', 'stopPrice', m.stop, m.setStop)}
      {needsLimit && price('Limit price', 'limitPrice', m.limit, m.setLimit)}
      {needsTrail && <TrailField m={m} tickSize={tickSize} decimals={decimals} />}
    </div>
  );
}

/** A trailing stop's trail in ticks, with the distance it is in price. */
function TrailField({ m, tickSize, decimals }: { m: TicketModel; tickSize: number; decimals: number }) {
  const ticks = m.trail.trim() === '' ? null : Number(m.trail);
  return (
    <label class="price-field">
      <InTicks name="Trail" />
      <span class="price-in">
        <input name="trailTicks" type="number" min={1} step={1} placeholder="ticks" value={m.trail} onInput={(e) => m.setTrail(inputValue(e))} />
        <span class="trail-price muted" data-testid="trail-price" title="The trail in price: the stop starts this far from the last price and follows it">
          {ticks !== null && Number.isFinite(ticks) ? `= ${(ticks * tickSize).toFixed(decimals)}` : `× ${tickSize}`}
        </span>
      </span>
    </label>
  );
}

/** A field's name with its unit: `Stop-loss (ticks)`. */
function InTicks({ name }: { name: string }) {
  return (
    <span class="nowrap">
      {name} <span class="muted">(ticks)</span>
    </span>
  );
}

/** A bracket's distance from the entry, in ticks (blank: none). */
function BracketTicks({ label, name, value, onSet }: { label: string; name: string; value: string; onSet: (v: string) => void }) {
  return (
    <label>
      <InTicks name={label} />
      <input name={name} type="number" min={1} step={1} placeholder="none" value={value} onInput={(e) => onSet(inputValue(e))} />
    </label>
  );
}

/** Stop-loss and take-profit in ticks from the entry (a trailing stop-loss trails by its ticks), and the dollars to risk. */
function BracketFields({ m }: { m: TicketModel }) {
  return (
    <>
      <div class="ticket-grid brackets">
        <BracketTicks label="Stop-loss" name="slTicks" value={m.sl} onSet={m.setSl} />
        <BracketTicks label="Take-profit" name="tpTicks" value={m.tp} onSet={m.setTp} />
        <RiskField m={m} />
      </div>
      <label class="check sl-trailing" title="The stop-loss follows the price by its ticks instead of resting at the entry's distance">
        <input type="checkbox" name="slTrailing" checked={m.slTrailing} onChange={(e) => m.setSlTrailing((e.target as HTMLInputElement).checked)} />
        Trailing stop-loss <span class="muted">(its ticks are the trail)</span>
      </label>
    </>
  );
}
