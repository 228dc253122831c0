// The order ticket: market, limit, stop and stop-limit, size, and stop-loss / take-profit brackets
// in ticks. Errors from Order/place show under it.

import { useState } from 'preact/hooks';
import { ErrorLine } from '../../ui.tsx';
import { ORDER_TYPES } from './model.ts';

export interface TicketOrder {
  side: 0 | 1;
  type: number;
  size: number;
  limitPrice: number | null;
  stopPrice: number | null;
  slTicks: number | null;
  tpTicks: number | null;
}

interface Props {
  tickSize: number;
  decimals: number;
  lastPrice: number | null;
  disabled: boolean;
  error: string | null;
  busy: boolean;
  onPlace: (o: TicketOrder) => void;
  /** The ticket's size, shared with the B / S keys. */
  size: number;
  onSize: (n: number) => void;
}

const num = (v: string) => (v.trim() === '' ? null : Number(v));

export function Ticket({ tickSize, decimals, lastPrice, disabled, error, busy, onPlace, size, onSize }: Props) {
  const [type, setType] = useState(2);
  const [limit, setLimit] = useState('');
  const [stop, setStop] = useState('');
  const [sl, setSl] = useState('');
  const [tp, setTp] = useState('');
  const needsLimit = type === 1 || type === 3;
  const needsStop = type === 3 || type === 4;

  // A price field starts at the last price when its type is chosen.
  const choose = (t: number) => {
    setType(t);
    if (lastPrice === null) return;
    if ((t === 1 || t === 3) && limit === '') setLimit(lastPrice.toFixed(decimals));
    if ((t === 3 || t === 4) && stop === '') setStop(lastPrice.toFixed(decimals));
  };

  const nudge = (v: string, set: (s: string) => void, ticks: number) => {
    const base = v === '' ? (lastPrice ?? 0) : Number(v);
    set((Math.round(base / tickSize + ticks) * tickSize).toFixed(decimals));
  };

  const place = (side: 0 | 1) =>
    onPlace({
      side,
      type,
      size,
      limitPrice: needsLimit ? num(limit) : null,
      stopPrice: needsStop ? num(stop) : null,
      slTicks: num(sl),
      tpTicks: num(tp),
    });

  const label = ORDER_TYPES.find((t) => t.value === type)!.short;
  return (
    <section class="card ticket" data-testid="ticket">
      <div class="ticket-head">
        <h3>Order ticket</h3>
        <span class="muted small">
          <kbd>B</kbd> buy / <kbd>S</kbd> sell at market
        </span>
      </div>
      <div class="seg" role="radiogroup" aria-label="Order type">
        {ORDER_TYPES.map((t) => (
          <button type="button" key={t.value} class={t.value === type ? 'on' : ''} aria-pressed={t.value === type} onClick={() => choose(t.value)} data-type={t.label}>
            {t.label}
          </button>
        ))}
      </div>
      <div class={`ticket-grid ${needsStop && needsLimit ? 'two-prices' : ''}`}>
        <label class="size-field">
          Size
          <input name="size" type="number" min={1} max={1000} step={1} value={size} onInput={(e) => onSize(Number((e.target as HTMLInputElement).value))} />
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
              <input name="stopPrice" type="number" step={tickSize} value={stop} onInput={(e) => setStop((e.target as HTMLInputElement).value)} />
              <button type="button" class="small ghost" tabIndex={-1} onClick={() => nudge(stop, setStop, -1)}>
                −
              </button>
              <button type="button" class="small ghost" tabIndex={-1} onClick={() => nudge(stop, setStop, 1)}>
                +
              </button>
            </span>
          </label>
        )}
        {needsLimit && (
          <label class="price-field">
            Limit price
            <span class="price-in">
              <input name="limitPrice" type="number" step={tickSize} value={limit} onInput={(e) => setLimit((e.target as HTMLInputElement).value)} />
              <button type="button" class="small ghost" tabIndex={-1} onClick={() => nudge(limit, setLimit, -1)}>
                −
              </button>
              <button type="button" class="small ghost" tabIndex={-1} onClick={() => nudge(limit, setLimit, 1)}>
                +
              </button>
            </span>
          </label>
        )}
      </div>
      <div class="ticket-grid brackets">
        <label>
          <span class="nowrap">
            Stop-loss <span class="muted">(ticks)</span>
          </span>
          <input name="slTicks" type="number" min={1} step={1} placeholder="none" value={sl} onInput={(e) => setSl((e.target as HTMLInputElement).value)} />
        </label>
        <label>
          <span class="nowrap">
            Take-profit <span class="muted">(ticks)</span>
          </span>
          <input name="tpTicks" type="number" min={1} step={1} placeholder="none" value={tp} onInput={(e) => setTp((e.target as HTMLInputElement).value)} />
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
      <ErrorLine error={error} />
    </section>
  );
}
