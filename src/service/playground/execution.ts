// One playground execution: drives a runner child through the run's bars, day by day, and keeps the
// server's own ledger of what the strategy did (ledger.ts).
//
// The child is an untrusted oracle for the strategy's decisions and nothing else. Every message it
// sends is checked here (shape, ranges, order, sizes) before use; its actions are replayed through
// the ledger's engine; after every batch the child's balance and fill count must equal the ledger's,
// or the run is stopped as failed. Results are the ledger's. A forged "done" or a fake P&L has no
// field to land in.
//
// Flow: run → started → for each day: batch (→ need ⇄ fine)* → batch reply → … → finish → finished.
// While the child works on a day, the next day's bars are prepared (the two run in parallel).

import type { Incoming, RunnerChild } from '../../../runner/host/child.ts';
import type { BarSource } from '../../data/bar-source.ts';
import type { Instrument } from '../../domain/instrument.ts';
import { isInvalid } from '../../lib/invalid.ts';
import type { Decoded, DecodedObject } from '../../lib/json.ts';
import { dayBatch, type DayBatch, firstDay, lastDay, type RunSpan } from './feed.ts';
import { RunLedger } from './ledger.ts';
import { LegSlice } from './legs.ts';
import { LogBuffer } from './logs.ts';
import {
  batchMessage, exitMessage, fineMessage, frameOf, isInt, legFineAnswer, logLines, logTimes, optionalText, parseActions, protocol, RunEnd, runMessage,
  type RunStatus, type Slice,
} from './messages.ts';

export type { RunStatus };

export interface ExecutionInit {
  id: string;
  userId: number;
  span: RunSpan;
  /** A run over several instruments: all of them, the main one first (absent or null: the one instrument of `span`). */
  instruments?: readonly Instrument[] | null;
  code: string;
  params: Record<string, number | string | boolean>;
  totalBars: number;
  speed: number | null;
  timeoutMs: number;
  slippageTicks: number;
  startingBalanceCents: number;
  nowMs: () => number;
  /** Where an internal failure of the run (a bug, not the strategy's error) is reported. */
  logError: (message: string, fields: Record<string, unknown>) => void;
  /**
   * An optimisation's combination: a child that finished the run cleanly is handed here (for the
   * optimisation's next combination, optimize-shared.ts) instead of being killed.
   */
  release?: (child: RunnerChild) => void;
  /** The span's bars of a UTC day, when they come from elsewhere than the bar source (optimize-shared.ts). */
  dayBatch?: (day: number) => DayBatch | null;
}

export interface ExecutionEvent {
  type: 'progress' | 'done';
}

/** Why the server ended the run early: a user's stop, the deadline, or the server stopping. */
type Ending = 'stopped' | 'timeout' | 'shutdown' | null;

export const SHUTDOWN_MESSAGE = 'The server stopped while the run was in progress';

export class Execution {
  readonly id: string;
  readonly userId: number;
  status: RunStatus = 'running';
  error: string | null = null;
  readonly logs = new LogBuffer();
  readonly ledger: RunLedger;
  readonly totalBars: number;
  speed: number | null;
  readonly startedMs: number;
  completedMs: number | null = null;
  /** Milliseconds from start to the first batch answered (benchmarks read it). */
  firstBarMs: number | null = null;
  /** Where the time went, milliseconds (per batch, never per bar): for benchmarks and logs. */
  readonly timings = { prepareMs: 0, sendMs: 0, waitMs: 0, verifyMs: 0 };
  /** What the child says it spent (untrusted; diagnostics only). */
  readonly childTimings: Record<string, number> = {};
  private child: RunnerChild | null = null;
  private ending: Ending = null;
  private readonly listeners = new Set<(e: ExecutionEvent) => void>();
  private nextPaceMs = 0;
  private paceWake: (() => void) | null = null;
  /** The run's instruments when it named several (`instrumentSymbols`), the main one first; null for one. */
  readonly instruments: readonly Instrument[] | null;
  private readonly legs: readonly Instrument[];
  /** The clock at the end of the last slice sent (the run's start before the first): where the next slice's leg bars begin. */
  private sentClockS: number;

  constructor(private readonly init: ExecutionInit, private readonly source: BarSource) {
    this.id = init.id;
    this.userId = init.userId;
    this.totalBars = init.totalBars;
    this.speed = init.speed;
    this.startedMs = init.nowMs();
    this.instruments = init.instruments ?? null;
    this.legs = this.instruments?.slice(1) ?? [];
    this.sentClockS = init.span.startS;
    this.ledger = new RunLedger(init.span.inst, init.startingBalanceCents, init.slippageTicks, init.span.startS, this.legs, init.span.tf.widthS as number);
  }

  get barsDone(): number {
    return this.ledger.barsDone;
  }

  subscribe(fn: (e: ExecutionEvent) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  stop(): void {
    this.end('stopped');
  }

  /** Ends the run as failed because the server is stopping. */
  abort(): void {
    this.end('shutdown');
  }

  setSpeed(speed: number | null): void {
    this.speed = speed;
    this.nextPaceMs = 0;
    this.paceWake?.();
  }

  /** Runs the execution on `child` to its end; never throws. */
  async run(child: RunnerChild): Promise<void> {
    this.child = child;
    if (this.ending) child.kill();
    const deadline = setTimeout(() => this.end('timeout'), this.init.timeoutMs);
    try {
      await this.drive(child);
      this.status = 'completed';
    } catch (e) {
      const end = e instanceof RunEnd ? e : new RunEnd('failed', `Internal error while running the strategy`);
      if (!(e instanceof RunEnd)) this.init.logError('playground execution failed', { executionId: this.id, error: String(e), stack: (e as Error)?.stack });
      this.status = end.status;
      this.error = end.message;
    } finally {
      clearTimeout(deadline);
      if (this.status === 'completed' && this.init.release && !this.ending) this.init.release(child);
      else child.kill();
      this.ledger.finish();
      this.completedMs = this.init.nowMs();
      this.emit({ type: 'done' });
    }
  }

  /** Fails the run before any child was involved (no child could be started). */
  failWithoutChild(message: string): void {
    this.status = 'failed';
    this.error = message;
    this.completedMs = this.init.nowMs();
    this.emit({ type: 'done' });
  }

  private end(why: Exclude<Ending, null>): void {
    if (this.status !== 'running' || this.ending) return;
    this.ending = why;
    this.child?.kill();
    this.paceWake?.();
  }

  private emit(e: ExecutionEvent): void {
    for (const fn of this.listeners) {
      try {
        fn(e);
      } catch {}
    }
  }

  private async drive(child: RunnerChild): Promise<void> {
    const { span } = this.init;
    const inst = span.inst;
    child.send(runMessage(this.init, span, this.legs));
    const started = await this.expect(child, 'started');
    this.takeLogs(started.logs);
    if (started.error !== null) throw new RunEnd('failed', errorText(started.error));

    // Two batches in flight at full speed, so the child never waits for the server: while it works
    // on one day, the next is already in its pipe and the day after is being prepared. A paced run
    // sends one bar at a time.
    let seq = 0;
    let base = 0;
    const last = lastDay(span);
    let cur = this.timed('prepareMs', () => this.nextBatch(firstDay(span), last));
    let j = 0;
    const inFlight: Slice[] = [];
    for (;;) {
      while (cur !== null && inFlight.length < (this.speed === null ? 2 : 1)) {
        if (this.speed !== null) await this.pace();
        this.checkEnding();
        const b = cur.b;
        const n = this.speed === null ? b.run.length - j : 1;
        seq++;
        const slice: Slice = { b, j0: j, j1: j + n, base, seq, legs: this.timed('prepareMs', () => this.legSlices(b.runEnd[j + n - 1])) };
        this.timed('sendMs', () => child.send(batchMessage(seq, base, b, j, j + n, slice.legs)));
        inFlight.push(slice);
        base += n;
        j += n;
        if (j === b.run.length) {
          const day = cur.day;
          cur = this.timed('prepareMs', () => this.nextBatch(day + 1, last));
          j = 0;
        }
      }
      const f = inFlight.shift();
      if (f === undefined) break;
      const t0 = performance.now();
      const reply = await this.awaitBatch(child, f);
      const t1 = performance.now();
      // A strategy error stops the child inside the batch: play what it reached (the failing bar's
      // fills included, its on_bar's orders never sent).
      const played = reply.error === null ? f.j1 - f.j0 : reply.done - f.base;
      this.ledger.play(f.b, f.base - f.j0, f.j0, f.j0 + played, reply.acts, f.legs);
      this.timings.waitMs += t1 - t0;
      this.timings.verifyMs += performance.now() - t1;
      this.takeLogs(reply.logs);
      if (reply.error !== null) throw new RunEnd('failed', errorText(reply.error));
      this.checkState(reply);
      this.firstBarMs ??= this.init.nowMs() - this.startedMs;
      this.emit({ type: 'progress' });
    }
    this.checkEnding();
    child.send({ t: 'finish' });
    const m = await this.receive(child);
    if (m.t !== 'finished') throw protocol('expected finished');
    // on_end(ctx) may still trade: its orders go in right after the last bar.
    const acts = parseActions(m.acts, base - 1, base, 1 + this.legs.length);
    this.ledger.applyAfterLast(acts);
    this.takeLogs(logLines(m.logs));
    const error = optionalText(m.error, 'error');
    if (error !== null) throw new RunEnd('failed', errorText(error));
    this.checkState(m);
    this.takeChildTimings(m.spent);
  }

  /** The child's own account of its time: diagnostics for benchmarks, never used for results. */
  private takeChildTimings(spent: Decoded): void {
    if (typeof spent !== 'object' || spent === null || Array.isArray(spent) || isInvalid(spent)) return;
    for (const k of ['batchMs', 'convertMs', 'needMs', 'needs']) {
      const ms = spent[k];
      if (typeof ms === 'number') this.childTimings[k] = Math.round(ms);
    }
  }

  /** The child's engine must agree with the ledger's after every batch. */
  private checkState(m: { balanceCents?: Decoded; fillCount?: Decoded }): void {
    const e = this.ledger;
    if (m.balanceCents !== e.balanceCents || m.fillCount !== e.fillCount) {
      throw new RunEnd('failed', 'The strategy process reported a state that does not match the engine; the run was stopped');
    }
  }

  private timed<T>(phase: 'prepareMs' | 'sendMs', f: () => T): T {
    const t0 = performance.now();
    const r = f();
    this.timings[phase] += performance.now() - t0;
    return r;
  }

  /** The other contracts' bars from the last slice's clock to `toS` (the end of the slice about to be sent). */
  private legSlices(toS: number): LegSlice[] {
    const fromS = this.sentClockS;
    this.sentClockS = toS;
    return this.legs.map((leg) => new LegSlice(this.source, leg, this.init.span.tf, fromS, toS));
  }

  private nextBatch(from: number, last: number): { b: DayBatch; day: number } | null {
    for (let d = from; d <= last; d++) {
      const b = this.init.dayBatch ? this.init.dayBatch(d) : dayBatch(this.source, this.init.span, d);
      if (b !== null) return { b, day: d };
    }
    return null;
  }

  private checkEnding(): void {
    if (this.ending === 'stopped') throw new RunEnd('stopped', 'Stopped by the user');
    if (this.ending === 'timeout') throw new RunEnd('timeout', `Execution exceeded the ${formatDuration(this.init.timeoutMs)} time limit`);
    if (this.ending === 'shutdown') throw new RunEnd('failed', SHUTDOWN_MESSAGE);
  }

  /** Waits until the paced run may send its next bar (speed s = 2·s bars per second, as Replay/play). */
  private async pace(): Promise<void> {
    while (this.speed !== null && !this.ending) {
      const now = performance.now();
      if (now >= this.nextPaceMs) {
        this.nextPaceMs = Math.max(now, this.nextPaceMs) + 500 / this.speed;
        return;
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, this.nextPaceMs - now);
        this.paceWake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.paceWake = null;
    }
  }

  /**
   * The child's next message. Output lines (`log`, sent as the strategy prints) are taken here in any
   * phase, so what a strategy printed before its sandbox died stays in the run's logs.
   */
  private async receive(child: RunnerChild): Promise<DecodedObject> {
    let m: Incoming = await child.next();
    for (; m.kind === 'message'; m = await child.next()) {
      const msg = frameOf(m.msg);
      if (msg.t !== 'log') return msg;
      const lines = logLines(msg.logs);
      this.takeLogs(lines, logTimes(msg.times, lines.length, this.init.span.startS, this.init.span.endS));
    }
    this.checkEnding();
    if (m.kind === 'protocol_error') throw new RunEnd('failed', `The strategy process broke the runner protocol (${m.reason}); the run was stopped`);
    throw new RunEnd('failed', exitMessage(m.exit, child.stderrTail));
  }

  private async expect(child: RunnerChild, t: 'started'): Promise<{ error: string | null; logs: string[] }> {
    const m = await this.receive(child);
    if (m.t !== t) throw protocol(`expected ${t}, got ${typeof m.t === 'string' ? m.t.slice(0, 20) : typeof m.t}`);
    return { error: optionalText(m.error, 'error'), logs: logLines(m.logs) };
  }

  /** Reads the child's answer to slice `f`'s batch, serving its stored-bar requests. */
  private async awaitBatch(child: RunnerChild, f: Slice) {
    const { seq, b, base, j0, j1 } = f;
    let needFrom = base;
    const legNeedFrom = this.legs.map(() => base);
    for (;;) {
      const m = await this.receive(child);
      if (m.t === 'need' && m.leg !== undefined) {
        child.send(legFineAnswer(f, m, legNeedFrom, this.legs.length));
        continue;
      }
      if (m.t === 'need') {
        const k = m.k;
        if (!isInt(k) || k < needFrom || k >= base + (j1 - j0) || !isInt(m.up) || !isInt(m.down)) throw protocol('bad need');
        needFrom = k + 1;
        child.send(fineMessage(b, k - base + j0, j1, m.up as number, m.down as number, base - j0));
        continue;
      }
      if (m.t !== 'batch' || m.seq !== seq) throw protocol(`expected batch ${seq}`);
      if (!isInt(m.balanceCents) || !isInt(m.fillCount)) throw protocol('bad batch state');
      const nBars = j1 - j0;
      if (!isInt(m.done) || m.done < base || m.done > base + nBars || (m.error === null && m.done !== base + nBars)) throw protocol('bad batch progress');
      return {
        done: m.done as number,
        acts: parseActions(m.acts, base, base + (j1 - j0), 1 + this.legs.length),
        logs: logLines(m.logs),
        error: optionalText(m.error, 'error'),
        balanceCents: m.balanceCents as number,
        fillCount: m.fillCount as number,
      };
    }
  }

  /** Output lines, with the bar time of each when the child sent it (`log` frames) and null otherwise. */
  private takeLogs(lines: string[], times: readonly (number | null)[] | null = null): void {
    for (let i = 0; i < lines.length; i++) this.logs.push(lines[i], times === null ? null : times[i]);
  }
}

function errorText(e: string): string {
  return e.trim() === '' ? 'The strategy raised an error' : e;
}

/** What a user is told when the child ended without a clean answer. */
function formatDuration(ms: number): string {
  if (ms % 60_000 === 0) return `${ms / 60_000}-minute`;
  return `${Math.round(ms / 1000)}-second`;
}
