import type { INestApplication } from '@nestjs/common';
import type { HttpsOptions } from '@nestjs/common/interfaces/external/https-options.interface';
import { Test } from '@nestjs/testing';
import { uuidv7 } from '@nest-outbox/core';
import { outboxSchemaSql } from '@nest-outbox/outbox';
import type { RelayConsoleAuth } from '@nest-outbox/relay-console';
import {
  DATABASE_URL,
  KAFKA_BROKERS,
  createTestSchema,
  createTopics,
  uniqueTopic,
  type TestSchema,
} from '@test/support';
import { RelayAppModule } from '../src/relay-app.module';
import { relayOptionsFromEnv } from '../src/relay-env.config';

/** A 48-character operator token. */
export const ALICE_TOKEN = 'alice-0123456789abcdef0123456789abcdef0123456789';

/** The standalone relay app in-process over its own schema and topic, console on. */
export class ConsoleFixture {
  readonly topic: string;
  app: INestApplication | undefined;

  private constructor(
    readonly db: TestSchema,
    prefix: string,
  ) {
    this.topic = uniqueTopic(prefix);
  }

  static async create(prefix: string): Promise<ConsoleFixture> {
    const fixture = new ConsoleFixture(await createTestSchema(prefix.replace(/-/g, '_')), prefix);
    for (const sql of outboxSchemaSql({ schema: fixture.db.name, table: 'outbox' }))
      await fixture.db.pool.query(sql);
    await createTopics([fixture.topic]);
    return fixture;
  }

  /**
   * Starts the app on a free port (RELAY_INSTALL_SCHEMA=1 so the audit table exists), with
   * `auth` as the console's access control (`null`: none); its base URL.
   */
  async start(
    auth: RelayConsoleAuth | null = { bearer: { tokens: { alice: ALICE_TOKEN } } },
    httpsOptions?: HttpsOptions,
  ): Promise<string> {
    const options = relayOptionsFromEnv({
      DATABASE_URL,
      KAFKA_BROKERS: KAFKA_BROKERS.join(','),
      OUTBOX_SCHEMA: this.db.name,
      RELAY_DEFAULT_TOPIC: this.topic,
      RELAY_INSTALL_SCHEMA: '1',
      RELAY_POLL_MAX_MS: '200',
      RELAY_RETENTION_MS: '0',
      RELAY_ID: `console-${this.db.name}`,
    });
    const moduleRef = await Test.createTestingModule({
      imports: [
        RelayAppModule.register(
          { ...options, connection: { connectionString: DATABASE_URL, max: 3 } },
          { auth: auth ?? undefined },
        ),
      ],
    }).compile();
    moduleRef.useLogger(false);
    this.app = moduleRef.createNestApplication({ httpsOptions });
    await this.app.listen(0, '127.0.0.1');
    return this.app.getUrl();
  }

  /** Inserts an event the relay parked (as after a permanent failure); its event id. */
  async parkedEvent(aggregateId: string, payload = '{"secret":"do-not-show"}'): Promise<string> {
    const eventId = uuidv7();
    await this.db.pool.query(
      `INSERT INTO "${this.db.name}".outbox (event_id, event_type, schema_version, aggregate_type,
         aggregate_id, aggregate_version, occurred_at, payload, attempts, parked_at, parked_reason, last_error)
       VALUES ($1, 'thing.happened', 1, 'thing', $2, 1, now(), $3, 5, now(), 'permanent', 'KafkaJSProtocolError[INVALID_RECORD]')`,
      [eventId, aggregateId, payload],
    );
    return eventId;
  }

  /** The row's relay state. */
  async row(eventId: string) {
    const { rows } = await this.db.pool.query<{
      parked: boolean;
      published: boolean;
      skipped_by: string | null;
      skip_reason: string | null;
    }>(
      `SELECT parked_at IS NOT NULL AS parked, published_at IS NOT NULL AS published, skipped_by, skip_reason
         FROM "${this.db.name}".outbox WHERE event_id = $1`,
      [eventId],
    );
    return rows[0];
  }

  /** The audit table, oldest first. */
  async audit() {
    const { rows } = await this.db.pool.query<{
      action: string;
      actor: string;
      reason: string | null;
      event_id: string | null;
      at: Date;
      details: Record<string, unknown>;
    }>(
      `SELECT action, actor, reason, event_id, at, details FROM "${this.db.name}".outbox_relay_audit ORDER BY id`,
    );
    return rows;
  }

  async stop(): Promise<void> {
    await this.app?.close();
    this.app = undefined;
  }

  async drop(): Promise<void> {
    await this.stop();
    await this.db.drop();
  }
}
