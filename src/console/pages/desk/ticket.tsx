// The order ticket: market, limit, stop and stop-limit, size, and stop-loss / take-profit brackets
// in ticks (layout; its state is ticket-model.ts, which the B/S keys read too). Errors from
// Order/place show under it.

import { ErrorLine } from '../../ui.tsx';
import { ORDER_TYPES } from './model.ts';
import type { TicketModel, TicketOrder } from './ticket-model.ts';

export type { TicketOrder };

interface Props {
  ticket: TicketModel;
  tickSize: number;
  decimals: number;
  lastPrice: number | null;
  disabled: boolean;
  error: string | null;
  busy: boolean;
  onPlace: (o: TicketOrder) => void;
}

export function Ticket({ ticket: m, tickSize, decimals, lastPrice, disabled, error, busy, onPlace }: Props) {
  const { type, size, needsLimit, needsStop } = m;
  const nudge = (v: string, set: (s: string) => void, ticks: number) => {
    const base = v === '' ? (lastPrice ?? 0) : Number(v);
    set((Math.round(base / tickSize + ticks) * tickSize).toFixed(decimals));
  };
  const place = (side: 0 | 1) => onPlace(m.order(side));
  // A refused price or bracket (at or below 0, off the tick grid) shows under the prices it names.
  const priceError = error !== null && /price|bracket|stop-loss|take-profit|tick size/i.test(error);

  const label = ORDER_TYPES.find((t) => t.value === type)!.short;
  return (
    <section class="card ticket" data-testid="ticket">
      <div class="ticket-head">
        <h3>Order ticket</h3>
        <span class="muted small">
          <kbd>B</kbd> buy / <kbd>S</kbd> sell at market, with these brackets
        </span>
      </div>
      <div class="seg" role="radiogroup" aria-label="Order type">
        {ORDER_TYPES.map((t) => (
          <button type="button" key={t.value} class={t.value === type ? 'on' : ''} aria-pressed={t.value === type} onClick={() => m.choose(t.value, lastPrice, decimals)} data-type={t.label}>
            {t.label}
          </button>
        ))}
      </div>
      <div class={`ticket-grid ${needsStop && needsLimit ? 'two-prices' : ''}`}>
        <label class="size-field">
          Size
          <input name="size" type="number" min={1} max={1000} step={1} value={size} onInput={(e) => m.setSize(Number((e.target as HTMLInputElement).value))} />
        </label>
        {!needsStop && !needsLimit && (
          <label class="price-field">
            Price
            <span class="at-market" title="Fills at the next price">
              Market{lastPrice !== null && <span class="muted"> · last {lastPrice.toFixed(decimals)}</span>}
            </span>
          </label>
        )}
        {needsStop && (
          <label class="price-field">
            Stop price
            <span class="price-in">
              <input name="stopPrice" type="number" step={tickSize} value={m.stop} onInput={(e) => m.setStop((e.target as HTMLInputElement).value)} />
              <button type="button" class="small ghost" tabIndex={-1} onClick={() => nudge(m.stop, m.setStop, -1)}>
                −
              </button>
              <button type="button" class="small ghost" tabIndex={-1} onClick={() => nudge(m.stop, m.setStop, 1)}>
                +
              </button>
            </span>
          </label>
        )}
        {needsLimit && (
          <label class="price-field">
            Limit price
            <span class="price-in">
              <input name="limitPrice" type="number" step={tickSize} value={m.limit} onInput={(e) => m.setLimit((e.target as HTMLInputElement).value)} />
              <button type="button" class="small ghost" tabIndex={-1} onClick={() => nudge(m.limit, m.setLimit, -1)}>
                −
              </button>
              <button type="button" class="small ghost" tabIndex={-1} onClick={() => nudge(m.limit, m.setLimit, 1)}>
                +
              </button>
            </span>
          </label>
        )}
      </div>
      {priceError && (
        <div data-testid="ticket-price-error">
          <ErrorLine error={error} />
        </div>
      )}
      <div class="ticket-grid brackets">
        <label>
          <span class="nowrap">
            Stop-loss <span class="muted">(ticks)</span>
          </span>
          <input name="slTicks" type="number" min={1} step={1} placeholder="none" value={m.sl} onInput={(e) => m.setSl((e.target as HTMLInputElement).value)} />
        </label>
        <label>
          <span class="nowrap">
            Take-profit <span class="muted">(ticks)</span>
          </span>
          <input name="tpTicks" type="number" min={1} step={1} placeholder="none" value={m.tp} onInput={(e) => m.setTp((e.target as HTMLInputElement).value)} />
        </label>
      </div>
      <div class="ticket-actions">
        <button type="button" class="buy" disabled={disabled || busy} onClick={() => place(0)} data-testid="buy">
          Buy {size} {label}
        </button>
        <button type="button" class="sell" disabled={disabled || busy} onClick={() => place(1)} data-testid="sell">
          Sell {size} {label}
        </button>
      </div>
      {!priceError && <ErrorLine error={error} />}
    </section>
  );
}
