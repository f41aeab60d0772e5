/** The part of a node-postgres client the notify connection uses. @internal */
export interface NotifyClient {
  connect(): Promise<unknown>;
  query(text: string): Promise<unknown>;
  end(): Promise<unknown>;
  on(event: 'error', listener: (error: Error) => void): unknown;
}

interface Connection {
  readonly client: NotifyClient;
  readonly ready: Promise<unknown>;
}

/**
 * A connection of its own for the wake-up notifications (no pool checkout competing with
 * business transactions): opened on the first send with `synchronous_commit` off (a hint needs
 * no WAL flush), closed after `idleMs` idle, dropped after an error.
 * @internal
 */
export class NotifyConnection {
  private connection: Connection | undefined;
  private idleTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly createClient: () => NotifyClient,
    private readonly sql: string,
    private readonly idleMs: number,
  ) {}

  /** Rejects (and drops the connection) on failure. */
  async send(): Promise<void> {
    const connection = (this.connection ??= this.open());
    try {
      await connection.ready;
      await connection.client.query(this.sql);
    } catch (error) {
      this.drop(connection);
      throw error;
    }
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => void this.close(), this.idleMs).unref();
  }

  async close(): Promise<void> {
    clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
    const connection = this.connection;
    this.connection = undefined;
    await connection?.client.end().catch(() => undefined);
  }

  private open(): Connection {
    const client = this.createClient();
    const ready = client.connect().then(() => client.query('SET synchronous_commit = off'));
    const connection = { client, ready };
    // A broken connection emits 'error' (unhandled, it would crash the process): drop it.
    client.on('error', () => this.drop(connection));
    return connection;
  }

  private drop(connection: Connection): void {
    if (this.connection === connection) this.connection = undefined;
    connection.client.end().catch(() => undefined);
  }
}
