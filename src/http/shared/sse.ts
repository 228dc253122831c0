// Server-Sent Events, framed in one place: `eventStream` answers `text/event-stream` and hands its
// producer a sink for events (`event:` name, `data:` JSON). A comment line goes out whenever nothing
// else did for `keepAliveMs` (Bun closes a connection idle for 10 s, proxies too), and the stream
// ends once the client goes away, the producer closes it, or the response is cancelled; the
// producer's cleanup (a subscription, a timer) runs once, whichever comes first.
// `pollingEventStream` is the producer that polls.

/** Where a producer sends its events. */
export interface EventSink {
  /** Sends one event (nothing once the stream is closed). */
  send(event: string, data: unknown): void;
  /** Ends the stream (its cleanup runs). */
  close(): void;
  readonly closed: boolean;
}

const HEADERS = { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', 'x-accel-buffering': 'no' };

/**
 * An event stream for `request`: `start` produces its events through the sink and answers the
 * cleanup to run when the stream ends.
 */
export function eventStream(request: Request, keepAliveMs: number, start: (sink: EventSink) => (() => void) | void): Response {
  const enc = new TextEncoder();
  let end = () => {};
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      let cleanup: (() => void) | void;
      let lastSentMs = performance.now();
      let keepAlive: ReturnType<typeof setTimeout> | undefined;
      const write = (text: string) => {
        controller.enqueue(enc.encode(text));
        lastSentMs = performance.now();
      };
      // Fires when the stream may have been silent for keepAliveMs: a comment if it was, else waits out the rest.
      const beat = () => {
        const silentMs = performance.now() - lastSentMs;
        if (silentMs >= keepAliveMs) write(': keep-alive\n\n');
        keepAlive = setTimeout(beat, silentMs >= keepAliveMs ? keepAliveMs : keepAliveMs - silentMs);
      };
      let closed = false;
      const sink: EventSink = {
        get closed() {
          return closed;
        },
        send(event, data) {
          if (!closed) write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
        },
        close() {
          if (closed) return;
          end();
          try {
            controller.close();
          } catch {}
        },
      };
      end = () => {
        if (closed) return;
        closed = true;
        clearTimeout(keepAlive);
        cleanup?.();
      };
      keepAlive = setTimeout(beat, keepAliveMs);
      request.signal.addEventListener('abort', () => sink.close());
      cleanup = start(sink);
      // Closed while starting: its cleanup was not there yet.
      if (closed) cleanup?.();
    },
    cancel: () => end(),
  });
  return new Response(stream, { headers: HEADERS });
}

export interface PolledEvent {
  event: string;
  data: unknown;
  /** Close the stream after this one. */
  last: boolean;
}

/** An event stream fed by polling: `next` is read every `intervalMs` and returns the event to send, if any. */
export function pollingEventStream(request: Request, intervalMs: number, keepAliveMs: number, next: () => Promise<PolledEvent | null>): Response {
  return eventStream(request, keepAliveMs, (sink) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const tick = async () => {
      const e = await next().catch(() => null);
      if (sink.closed) return;
      if (e !== null) {
        sink.send(e.event, e.data);
        if (e.last) return sink.close();
      }
      timer = setTimeout(() => void tick(), intervalMs);
    };
    void tick();
    return () => clearTimeout(timer);
  });
}
