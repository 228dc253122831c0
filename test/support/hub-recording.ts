// A hub connection that records what a hub sends, for driving hub methods without the transport.

import type { HubConnection, HubDefinition } from '../../src/http/hubs/signalr/hub.ts';
import type { TestApp } from './app.ts';

export interface Recorded {
  target: string;
  args: unknown[];
  coalesceKey?: string;
}

/** A connection that records what a hub sends, for one user's token. */
export async function recordingConnection(t: TestApp, hub: HubDefinition, token: string) {
  const principal = await t.s.auth.authenticate(token);
  if (!principal) throw new Error('token refused');
  const sent: Recorded[] = [];
  const closes: (string | undefined)[] = [];
  const conn: HubConnection = {
    id: `test-${Math.random()}`,
    hubPath: hub.path,
    principal,
    state: new Map(),
    send(target, args, opts) {
      sent.push({ target, args: [...args], coalesceKey: opts?.coalesceKey });
    },
    close(error) {
      closes.push(error);
      hub.onDisconnected?.(conn);
    },
    get closed() {
      return closes.length > 0;
    },
  };
  hub.onConnected?.(conn);
  const invoke = async (method: string, ...args: unknown[]) => hub.methods[method](conn, args);
  return { conn, sent, closes, invoke };
}

