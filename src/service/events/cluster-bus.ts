// The event bus across a cluster: each node delivers its own events at once, in process, and passes
// them to the other nodes through PostgreSQL LISTEN/NOTIFY, so a hub connection on any node hears of
// a change the node holding the session committed.
//
// - Interest: publishers skip building events nobody reads (`listeners`). A node tells the others
//   when a topic gains its first local subscriber or loses its last (channel `replaydesk_topics`), and
//   asks them to repeat theirs when it starts; `listeners` counts local handlers plus one per other
//   node that said it listens. A node that dies without saying so only costs some unread messages.
// - Order: every message leaves through one chain (one NOTIFY after the other, each its own commit),
//   and PostgreSQL delivers notifications in commit order; a receiver handles them in arrival order.
// - Batches: events published while a NOTIFY is in flight wait in an outbox and leave together, as
//   one message (a JSON array, in publication order), when it returns: a step's hundred events cost a
//   few round trips to PostgreSQL instead of a hundred, and an idle node's event still leaves at once.
// - Size: a notification holds 8000 bytes at most; a longer message is sent in numbered parts and put
//   back together by the receiver (parts of one message arrive in order, with nothing between).

import { limits } from '../../config.ts';
import type { EventBus, Unsubscribe } from './bus.ts';
import { LocalEventBus } from './bus.ts';
import { asError } from '../../lib/thrown.ts';
import type { Notifier } from '../../store/sql-postgres.ts';

const EVENTS = 'replaydesk_events';
const TOPICS = 'replaydesk_topics';
/** Characters of JSON per notification part (well under 8000 bytes, even as multi-byte UTF-8 it stays ASCII-escaped). */
const PART_CHARS = limits.clusterEventPartChars;

interface Part {
  /** Sending node. */
  n: string;
  /** Message number at the sender, part index, part count, JSON text. */
  m: number;
  i: number;
  c: number;
  d: string;
}

type TopicNote = { n: string; t: string; on: boolean } | { n: string; hello: true };

export class ClusterEventBus<E extends { topic: string }> implements EventBus<E> {
  private readonly local: LocalEventBus<E>;
  /** Topics other nodes listen on, with the nodes that do. */
  private readonly remote = new Map<string, Set<string>>();
  private sending: Promise<void> = Promise.resolve();
  /** Events published since the last message left (their JSON texts), and whether a message will take them. */
  private outbox: string[] = [];
  private outboxTaken = false;
  private messages = 0;
  private readonly partial = new Map<string, string[]>();
  private unlisten: (() => Promise<void>)[] = [];

  constructor(
    private readonly notifier: Notifier,
    private readonly nodeId: string,
    private readonly onError: (error: Error, context: string) => void,
  ) {
    this.local = new LocalEventBus<E>((e, event) => onError(e, event.topic));
  }

  /** Listens on both channels and asks the other nodes which topics they listen on. */
  async start(): Promise<void> {
    this.unlisten.push(await this.notifier.listen(EVENTS, (p) => this.received(p)));
    this.unlisten.push(await this.notifier.listen(TOPICS, (p) => this.topicNote(p)));
    this.send(TOPICS, JSON.stringify({ n: this.nodeId, hello: true } satisfies TopicNote));
  }

  async stop(): Promise<void> {
    for (const u of this.unlisten) await u();
    this.unlisten = [];
    await this.sending;
  }

  publish(event: E): void {
    this.local.publish(event);
    if (!this.remote.has(event.topic)) return;
    this.outbox.push(JSON.stringify(event));
    if (this.outboxTaken) return;
    this.outboxTaken = true;
    // The next link of the chain takes whatever the outbox holds by the time the one before returns.
    this.chain(() => this.sendOutbox(), `notify ${EVENTS}`);
  }

  /** The outbox's events as one message (a JSON array), in as many parts as it needs. */
  private async sendOutbox(): Promise<void> {
    const texts = this.outbox;
    this.outbox = [];
    this.outboxTaken = false;
    const text = `[${texts.join(',')}]`;
    const m = ++this.messages;
    const count = Math.max(1, Math.ceil(text.length / PART_CHARS));
    for (let i = 0; i < count; i++) {
      const part: Part = { n: this.nodeId, m, i, c: count, d: text.slice(i * PART_CHARS, (i + 1) * PART_CHARS) };
      await this.notifier.notify(EVENTS, JSON.stringify(part));
    }
  }

  subscribe(topic: string, handler: (event: E) => void): Unsubscribe {
    const first = this.local.listeners(topic) === 0;
    const off = this.local.subscribe(topic, handler);
    if (first) this.announce(topic, true);
    return () => {
      off();
      if (this.local.listeners(topic) === 0) this.announce(topic, false);
    };
  }

  listeners(topic: string): number {
    return this.local.listeners(topic) + (this.remote.get(topic)?.size ?? 0);
  }

  private announce(topic: string, on: boolean): void {
    this.send(TOPICS, JSON.stringify({ n: this.nodeId, t: topic, on } satisfies TopicNote));
  }

  private send(channel: string, payload: string): void {
    this.chain(() => this.notifier.notify(channel, payload), `notify ${channel}`);
  }

  /** Runs `work` after everything sent before it; a failure is reported and the chain goes on. */
  private chain(work: () => Promise<void>, context: string): void {
    this.sending = this.sending.then(work).catch((e) => this.onError(asError(e), context));
  }

  private received(payload: string): void {
    let part: Part;
    try {
      part = JSON.parse(payload) as Part;
    } catch (e) {
      return this.onError(asError(e), 'a malformed cluster event');
    }
    if (part.n === this.nodeId) return;
    let text = part.d;
    if (part.c > 1) {
      const key = `${part.n}:${part.m}`;
      const parts = this.partial.get(key) ?? [];
      parts[part.i] = part.d;
      if (part.i < part.c - 1) {
        this.partial.set(key, parts);
        return;
      }
      this.partial.delete(key);
      text = parts.join('');
    }
    const message = JSON.parse(text) as E | E[];
    // A batch (an array, in publication order); a single event from a node of an earlier version.
    if (Array.isArray(message)) for (const event of message) this.local.publish(event);
    else this.local.publish(message);
  }

  private topicNote(payload: string): void {
    const note = JSON.parse(payload) as TopicNote;
    if (note.n === this.nodeId) return;
    if ('hello' in note) {
      // A node started: repeat every topic this node listens on.
      for (const topic of this.local.topics()) this.announce(topic, true);
      return;
    }
    let nodes = this.remote.get(note.t);
    if (note.on) {
      if (!nodes) this.remote.set(note.t, (nodes = new Set()));
      nodes.add(note.n);
    } else if (nodes) {
      nodes.delete(note.n);
      if (nodes.size === 0) this.remote.delete(note.t);
    }
  }
}
