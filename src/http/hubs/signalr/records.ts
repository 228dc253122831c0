// Text framing of the SignalR JSON protocol (dotnet/aspnetcore's HubProtocol.md, "JSON Encoding"): every message is a
// JSON text followed by the record separator 0x1E. A WebSocket message may carry several records,
// and a record may be split over several WebSocket messages, so the reader keeps the unfinished
// tail until its separator arrives.

export const RECORD_SEPARATOR = '\x1e';

export type ReadResult = { ok: true; records: string[] } | { ok: false; reason: 'too_large' };

/**
 * Splits inbound text into complete records. Binary messages are decoded as UTF-8 with a streaming
 * decoder, so a character split across two messages survives. Sizes are counted in UTF-16 units,
 * which equal bytes for the ASCII JSON clients send (Bun's maxPayloadLength bounds bytes per message).
 */
export class RecordReader {
  private tail = '';
  private readonly decoder = new TextDecoder('utf-8', { fatal: false });

  constructor(private readonly recordBytesMax: number) {}

  push(chunk: string | Uint8Array): ReadResult {
    const text = typeof chunk === 'string' ? chunk : this.decoder.decode(chunk, { stream: true });
    if (text.indexOf(RECORD_SEPARATOR) < 0) {
      this.tail += text;
      return this.tail.length > this.recordBytesMax ? { ok: false, reason: 'too_large' } : { ok: true, records: [] };
    }
    const parts = (this.tail + text).split(RECORD_SEPARATOR);
    this.tail = parts.pop() as string;
    for (const p of parts) if (p.length > this.recordBytesMax) return { ok: false, reason: 'too_large' };
    if (this.tail.length > this.recordBytesMax) return { ok: false, reason: 'too_large' };
    return { ok: true, records: parts };
  }
}

/** One record: the JSON text of `value` and the separator. */
export function record(value: unknown): string {
  return JSON.stringify(value) + RECORD_SEPARATOR;
}
