import { createServer, connect, type Server, type Socket } from 'node:net';

/** A fault armed on the proxy: when a client sends `pattern`, `action` runs mid-statement. */
interface ArmedFault {
  readonly pattern: Buffer;
  /** Only a connection that sent this first can fire the fault (its own next statement). */
  readonly after: Buffer | undefined;
  /** False: the message never reaches the server (the statement surely did not run). */
  readonly forward: boolean;
  readonly action: () => Promise<void> | void;
  readonly fired: (at: string) => void;
}

/**
 * A TCP proxy in front of PostgreSQL that crashes the database at an exact protocol moment:
 * `armOnce(pattern, action)` waits for the first client message containing `pattern` (a
 * piece of SQL text: the claim's lock, the relay's mark, a consumer's COMMIT), forwards it,
 * holds back the server's answer, runs `action` (typically `pg.crash()`), then drops that
 * connection. The client never learns whether its statement ran: the in-doubt case.
 */
export class PgFaultProxy {
  private readonly sockets = new Set<Socket>();
  private armed: ArmedFault | undefined;

  private constructor(
    private readonly server: Server,
    readonly port: number,
  ) {}

  /** Listens on a free port, forwarding to 127.0.0.1:`targetPort`. */
  static async start(targetPort: number): Promise<PgFaultProxy> {
    const proxies: PgFaultProxy[] = [];
    const server = createServer((client) => proxies[0]?.accept(client, targetPort));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    const proxy = new PgFaultProxy(
      server,
      typeof address === 'object' && address ? address.port : 0,
    );
    proxies.push(proxy);
    return proxy;
  }

  /** A connection URL through the proxy. */
  url(database = 'postgres'): string {
    return `postgres://postgres@127.0.0.1:${this.port}/${database}`;
  }

  /**
   * Arms one fault; resolves (with the time it fired) once `action` ran. Messages matching
   * while another fault is armed wait for nothing: one fault at a time. With `after`, only a
   * connection that sent `after` first fires it (e.g. the COMMIT of one transaction, not any
   * other connection's COMMIT). With `forward: false` the matching message is dropped instead
   * of forwarded: the client's statement surely never ran.
   */
  armOnce(
    pattern: string,
    action: () => Promise<void> | void,
    options: { after?: string; forward?: boolean } = {},
  ): Promise<string> {
    return new Promise((fired) => {
      const after = options.after === undefined ? undefined : Buffer.from(options.after);
      const forward = options.forward ?? true;
      this.armed = { pattern: Buffer.from(pattern), after, forward, action, fired };
    });
  }

  /** Drops the armed fault, if any. */
  disarm(): void {
    this.armed = undefined;
  }

  private accept(client: Socket, targetPort: number): void {
    const upstream = connect(targetPort, '127.0.0.1');
    this.sockets.add(client).add(upstream);
    let held = false;
    let primedBy: ArmedFault | undefined;
    const drop = () => {
      client.destroy();
      upstream.destroy();
      this.sockets.delete(client);
      this.sockets.delete(upstream);
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    upstream.on('data', (chunk: Buffer) => {
      if (!held) client.write(chunk);
    });
    client.on('data', (chunk: Buffer) => {
      const fault = this.armed;
      if (fault?.after && primedBy !== fault && chunk.includes(fault.after)) primedBy = fault;
      const primed = !fault?.after || primedBy === fault;
      if (!fault || !primed || !chunk.includes(fault.pattern)) {
        if (!held) upstream.write(chunk);
        return;
      }
      this.armed = undefined;
      held = true;
      if (fault.forward) upstream.write(chunk);
      void (async () => {
        try {
          await fault.action();
        } finally {
          drop();
          fault.fired(new Date().toISOString());
        }
      })();
    });
  }

  /** Closes every connection and the listener. */
  async close(): Promise<void> {
    this.armed = undefined;
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
