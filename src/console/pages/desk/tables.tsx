// Positions, working orders and fills of the session (the challenge panel: challenge.tsx).

import { money, signClass, THead, utc } from '../../ui.tsx';
import { type Order, type Position, shownType, sideWord, type Trade } from './model.ts';
import type { TrailMemory } from './trailing.ts';
import { type Links, partners } from './oco-links.ts';
import { zoneLabel } from '../../time-format.ts';

interface Fmt {
  price: (p: number | null) => string;
}

/**
 * A session over several instruments (layout-model.ts): each row's contract, named in a first
 * column, and priced at its own tick and last price.
 */
export interface PerContract {
  name(contractId: string): string;
  fmt(contractId: string): Fmt;
  mark(contractId: string): { lastPrice: number | null; tickSize: number; tickValue: number };
}

const contractCell = (multi: PerContract | undefined, contractId: string) => multi && <td class="sym-cell">{multi.name(contractId)}</td>;
const contractColumn = (multi: PerContract | undefined) => (multi ? ['Contract'] : []);

export function PositionsTable({ positions, lastPrice, tickSize, tickValue, fmt, onClose, onReverse, closing, multi }: {
  positions: Position[];
  lastPrice: number | null;
  tickSize: number;
  tickValue: number;
  fmt: Fmt;
  onClose: (p: Position) => void;
  /** Flatten and open the other way in one market order (trading.ts reverse). */
  onReverse: (p: Position) => void;
  closing: boolean;
  multi?: PerContract;
}) {
  return (
    <section class="card table-card">
      <h3>
        Positions <span class="count">{positions.length}</span>
      </h3>
      <table data-testid="positions">
        <THead columns={[...contractColumn(multi), 'Side', { num: 'Size' }, { num: 'Avg price' }, { num: 'Open P&L' }, '']} />
        <tbody>
          {positions.map((p) => {
            const dir = p.type === 1 ? 1 : -1;
            const m = multi?.mark(p.contractId) ?? { lastPrice, tickSize, tickValue };
            const pnl = m.lastPrice === null ? null : ((m.lastPrice - p.averagePrice) / m.tickSize) * m.tickValue * p.size * dir;
            return (
              <tr key={p.contractId} data-contract={p.contractId}>
                {contractCell(multi, p.contractId)}
                <td class={p.type === 1 ? 'pos' : 'neg'}>{p.type === 1 ? 'Long' : 'Short'}</td>
                <td class="num">{p.size}</td>
                <td class="num">{(multi?.fmt(p.contractId) ?? fmt).price(p.averagePrice)}</td>
                <td class={`num ${signClass(pnl)}`}>{money(pnl)}</td>
                <td class="actions">
                  <button type="button" class="small" disabled={closing} onClick={() => onClose(p)}>
                    Flatten
                  </button>
                  <button type="button" class="small ghost" disabled={closing} onClick={() => onReverse(p)} aria-label="Reverse" title={`Reverse: one market order of ${2 * p.size}, ${p.type === 1 ? 'short' : 'long'} ${p.size} after it (R)`} data-testid="reverse">
                    Rev
                  </button>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      {positions.length === 0 && <p class="empty">Flat.</p>}
    </section>
  );
}

export function orderPrice(o: Order, fmt: Fmt): string {
  if (o.type === 3) return `${fmt.price(o.stopPrice)} → ${fmt.price(o.limitPrice)}`;
  if (o.type === 4) return fmt.price(o.stopPrice);
  if (o.type === 1) return fmt.price(o.limitPrice);
  return 'market';
}

export function OrdersTable({ orders, trailing, links, fmt, onCancel, canceling, multi }: {
  orders: Order[];
  trailing: TrailMemory['orders'];
  /** OCO links the desk asked for (oco-links.ts). */
  links: Links;
  fmt: Fmt;
  onCancel: (o: Order) => void;
  canceling: number | null;
  multi?: PerContract;
}) {
  const ids = orders.map((o) => o.id);
  return (
    <section class="card table-card">
      <h3>
        Working orders <span class="count">{orders.length}</span>
      </h3>
      <table data-testid="orders">
        <THead columns={[{ num: '#' }, ...contractColumn(multi), 'Side', 'Type', { num: 'Size' }, { num: 'Price' }, '']} />
        <tbody>
          {orders.map((o) => (
            <tr key={o.id} data-order-id={o.id} data-oco={partners(links, o.id, ids).join(' ') || undefined}>
              <td class="num muted">{o.id}</td>
              {contractCell(multi, o.contractId)}
              <td class={o.side === 0 ? 'pos' : 'neg'}>{sideWord(o.side)}</td>
              <td>
                {shownType(o, trailing)}
                <OcoTag ids={partners(links, o.id, ids)} />
              </td>
              <td class="num">{o.size}</td>
              <td class="num">{orderPrice(o, multi?.fmt(o.contractId) ?? fmt)}</td>
              <td class="actions">
                <button type="button" class="small ghost" disabled={canceling === o.id} onClick={() => onCancel(o)} aria-label={`Cancel order ${o.id}`}>
                  Cancel
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {orders.length === 0 && <p class="empty">No working orders.</p>}
    </section>
  );
}

/** `OCO #12`: the working orders one-cancels-other with this one. */
function OcoTag({ ids }: { ids: number[] }) {
  if (ids.length === 0) return null;
  return (
    <span class="oco-tag muted small" title="One-cancels-other: when one fills, the others are canceled">
      {' '}
      OCO {ids.map((id) => `#${id}`).join(' ')}
    </span>
  );
}

export function FillsTable({ fills, fmt, multi }: { fills: Trade[]; fmt: Fmt; multi?: PerContract }) {
  return (
    <section class="card table-card fills-card">
      <h3>
        Fills <span class="count">{fills.length}</span>
      </h3>
      <div class="scroll">
        <table data-testid="fills">
          <THead columns={[`Time (${zoneLabel()})`, ...contractColumn(multi), 'Side', { num: 'Size' }, { num: 'Price' }, { num: 'Fees' }, { num: 'Order' }]} />
          <tbody>
            {fills.map((t) => (
              <tr key={`${t.orderId}-${t.creationTimestamp}-${t.id}`}>
                <td class="mono">{utc(t.creationTimestamp)}</td>
                {contractCell(multi, t.contractId)}
                <td class={t.side === 0 ? 'pos' : 'neg'}>{sideWord(t.side)}</td>
                <td class="num">{t.size}</td>
                <td class="num">{(multi?.fmt(t.contractId) ?? fmt).price(t.price)}</td>
                <td class="num muted">{money(t.fees)}</td>
                <td class="num muted">#{t.orderId}</td>
              </tr>
            ))}
          </tbody>
        </table>
        {fills.length === 0 && <p class="empty">No fills yet.</p>}
      </div>
    </section>
  );
}
