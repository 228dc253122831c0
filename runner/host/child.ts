// One runner child seen from the server: spawn, frames in and out, a bounded stderr tail, kill.
//
// Everything the child writes is untrusted. Its stdout is cut into frames with a per-frame cap and a
// total cap; a frame that is too large or undecodable, or output past the total, kills the child
// and ends its stream with a protocol error. Its stderr keeps only a short tail, for diagnostics.

import type { Subprocess } from 'bun';
import { STDERR_TAIL_BYTES } from '../limits.ts';
import { encodeFrameTransient, FrameDecoder, FrameError } from '../protocol.ts';

export interface ChildExit {
  code: number | null;
  signal: string | null;
}

export type Incoming =
  | { kind: 'message'; msg: Record<string, unknown> }
  | { kind: 'protocol_error'; reason: string }
  | { kind: 'exit'; exit: ChildExit };

export interface ChildCaps {
  /** Largest frame the child may send (the snapshot is the only big one). */
  frameBytesMax: number;
  /** Total stdout bytes over the child's life. */
  totalBytesMax: number;
}


export class RunnerChild {
  private readonly proc: Subprocess<'pipe', 'pipe', 'pipe'>;
  private readonly decoder: FrameDecoder;
  private readonly inbox: Incoming[] = [];
  private waiter: ((m: Incoming) => void) | null = null;
  private ended = false;
  private bytesIn = 0;
  private stderrHead = '';
  private stderr = '';
  private stderrBytes = 0;
  readonly spawnedMs = performance.now();
  readonly exited: Promise<ChildExit>;

  constructor(cmd: string[], env: Record<string, string>, private readonly caps: ChildCaps) {
    this.decoder = new FrameDecoder(caps.frameBytesMax);
    this.proc = Bun.spawn({ cmd, env, stdin: 'pipe', stdout: 'pipe', stderr: 'pipe' });
    this.exited = this.proc.exited.then(() => ({ code: this.proc.exitCode, signal: this.proc.signalCode === null ? null : String(this.proc.signalCode) }));
    void this.pumpStdout();
    void this.pumpStderr();
  }

  get pid(): number {
    return this.proc.pid;
  }

  /** The first and last few KB the child wrote to stderr (untrusted text: to classify an exit, for logs). */
  get stderrTail(): string {
    return this.stderrBytes <= STDERR_TAIL_BYTES ? this.stderr : `${this.stderrHead}\n…\n${this.stderr}`;
  }

  /** Sends one frame; false when the child is gone. */
  send(msg: object): boolean {
    if (this.ended) return false;
    try {
      // The sink copies what it is given, so the encoder's buffer is free again at once.
      this.proc.stdin.write(encodeFrameTransient(msg));
      void this.proc.stdin.flush();
      return true;
    } catch {
      return false;
    }
  }

  /** The next thing from the child: a message, a protocol error or its exit (then always exit). */
  next(): Promise<Incoming> {
    const m = this.inbox.shift();
    if (m) return Promise.resolve(m);
    return new Promise((resolve) => {
      this.waiter = resolve;
    });
  }

  kill(): void {
    try {
      this.proc.kill('SIGKILL');
    } catch {}
  }

  private deliver(m: Incoming): void {
    if (this.ended) return;
    if (m.kind !== 'message') this.ended = true;
    const w = this.waiter;
    if (w) {
      this.waiter = null;
      w(m);
    } else this.inbox.push(m);
  }

  private async pumpStdout(): Promise<void> {
    try {
      for await (const chunk of this.proc.stdout as ReadableStream<Uint8Array>) {
        this.bytesIn += chunk.byteLength;
        if (this.bytesIn > this.caps.totalBytesMax) throw new FrameError(`child output exceeds ${this.caps.totalBytesMax} bytes`);
        this.decoder.push(chunk);
        for (let m = this.decoder.next(); m !== undefined; m = this.decoder.next()) {
          if (typeof m !== 'object' || m === null || Array.isArray(m) || typeof (m as { t?: unknown }).t !== 'string') {
            throw new FrameError('frame is not a message');
          }
          this.deliver({ kind: 'message', msg: m as Record<string, unknown> });
        }
      }
    } catch (e) {
      this.kill();
      this.deliver({ kind: 'protocol_error', reason: e instanceof FrameError ? e.message : `stdout failed: ${(e as Error).message}` });
    }
    this.deliver({ kind: 'exit', exit: await this.exited });
  }

  private async pumpStderr(): Promise<void> {
    const dec = new TextDecoder();
    try {
      for await (const chunk of this.proc.stderr as ReadableStream<Uint8Array>) {
        const text = dec.decode(chunk, { stream: true });
        if (this.stderrHead.length < STDERR_TAIL_BYTES) this.stderrHead = (this.stderrHead + text).slice(0, STDERR_TAIL_BYTES);
        this.stderrBytes += text.length;
        this.stderr = (this.stderr + text).slice(-STDERR_TAIL_BYTES);
      }
    } catch {}
  }
}
