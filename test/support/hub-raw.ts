// Hand-made SignalR clients for frame-level tests: a WebSocket client that records every message as
// received, and a raw TCP upgrade that shows the 101 exactly and can stop reading.

import net from 'node:net';
import { waitFor } from './app.ts';

export const RS = '\x1e';

/** `{…}\x1e` for each value. */
export const records = (...values: unknown[]) => values.map((v) => JSON.stringify(v) + RS).join('');

export const HANDSHAKE = records({ protocol: 'json', version: 1 });

export class RawHubClient {
  /** Every WebSocket message received, as text, in order. */
  readonly messages: string[] = [];
  closeCode: number | null = null;

  private constructor(readonly ws: WebSocket) {
    ws.onmessage = (e) => this.messages.push(typeof e.data === 'string' ? e.data : new TextDecoder().decode(e.data as ArrayBuffer));
    ws.onclose = (e) => {
      this.closeCode = e.code;
    };
  }

  /** Opens a WebSocket to `url` (ws:// or http://); with `handshake`, sends it and waits for `{}\x1e`. */
  static async open(url: string, opts: { handshake?: boolean; headers?: Record<string, string> } = {}): Promise<RawHubClient> {
    const ws = new WebSocket(url.replace(/^http/, 'ws'), { headers: opts.headers } as any);
    const c = new RawHubClient(ws);
    await new Promise<void>((resolve, reject) => {
      ws.onopen = () => resolve();
      ws.onerror = () => reject(new Error(`WebSocket to ${url} failed`));
    });
    if (opts.handshake) {
      c.send(HANDSHAKE);
      await c.waitForText((t) => t.startsWith(`{}${RS}`));
    }
    return c;
  }

  send(text: string): void {
    this.ws.send(text);
  }

  /** Everything received so far, concatenated. */
  get text(): string {
    return this.messages.join('');
  }

  /** The records received so far, parsed (the handshake answer included). */
  get records(): any[] {
    return this.text
      .split(RS)
      .filter((r) => r !== '')
      .map((r) => JSON.parse(r));
  }

  /** The records after the handshake answer, without pings. */
  get messagesSent(): any[] {
    return this.records.slice(1).filter((r) => r.type !== 6);
  }

  async waitForText(cond: (text: string) => boolean, timeoutMs = 60_000): Promise<void> {
    await waitFor(() => cond(this.text), timeoutMs);
  }

  async waitForClose(timeoutMs = 60_000): Promise<number> {
    await waitFor(() => this.closeCode !== null, timeoutMs);
    return this.closeCode as number;
  }

  close(): void {
    this.ws.close();
  }
}

/** A WebSocket upgrade over plain TCP; `head` is the HTTP answer up to the blank line. */
export class RawTcpUpgrade {
  head = '';
  /** Bytes after the HTTP head (WebSocket frames). */
  body = Buffer.alloc(0);
  ended = false;

  private constructor(readonly socket: net.Socket) {
    let buf = Buffer.alloc(0);
    socket.on('data', (d: Buffer) => {
      if (this.head) {
        this.body = Buffer.concat([this.body, d]);
        return;
      }
      buf = Buffer.concat([buf, d]);
      const end = buf.indexOf('\r\n\r\n');
      if (end >= 0) {
        this.head = buf.subarray(0, end).toString('latin1');
        this.body = buf.subarray(end + 4);
      }
    });
    socket.on('close', () => {
      this.ended = true;
    });
    socket.on('error', () => {});
  }

  static async open(port: number, path: string, headers: Record<string, string> = {}): Promise<RawTcpUpgrade> {
    const socket = net.connect(port, '127.0.0.1');
    const u = new RawTcpUpgrade(socket);
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    const lines = [
      `GET ${path} HTTP/1.1`,
      'Host: 127.0.0.1',
      'Upgrade: websocket',
      'Connection: Upgrade',
      'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==',
      'Sec-WebSocket-Version: 13',
      ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
    ];
    socket.write(`${lines.join('\r\n')}\r\n\r\n`);
    await waitFor(() => u.head !== '' || u.ended);
    return u;
  }

  get status(): number {
    return Number(this.head.split(' ')[1]);
  }

  /** Header names (lower-case) → values. */
  get headers(): Record<string, string> {
    const out: Record<string, string> = {};
    for (const line of this.head.split('\r\n').slice(1)) {
      const i = line.indexOf(':');
      out[line.slice(0, i).toLowerCase()] = line.slice(i + 1).trim();
    }
    return out;
  }

  /** Sends one masked text frame (clients must mask). */
  sendText(text: string): void {
    this.sendFrame(0x1, Buffer.from(text, 'utf8'));
  }

  /** Sends one masked frame with `opcode` (0x1 text, 0x9 ping, …), FIN set. */
  sendFrame(opcode: number, payload: Buffer): void {
    const mask = Buffer.from([1, 2, 3, 4]);
    const len = payload.length;
    if (len > 0xffff) throw new Error('frame too long for this helper');
    const first = 0x80 | opcode;
    const header = len < 126 ? Buffer.from([first, 0x80 | len]) : Buffer.from([first, 0x80 | 126, len >> 8, len & 0xff]);
    const masked = Buffer.from(payload.map((b, i) => b ^ mask[i % 4]));
    this.socket.write(Buffer.concat([header, mask, masked]));
  }

  /** The text messages the server sent so far, parsed from its (unmasked) frames; a partial last frame is left out. */
  texts(): string[] {
    const out: string[] = [];
    let i = 0;
    const b = this.body;
    while (i + 2 <= b.length) {
      const opcode = b[i] & 0x0f;
      let len = b[i + 1] & 0x7f;
      let at = i + 2;
      if (len === 126) {
        if (at + 2 > b.length) break;
        len = b.readUInt16BE(at);
        at += 2;
      } else if (len === 127) {
        if (at + 8 > b.length) break;
        len = Number(b.readBigUInt64BE(at));
        at += 8;
      }
      if (at + len > b.length) break;
      if (opcode === 0x1) out.push(b.subarray(at, at + len).toString('utf8'));
      i = at + len;
    }
    return out;
  }

  /** The records of the text messages received so far, parsed (the handshake answer included). */
  get records(): any[] {
    return this.texts()
      .join('')
      .split(RS)
      .filter((r) => r !== '')
      .map((r) => JSON.parse(r));
  }

  /** Whether the server sent a WebSocket Close frame (opcode 8) so far. */
  get closeFrameReceived(): boolean {
    return this.body.length >= 2 && this.frames().includes(0x8);
  }

  private frames(): number[] {
    const ops: number[] = [];
    let i = 0;
    const b = this.body;
    while (i + 2 <= b.length) {
      let len = b[i + 1] & 0x7f;
      let at = i + 2;
      if (len === 126) [len, at] = [b.readUInt16BE(at), at + 2];
      else if (len === 127) [len, at] = [Number(b.readBigUInt64BE(at)), at + 8];
      if (at + len > b.length) break;
      ops.push(b[i] & 0x0f);
      i = at + len;
    }
    return ops;
  }

  destroy(): void {
    this.socket.destroy();
  }
}
