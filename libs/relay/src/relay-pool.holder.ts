import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import type { Pool } from 'pg';
import { RELAY_PG_POOL } from './relay.constants';

/** Ends the relay's pool after every relay service stopped (they stop before shutdown). @internal */
@Injectable()
export class RelayPoolHolder implements OnApplicationShutdown {
  constructor(@Inject(RELAY_PG_POOL) private readonly pool: Pool) {}

  async onApplicationShutdown(): Promise<void> {
    await this.pool.end().catch(() => undefined);
  }
}
