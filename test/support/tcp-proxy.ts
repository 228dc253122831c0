// A TCP proxy on 127.0.0.1 in front of a test server, to fail the network under a real client: it
// can hold what the server sends (the server has written it, the client gets it late or never), hold what
// clients send (as a paused server's socket holds a request it has not read, after the client gave
// up) and deliver it later, and cut every connection at once without any WebSocket close (as a
// dropped Wi-Fi or a NAT timeout does).

import net from 'node:net';

interface Pair {
  client: net.Socket;
  upstream: net.Socket;
  /** What the client sent while upstream was held, not yet delivered. */
  kept: Buffer[];
}

export class TcpProxy {
  /** Connections accepted so far. */
  accepted = 0;
  /** Bytes the server sent that were held and then thrown away by `cutAll`. */
  discardedBytes = 0;
  private readonly pairs = new Set<Pair>();
  private holding = false;
  private held: { to: net.Socket; bytes: Buffer }[] = [];
  private holdingUpstream = false;
  /** Everything servers sent, through or held (latin1), to wait for an answer. */
  private fromServers = '';

  private constructor(
    private readonly server: net.Server,
    readonly port: number,
  ) {}

  static async start(targetPort: number): Promise<TcpProxy> {
    let proxy!: TcpProxy;
    const server = net.createServer((client) => proxy.accept(client, targetPort));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    proxy = new TcpProxy(server, (server.address() as net.AddressInfo).port);
    return proxy;
  }

  /** From now on, what the server sends is kept from the clients (until `cutAll` throws it away). */
  holdDownstream(): void {
    this.holding = true;
  }

  /** Every connection through the proxy cut at once, with no WebSocket close; held bytes are lost. */
  cutAll(): number {
    const n = this.pairs.size;
    for (const p of this.pairs) {
      p.client.destroy();
      p.upstream.destroy();
    }
    this.pairs.clear();
    this.discardedBytes += this.held.reduce((sum, h) => sum + h.bytes.length, 0);
    this.held = [];
    this.holding = false;
    return n;
  }

  /**
   * From now on, what clients send is kept from the server, also after the client goes away (its
   * connection to the server stays open), until `releaseUpstream`.
   */
  holdUpstream(): void {
    this.holdingUpstream = true;
  }

  /** Bytes clients sent that are being kept from the server. */
  keptBytes(): number {
    let n = 0;
    for (const p of this.pairs) for (const b of p.kept) n += b.length;
    return n;
  }

  /** Delivers what was kept to the server, on the connection each came on; stops keeping. */
  releaseUpstream(): void {
    this.holdingUpstream = false;
    for (const p of this.pairs) {
      for (const b of p.kept) p.upstream.write(b);
      p.kept = [];
    }
  }

  /** Whether any server has sent `text` so far (held or passed on). */
  serverSent(text: string): boolean {
    return this.fromServers.includes(text);
  }

  /** Passes what servers sent meanwhile on to their clients (those still there); stops holding. */
  releaseDownstream(): void {
    this.holding = false;
    for (const h of this.held) if (!h.to.destroyed) h.to.write(h.bytes);
    this.held = [];
  }

  /** Whether anything held so far contains `text`. */
  heldContains(text: string): boolean {
    return Buffer.concat(this.held.map((h) => h.bytes)).includes(text);
  }

  async stop(): Promise<void> {
    this.cutAll();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(client: net.Socket, targetPort: number): void {
    this.accepted++;
    const upstream = net.connect(targetPort, '127.0.0.1');
    const pair: Pair = { client, upstream, kept: [] };
    this.pairs.add(pair);
    client.on('data', (d: Buffer) => {
      if (this.holdingUpstream) pair.kept.push(d);
      else upstream.write(d);
    });
    upstream.on('data', (d: Buffer) => {
      this.fromServers += d.toString('latin1');
      if (this.holding) this.held.push({ to: client, bytes: d });
      else if (!client.destroyed) client.write(d);
    });
    const end = () => {
      this.pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    // A client gone with bytes kept from the server: the server's side stays, to be delivered.
    client.on('close', () => {
      if (pair.kept.length === 0) end();
    });
    upstream.on('close', end);
    client.on('error', () => {});
    upstream.on('error', () => {});
  }
}
