import { runNestOutbox } from '../../outbox/src/cli/nest-outbox.commands';
import type { Provider } from '@nestjs/common';
import type { TestingModule } from '@nestjs/testing';
import { KAFKA_BROKERS, startPrivatePostgres, type PrivatePostgres } from '@test/support';
import { logLevel } from 'kafkajs';
import { randomBytes } from 'node:crypto';
import { Pool } from 'pg';
import { WalRelay } from '../src/wal/wal-relay';
import { startRelay, type TestRelayOptions } from './relay-test.fixture';
import { TestProducer } from './test-producer';

/** A private PostgreSQL with `wal_level = logical`, for the WAL mode's tests. */
export function startLogicalPostgres(): Promise<PrivatePostgres> {
  return startPrivatePostgres({
    settings: { wal_level: 'logical', max_replication_slots: '10', max_wal_senders: '10' },
  });
}

/**
 * One outbox (its own schema, migrated with `npx nest-outbox migrate --wal`) on a private
 * PostgreSQL, its producer, and the WAL relays a test starts on it.
 */
export class WalScene {
  readonly producer: TestProducer;
  private readonly modules: TestingModule[] = [];

  private constructor(
    readonly pg: PrivatePostgres,
    readonly schema: string,
    readonly pool: Pool,
  ) {
    this.producer = new TestProducer(pool, schema);
  }

  static async create(pg: PrivatePostgres, prefix: string): Promise<WalScene> {
    const schema = `t_${prefix}_${randomBytes(3).toString('hex')}`;
    const pool = new Pool({ connectionString: pg.url, max: 4 });
    await pool.query(`CREATE SCHEMA "${schema}"`);
    const out: string[] = [];
    const io = { out: (line: string) => out.push(line), err: (line: string) => out.push(line) };
    const code = await runNestOutbox('migrate', { url: pg.url, schema, wal: true }, io);
    if (code !== 0) throw new Error(`migrate --wal failed: ${out.join('\n')}`);
    return new WalScene(pg, schema, pool);
  }

  /** Options of a WAL relay on this outbox: fast standby, fast heartbeat, no housekeeping. */
  options(overrides: Partial<TestRelayOptions> = {}): TestRelayOptions {
    return {
      connection: this.pg.url,
      kafka: { clientId: 'wal-test', brokers: KAFKA_BROKERS, logLevel: logLevel.NOTHING },
      routing: { defaultTopic: 'unused-default' },
      retention: false,
      mode: 'wal',
      ...overrides,
      wal: { acquireIntervalMs: 300, heartbeatMs: 500, releasedPollMs: 200, ...overrides.wal },
      schema: this.schema,
      tuning: {
        publishTimeoutMs: 3000,
        statsIntervalMs: 500,
        retry: { baseDelayMs: 50, maxDelayMs: 500 },
        ...overrides.tuning,
      },
    };
  }

  async start(overrides: Partial<TestRelayOptions> = {}, providers: Provider[] = []) {
    const moduleRef = await startRelay(this.options(overrides), providers);
    this.modules.push(moduleRef);
    return moduleRef;
  }

  async stop(moduleRef: TestingModule): Promise<void> {
    this.modules.splice(this.modules.indexOf(moduleRef), 1);
    await moduleRef.close();
  }

  /** The slot's reader (its walsender's pid, null when none) and confirmed position. */
  async slot(name = `nest_outbox_${this.schema}_outbox`) {
    const { rows } = await this.pool.query<{ pid: number | null; confirmed: string }>(
      `SELECT active_pid AS pid, confirmed_flush_lsn::text AS confirmed FROM pg_replication_slots WHERE slot_name = $1`,
      [name],
    );
    return rows[0];
  }

  static wal(moduleRef: TestingModule): WalRelay {
    return moduleRef.get(WalRelay);
  }

  async close(): Promise<void> {
    for (const m of this.modules.splice(0)) await m.close().catch(() => undefined);
    await this.pool.end();
  }
}
