// Playground runs (Pro, session cookie): POST run, POST stop, POST speed, and what the spec leaves
// out: GET executions/:id to poll an execution, GET executions/:id/events, a Server-Sent Events
// stream of the same progress for the console, and every trade of a run, paged
// (GET executions/:id/trades) or as CSV (GET executions/:id/trades.csv). Endpoints declared in schemas.ts.

import type { Elysia } from 'elysia';
import type { ExecutionEvent } from '../../service/playground/execution.ts';
import type { ExecutionView, TradesPage } from '../../service/playground/runs.ts';
import { limits } from '../../config.ts';
import type { Services } from '../../service/services.ts';
import { mapError } from '../shared/code-table.ts';
import { jsonText, successBody } from '../shared/envelope.ts';
import { route } from '../shared/endpoint.ts';
import { eventStream } from '../shared/sse.ts';
import { presentExecution, presentProgress, presentTrade, presentTradesCsvRows } from './present-execution.ts';
import { kept } from './kept.ts';
import * as codes from './run-codes.ts';
import * as ep from './schemas.ts';

/** Progress events at most this often (the last one before `done` always goes out). */
const EVENT_INTERVAL_MS = limits.playgroundRunEventIntervalMs;

export function registerRuns<P extends string>(app: Elysia<P>, s: Services): void {
  route(app, s, ep.run, async ({ body, user }) => {
    const r = await s.runs.start(user.id, kept(body));
    if (r.ok) return ep.run.ok({ executionId: r.value.executionId, status: 'running', queued: r.value.queued });
    return mapError(codes.run, r.error, r.error.kind === 'already_running' ? { executionId: r.error.executionId } : {});
  });

  route(app, s, ep.stop, async ({ user }) => {
    const r = await s.runs.stop(user.id);
    return r.ok ? ep.stop.ok({ executionId: r.value.executionId }) : mapError(codes.stop, r.error);
  });

  route(app, s, ep.speed, async ({ body, user }) => {
    const r = await s.runs.setSpeed(user.id, body.speed === ep.FULL_SPEED ? null : body.speed);
    return r.ok ? ep.speed.ok({ executionId: r.value.executionId }) : mapError(codes.speed, r.error);
  });

  // A running execution's view is shared by its readers for a moment (service/playground/run-views.ts, LIVE_VIEW_MAX_AGE_MS):
  // so is its answer's body (a client polling at 50 Hz had it presented and serialised each time).
  const bodies = new WeakMap<ExecutionView, string>();
  route(app, s, ep.execution, async ({ params, user }) => {
    const r = await s.runs.get(user.id, params.id);
    if (!r.ok) return mapError(codes.execution, r.error);
    let body = bodies.get(r.value);
    if (body === undefined) {
      const fields: Parameters<typeof ep.execution.ok>[0] = { execution: presentExecution(r.value) };
      bodies.set(r.value, (body = successBody(fields)));
    }
    return jsonText(200, body);
  });

  route(app, s, ep.executionEvents, async ({ params, user, request }) => {
    const first = await s.runs.get(user.id, params.id);
    if (!first.ok) return mapError(codes.execution, first.error);
    return executionEvents(s, user.id, params.id, first.value.status === 'running', request);
  });
}

/**
 * An execution's progress as Server-Sent Events: `progress` at most every EVENT_INTERVAL_MS, `done`
 * with the whole execution at its end (at once for a finished one), and a comment line while silent
 * (http/shared/sse.ts: a run may send nothing for longer than an idle connection lives, a sandbox
 * starting on a busy machine, a slow strategy).
 */
function executionEvents(s: Services, userId: number, id: string, running: boolean, request: Request): Response {
  return eventStream(request, s.config.sseKeepAliveMs, (sink) => {
    let unsubscribe: (() => void) | null = null;
    let timer: ReturnType<typeof setTimeout> | null = null;
    let lastSentMs = 0;
    const sendNow = async (event: 'progress' | 'done') => {
      if (sink.closed) return;
      const v = await s.runs.get(userId, id);
      if (sink.closed) return;
      if (!v.ok) return sink.close();
      sink.send(event, event === 'done' ? presentExecution(v.value) : presentProgress(v.value));
      lastSentMs = performance.now();
      if (event === 'done') sink.close();
    };
    // One event at a time, in order: each reads the run from the store first.
    let sending: Promise<void> = Promise.resolve();
    const send = (event: 'progress' | 'done') => (sending = sending.then(() => sendNow(event)).catch(() => sink.close()));
    const onEvent = (e: ExecutionEvent) => {
      // The service says `done` once the end is recorded.
      if (e.type === 'done') return void send('done');
      if (timer) return;
      const wait = lastSentMs + EVENT_INTERVAL_MS - performance.now();
      if (wait <= 0) send('progress');
      else timer = setTimeout(() => {
        timer = null;
        send('progress');
      }, wait);
    };
    if (!running) send('done');
    else {
      send('progress');
      unsubscribe = s.runs.subscribe(userId, id, onEvent);
    }
    return () => {
      unsubscribe?.();
      if (timer) clearTimeout(timer);
    };
  });
}

/** Every trade of an execution, paged or as CSV (extensions). */
export function registerRunTrades<P extends string>(app: Elysia<P>, s: Services): void {
  route(app, s, ep.executionTrades, async ({ params, query, user }) => {
    const r = await s.runs.tradesPage(user.id, params.id, queryNumber(query.offset), queryNumber(query.limit));
    if (!r.ok) return mapError(codes.executionTrades, r.error);
    const v = r.value;
    return ep.executionTrades.ok({
      trades: v.trades.map((t) => presentTrade(v.inst, t, v.insts)), offset: v.offset, limit: v.limit, total: v.stored, tradesTotal: v.tradesTotal,
    });
  });

  route(app, s, ep.executionTradesCsv, async ({ params, user }) => {
    const first = await s.runs.tradesPage(user.id, params.id, 0, limits.playgroundTradesPageMax);
    // Offset 0 and a page within bounds: the one refusal left is an execution not found.
    if (!first.ok) return mapError(codes.execution, { kind: 'execution_not_found' });
    return new Response(tradesCsv(s, user.id, params.id, first.value), {
      headers: {
        'content-type': 'text/csv; charset=utf-8',
        'content-disposition': `attachment; filename="${params.id}-trades.csv"`,
        'cache-control': 'no-store',
      },
    });
  });
}

/** A query parameter as a number: absent or empty → undefined (the default); digits → their number; anything else → NaN (refused). */
function queryNumber(v: string | undefined): number | undefined {
  if (v === undefined || v === '') return undefined;
  return /^\d{1,15}$/.test(v) ? Number(v) : Number.NaN;
}

/**
 * Every stored trade as CSV, a page at a time: one page per pull of the stream, a timer turn between
 * pages. 200,000 trades built as one string held the event loop for a quarter of a second. The pages
 * end at the count stored when the export began (a running run's trades only append).
 */
function tradesCsv(s: Services, userId: number, id: string, first: TradesPage): ReadableStream<Uint8Array> {
  const stored = first.stored;
  const utf8 = new TextEncoder();
  let page: TradesPage | null = first;
  let offset = 0;
  return new ReadableStream<Uint8Array>({
    async pull(ctl) {
      if (page === null) {
        await new Promise((resolve) => setImmediate(resolve));
        const r = await s.runs.tradesPage(userId, id, offset, limits.playgroundTradesPageMax);
        page = r.ok ? r.value : null;
      }
      const trades = page?.trades.slice(0, Math.max(0, stored - offset)) ?? [];
      const head = offset === 0 ? `${ep.TRADE_CSV_COLUMNS.join(',')}${first.insts === null ? '' : ',symbol'}\n` : '';
      if (head !== '' || trades.length > 0) ctl.enqueue(utf8.encode(head + presentTradesCsvRows(first.inst, trades, first.insts)));
      offset += trades.length;
      page = null;
      if (trades.length === 0 || offset >= stored) ctl.close();
    },
  });
}
