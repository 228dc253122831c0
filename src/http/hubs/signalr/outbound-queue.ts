// The records waiting to be written to one connection, in order. A record sent with a coalesce key
// replaces the older record of that key still waiting: the older one is dropped where it stands and
// the newer one joins the end, so nothing else changes order (hub.ts, SendOptions).
// A record may carry the monotonic time it was queued at (only when the transport measures frame
// latency, HubTransportOptions.onFrameWritten); -1 otherwise. A record is `sequenced` when stateful
// reconnect numbers it (invocations and completions, resend-buffer.ts): it gets its id when written.

interface Entry {
  text: string | null; // null once replaced by a newer record of the same key
  key: string | undefined;
  atMs: number;
  sequenced: boolean;
}

export class OutboundQueue {
  private entries: Entry[] = [];
  private head = 0;
  private readonly byKey = new Map<string, Entry>();
  /** Replaced entries still in the list (they hold no text, but a slot). */
  private dead = 0;
  /** Characters of the records waiting (≈ bytes: the records are JSON, mostly ASCII). */
  bytes = 0;

  get empty(): boolean {
    return this.bytes === 0;
  }

  push(text: string, key?: string, atMs = -1, sequenced = false): void {
    if (key !== undefined) {
      const older = this.byKey.get(key);
      if (older && older.text !== null) {
        this.bytes -= older.text.length;
        older.text = null;
        this.dead++;
      }
    }
    const entry: Entry = { text, key, atMs, sequenced };
    this.entries.push(entry);
    // A socket that is not read never takes a frame: replaced quotes must not pile up as slots.
    if (this.dead > 64 && this.dead * 2 > this.entries.length - this.head) this.dropDead();
    if (key !== undefined) this.byKey.set(key, entry);
    this.bytes += text.length;
  }

  /**
   * Takes records from the front, joined, up to `bytesMax` (at least one record); null when empty.
   * With `queuedAtMs`, the queue times of the records taken that carry one are appended to it; with
   * `sequenced`, the sequenced records taken, in order.
   */
  takeFrame(bytesMax: number, queuedAtMs?: number[], sequenced?: string[]): string | null {
    if (this.bytes === 0) return null;
    let frame = '';
    while (this.head < this.entries.length) {
      const e = this.entries[this.head];
      if (e.text !== null) {
        if (frame.length > 0 && frame.length + e.text.length > bytesMax) break;
        frame += e.text;
        this.bytes -= e.text.length;
        if (queuedAtMs !== undefined && e.atMs >= 0) queuedAtMs.push(e.atMs);
        if (sequenced !== undefined && e.sequenced) sequenced.push(e.text);
        if (e.key !== undefined && this.byKey.get(e.key) === e) this.byKey.delete(e.key);
      } else {
        this.dead--;
      }
      this.head++;
    }
    this.compact();
    return frame;
  }

  clear(): void {
    this.entries = [];
    this.head = 0;
    this.dead = 0;
    this.byKey.clear();
    this.bytes = 0;
  }

  /** Slots held, live and replaced (bounded: replaced ones are dropped once they are half). */
  get length(): number {
    return this.entries.length - this.head;
  }

  private dropDead(): void {
    this.entries = this.entries.slice(this.head).filter((e) => e.text !== null);
    this.head = 0;
    this.dead = 0;
  }

  private compact(): void {
    if (this.head === this.entries.length) {
      this.entries = [];
      this.head = 0;
    } else if (this.head > 1024 && this.head * 2 > this.entries.length) {
      this.entries = this.entries.slice(this.head);
      this.head = 0;
    }
  }
}
