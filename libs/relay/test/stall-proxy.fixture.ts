import { connect, createServer, type Server, type Socket } from 'node:net';
import { logLevel, type KafkaConfig } from 'kafkajs';

/** One client connection seen by the proxy. */
export interface ProxiedConnection {
  readonly openedAt: number;
  /** When the client side closed ('close' on the proxy's socket), if it did. */
  closedAt: number | undefined;
}

/**
 * A TCP proxy in front of a broker that can stall on command: while stalled it keeps
 * reading what clients send but forwards nothing (requests are held, never answered). Held
 * bytes of a connection the client closes are dropped, never delivered late. On un-stall the
 * held bytes of live connections are forwarded in order.
 */
export class StallProxy {
  readonly connections: ProxiedConnection[] = [];
  private server: Server | undefined;
  private stalled = false;
  private readonly live = new Set<{ held: Buffer[]; upstream: Socket; client: Socket }>();

  constructor(private readonly target: { host: string; port: number }) {}

  /** Listens on a free port; returns "127.0.0.1:port". */
  async start(): Promise<string> {
    this.server = createServer((client) => this.accept(client));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return `127.0.0.1:${(this.server.address() as { port: number }).port}`;
  }

  /** A kafkajs config whose every connection goes through the (started) proxy. */
  kafkaConfig(clientId: string): KafkaConfig {
    const port = (this.server!.address() as { port: number }).port;
    return {
      clientId,
      brokers: [`127.0.0.1:${port}`],
      logLevel: logLevel.NOTHING,
      connectionTimeout: 1000,
      // kafkajs' default: without a real cancel, an abandoned request would hold its socket this long.
      requestTimeout: 30_000,
      // Also the connections to the broker's advertised address.
      socketFactory: ({ onConnect }) => connect({ host: '127.0.0.1', port }, onConnect),
    };
  }

  private accept(client: Socket): void {
    const seen: ProxiedConnection = { openedAt: Date.now(), closedAt: undefined };
    this.connections.push(seen);
    const upstream = connect(this.target.port, this.target.host);
    const entry = { held: [] as Buffer[], upstream, client };
    this.live.add(entry);
    client.on('data', (chunk: Buffer) => {
      if (this.stalled || entry.held.length > 0) entry.held.push(chunk);
      else upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => client.write(chunk));
    const end = () => {
      this.live.delete(entry);
      entry.held = [];
      client.destroy();
      upstream.destroy();
    };
    client.on('close', () => {
      seen.closedAt ??= Date.now();
      end();
    });
    upstream.on('close', end);
    client.on('error', () => undefined);
    upstream.on('error', () => undefined);
  }

  /** Holds every request from now on. */
  stall(): void {
    this.stalled = true;
  }

  /** Forwards the held requests of live connections and everything after. */
  unstall(): void {
    this.stalled = false;
    for (const entry of this.live) {
      for (const chunk of entry.held) entry.upstream.write(chunk);
      entry.held = [];
    }
  }

  /** Destroys every live connection (new ones are still accepted). */
  cut(): void {
    for (const entry of this.live) {
      entry.client.destroy();
      entry.upstream.destroy();
    }
  }

  /** Connections opened before `at` and still open. */
  openSince(at: number): ProxiedConnection[] {
    return this.connections.filter((c) => c.openedAt <= at && c.closedAt === undefined);
  }

  async stop(): Promise<void> {
    for (const entry of this.live) {
      entry.client.destroy();
      entry.upstream.destroy();
    }
    await new Promise((resolve) => (this.server ? this.server.close(resolve) : resolve(null)));
  }
}
