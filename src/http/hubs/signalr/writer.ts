// The writing half of one hub connection: records wait in the outbound queue and leave as WebSocket
// messages of whole records, with backpressure, and (stateful reconnect) numbered into the resend
// buffer as they are written.
//
// Hub events wait for the transport's next flush (flush-scheduler.ts: the end of the event-loop turn,
// or one frame interval when that is set), so a burst of quotes costs one WebSocket message;
// completions, pings and close messages flush at once (in a microtask, so the completions of one turn
// share a message). Records are never reordered. While the socket reports
// buffered output the queue waits for Bun's `drain`; when queued plus buffered output passes
// `queueBytesMax` the client is not keeping up, and when the records the client has not acknowledged
// pass `resendBytesMax` it is not acknowledging: the owner is told and closes the connection, so one
// client costs a bounded amount of memory and never delays anybody else.
//
// The socket may be absent (a stateful connection whose socket dropped): records then wait in the
// queue until `attach` gives a new socket, which first gets the unacknowledged records again.

import type { ServerWebSocket } from 'bun';
import type { Flushable, FlushScheduler } from './flush-scheduler.ts';
import { OutboundQueue } from './outbound-queue.ts';
import type { ResendBuffer } from './resend-buffer.ts';

export interface WriterSettings {
  frameBytesMax: number;
  queueBytesMax: number;
  resendBytesMax: number;
}

export interface WriterOwner {
  monoMs(): number;
  /** Output passed a bound: queued + socket-buffered (`slow`), or not acknowledged (`unacked`). */
  overflowed(kind: 'slow' | 'unacked'): void;
  /** The measurement hook (HubTransportOptions.onFrameWritten); absent, nothing is timed. */
  readonly frameWritten?: (queuedAtMs: readonly number[], writtenAtMs: number) => void;
  /** The transport's flush scheduler, which writes queued events. */
  readonly frames: FlushScheduler;
}

export class FrameWriter implements Flushable {
  private ws: ServerWebSocket<unknown> | null;
  private readonly queue = new OutboundQueue();
  flushDue = false;
  private flushPending = false;
  /** Bun's buffered output as of the last write (it only shrinks in between). */
  private bufferedBytes = 0;
  /** Set once the handshake turned stateful reconnect on: written records are numbered into it. */
  resend: ResendBuffer | null = null;
  lastSentMs: number;

  constructor(
    ws: ServerWebSocket<unknown>,
    private readonly s: WriterSettings,
    private readonly owner: WriterOwner,
  ) {
    this.ws = ws;
    this.lastSentMs = owner.monoMs();
  }

  get empty(): boolean {
    return this.queue.empty;
  }

  /** Queues a record for the next frame; false (the owner told) when output passed its bound. */
  push(text: string, key?: string, atMs = -1, sequenced = false): boolean {
    this.queue.push(text, key, atMs, sequenced);
    if (this.queue.bytes + this.bufferedBytes <= this.s.queueBytesMax) return true;
    if (this.ws !== null) this.bufferedBytes = this.ws.getBufferedAmount();
    if (this.queue.bytes + this.bufferedBytes <= this.s.queueBytesMax) return true;
    this.owner.overflowed('slow');
    return false;
  }

  /** Asks the transport's scheduler for a flush unless a write is already due. */
  schedule(): void {
    if (!this.flushDue && !this.flushPending) this.owner.frames.add(this);
  }

  /** Queues a record and writes the queue in a microtask. */
  pushUrgent(text: string, sequenced = false): void {
    if (!this.push(text, undefined, -1, sequenced) || this.flushPending) return;
    this.flushPending = true;
    queueMicrotask(() => this.flush());
  }

  /** Writes queued records, one WebSocket message per `frameBytesMax`, until the socket pushes back. */
  flush(): void {
    this.flushPending = false;
    const ws = this.ws;
    if (ws === null) return;
    const measure = this.owner.frameWritten;
    this.bufferedBytes = ws.getBufferedAmount();
    while (!this.queue.empty && this.bufferedBytes === 0) {
      const stamps: number[] | undefined = measure ? [] : undefined;
      const numbered: string[] | undefined = this.resend ? [] : undefined;
      const frame = this.queue.takeFrame(this.s.frameBytesMax, stamps, numbered) as string;
      const status = ws.sendText(frame);
      this.lastSentMs = this.owner.monoMs();
      this.bufferedBytes = ws.getBufferedAmount();
      if (status === 0) return this.owner.overflowed('slow'); // over Bun's own limit: the frame is lost
      // Written: taken by the kernel, or (-1) by Bun's buffer, which sends it before anything later.
      if (measure && stamps!.length > 0) measure(stamps!, this.lastSentMs);
      if (this.resend && numbered!.length > 0) {
        for (const text of numbered!) this.resend.written(text);
        if (this.resend.bytes > this.s.resendBytesMax) return this.owner.overflowed('unacked');
      }
    }
    // Output still buffered: drained() resumes.
  }

  /** Bun's `drain`: the socket can take more. */
  drained(ws: ServerWebSocket<unknown>): void {
    if (ws === this.ws) this.flush();
  }

  /**
   * Writes everything queued and then `last` at once, whatever the socket takes (Bun buffers the
   * rest and sends its Close frame after it); nothing is written after it.
   */
  finalWrite(last: string): void {
    this.queue.push(last);
    const ws = this.ws;
    for (let frame = this.queue.takeFrame(this.s.frameBytesMax); ws !== null && frame !== null; frame = this.queue.takeFrame(this.s.frameBytesMax)) {
      if (ws.sendText(frame) === 0) break;
    }
    this.queue.clear();
  }

  /** The socket is gone; records wait for `attach`. */
  detach(): void {
    this.ws = null;
    this.bufferedBytes = 0;
  }

  /** A new socket for the same connection: the resend buffer's records first, then the queue. */
  attach(ws: ServerWebSocket<unknown>, replay: readonly string[]): void {
    this.ws = ws;
    let frame = '';
    for (const text of replay) {
      if (frame.length > 0 && frame.length + text.length > this.s.frameBytesMax) {
        ws.sendText(frame);
        frame = '';
      }
      frame += text;
    }
    if (frame.length > 0) ws.sendText(frame);
    this.lastSentMs = this.owner.monoMs();
    this.flush();
  }

  /** Drops everything queued (a flush already asked for then writes nothing). */
  clear(): void {
    this.queue.clear();
  }

  get queuedBytes(): number {
    return this.queue.bytes;
  }
}
