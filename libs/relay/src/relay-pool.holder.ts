import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { errorLabel } from '@nest-outbox/core/internal';
import { Pool, type PoolConfig } from 'pg';
import { RELAY_PG_POOL } from './relay.constants';

/**
 * The relay's pool, with an 'error' listener on the pool and on every client it opens: a
 * connection that breaks (a PostgreSQL restart or crash) while idle or checked out emits
 * 'error', and an unheard 'error' event ends the process. The statement in progress fails
 * on its own; the loop retries with backoff and the pool opens new connections.
 * @internal
 */
export function createRelayPool(config: PoolConfig): Pool {
  const logger = new Logger('RelayPool');
  const pool = new Pool({ application_name: 'nest-outbox-relay', ...config });
  const onError = (error: unknown) =>
    logger.warn(`PostgreSQL connection lost (${errorLabel(error)}); the pool opens a new one`);
  pool.on('error', onError);
  pool.on('connect', (client) => client.on('error', onError));
  return pool;
}

/** Ends the relay's pool after every relay service stopped (they stop before shutdown). @internal */
@Injectable()
export class RelayPoolHolder implements OnApplicationShutdown {
  constructor(@Inject(RELAY_PG_POOL) private readonly pool: Pool) {}

  async onApplicationShutdown(): Promise<void> {
    await this.pool.end().catch(() => undefined);
  }
}
