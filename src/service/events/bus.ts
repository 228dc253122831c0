// How events leave the engine: one small publish/subscribe interface. The in-process bus below is the
// default; a cluster carries the same events between nodes (PostgreSQL LISTEN/NOTIFY) behind the same
// interface, so neither the services that publish nor the hubs that subscribe change. Events are plain
// JSON-able data in domain units (ticks, cents, epoch seconds), never references to live objects.

import { asError } from '../../lib/thrown.ts';

export type Unsubscribe = () => void;

export interface EventBus<E extends { topic: string }> {
  /** Delivers `event` to every subscriber of `event.topic`, in publish order. Never throws. */
  publish(event: E): void;
  subscribe(topic: string, handler: (event: E) => void): Unsubscribe;
  /** How many handlers listen on a topic (publishers skip building events nobody reads). */
  listeners(topic: string): number;
}

/** Synchronous in-process delivery: a handler's exception is reported, never propagated to the publisher. */
export class LocalEventBus<E extends { topic: string }> implements EventBus<E> {
  private readonly handlers = new Map<string, Set<(event: E) => void>>();

  constructor(private readonly onError: (error: Error, event: E) => void = () => {}) {}

  publish(event: E): void {
    const set = this.handlers.get(event.topic);
    if (!set) return;
    for (const h of set) {
      try {
        h(event);
      } catch (e) {
        this.onError(asError(e), event);
      }
    }
  }

  subscribe(topic: string, handler: (event: E) => void): Unsubscribe {
    let set = this.handlers.get(topic);
    if (!set) this.handlers.set(topic, (set = new Set()));
    set.add(handler);
    return () => {
      set.delete(handler);
      if (set.size === 0 && this.handlers.get(topic) === set) this.handlers.delete(topic);
    };
  }

  listeners(topic: string): number {
    return this.handlers.get(topic)?.size ?? 0;
  }

  /** The topics with a handler now. */
  topics(): string[] {
    return [...this.handlers.keys()];
  }
}
