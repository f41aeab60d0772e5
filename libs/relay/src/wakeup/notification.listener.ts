import { Logger } from '@nestjs/common';
import { Backoff, errorLabel } from '@nest-outbox/core/internal';
import { Client, type ClientConfig, type PoolConfig } from 'pg';

/**
 * One dedicated connection that LISTENs for the producers' notifications naming this outbox
 * (or empty), reconnecting with backoff. A lost notification costs at most one poll interval.
 * @internal
 */
export class NotificationListener {
  private readonly logger = new Logger('RelayNotificationListener');
  private client: Client | undefined;
  private stopped = false;
  private retryTimer: NodeJS.Timeout | undefined;
  private readonly retryDelay = new Backoff({ baseMs: 200, capMs: 10_000 });

  constructor(
    private readonly config: PoolConfig,
    private readonly channel: string,
    private readonly payload: string,
    private readonly onNotify: () => void,
  ) {}

  async start(): Promise<void> {
    this.stopped = false;
    await this.connect().catch((error: unknown) => this.scheduleRetry(error));
  }

  private async connect(): Promise<void> {
    const client = new Client(this.config as ClientConfig);
    client.on('error', (error) => this.scheduleRetry(error, client));
    client.on('notification', (n) => {
      if (n.channel !== this.channel) return;
      if (!n.payload || n.payload === this.payload) this.onNotify();
    });
    await client.connect();
    await client.query(`LISTEN "${this.channel}"`);
    if (this.stopped) {
      await client.end().catch(() => undefined);
      return;
    }
    this.client = client;
    this.retryDelay.reset();
    this.onNotify(); // anything committed while we were not listening
  }

  private scheduleRetry(error: unknown, client?: Client): void {
    if (client && client !== this.client) return;
    this.client = undefined;
    void client?.end().catch(() => undefined);
    if (this.stopped || this.retryTimer) return;
    const delay = this.retryDelay.next();
    this.logger.warn(`LISTEN connection lost (${errorLabel(error)}); retrying in ${delay} ms`);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      void this.connect().catch((e: unknown) => this.scheduleRetry(e));
    }, delay);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retryTimer);
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }
}
