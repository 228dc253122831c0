// A Server-Sent Events stream fed by polling: `next` is read every `intervalMs` and returns the event
// to send, if any; a `last` event closes the stream after it is sent. A comment line goes out while
// nothing else does for `keepAliveMs` (Bun closes a connection idle for 10 s, proxies too), and the
// stream stops polling once the client goes away.

export interface PolledEvent {
  event: string;
  data: unknown;
  /** Close the stream after this one. */
  last: boolean;
}

export function pollingEventStream(request: Request, intervalMs: number, keepAliveMs: number, next: () => Promise<PolledEvent | null>): Response {
  const enc = new TextEncoder();
  let closed = false;
  let timer: ReturnType<typeof setTimeout> | null = null;
  const stop = () => {
    closed = true;
    if (timer) clearTimeout(timer);
  };
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      let lastSentMs = performance.now();
      const close = () => {
        if (closed) return;
        stop();
        try {
          controller.close();
        } catch {}
      };
      const tick = async () => {
        if (closed) return;
        const e = await next().catch(() => null);
        if (closed) return;
        if (e !== null) {
          controller.enqueue(enc.encode(`event: ${e.event}\ndata: ${JSON.stringify(e.data)}\n\n`));
          lastSentMs = performance.now();
          if (e.last) return close();
        } else if (performance.now() - lastSentMs >= keepAliveMs) {
          controller.enqueue(enc.encode(': keep-alive\n\n'));
          lastSentMs = performance.now();
        }
        timer = setTimeout(() => void tick(), intervalMs);
      };
      request.signal.addEventListener('abort', close);
      void tick();
    },
    cancel: stop,
  });
  return new Response(stream, { headers: { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', 'x-accel-buffering': 'no' } });
}
