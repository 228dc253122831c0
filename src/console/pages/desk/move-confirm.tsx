// The question a chart asks before a dragged order chip moves through the market (chart-rules.ts'
// dragHazard): the session's chart (session.tsx) and every pane beside it (pane.tsx) ask it alike.

import type { ChartTrading } from './chart-trading.ts';
import type { PriceFormat } from './core.ts';

/** A drag that would fill at once asks first (chart-rules.ts' dragHazard): move it, or keep the order where it is. */
export function MoveConfirm({ trading, fmt }: { trading: ChartTrading; fmt: PriceFormat }) {
  const m = trading.pendingMove!;
  return (
    <div class="chart-note move-confirm" role="alertdialog" aria-label="Move the order through the market" data-testid="move-confirm">
      <p>{m.question}</p>
      <div class="row">
        <button type="button" class="primary" onClick={trading.confirmMove} data-testid="move-yes">
          Move #{m.order.id} to {fmt.price(m.price)}
        </button>
        <button type="button" class="ghost" onClick={trading.keepOrder} data-testid="move-no">
          Keep it at {fmt.price(m.order.limitPrice ?? m.order.stopPrice)}
        </button>
      </div>
    </div>
  );
}
