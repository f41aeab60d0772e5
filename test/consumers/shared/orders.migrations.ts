import { createInboxMigration } from '@nest-outbox/inbox';
import { createOutboxMigration } from '@nest-outbox/outbox';
import { createRelayMigration } from '@nest-outbox/relay';
import type { MigrationInterface, QueryRunner } from 'typeorm';
import { consumerEnv } from './consumer-env.js';

const { schema } = consumerEnv;

/** The app's own tables: the orders it changes and the shipments its handler writes. */
class CreateOrders1767225600001 implements MigrationInterface {
  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`CREATE TABLE "${schema}".orders (
      id uuid PRIMARY KEY, status text NOT NULL, version integer NOT NULL)`);
    await runner.query(`CREATE TABLE "${schema}".shipments (
      order_id uuid PRIMARY KEY, source_event_id uuid NOT NULL)`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE "${schema}".shipments, "${schema}".orders`);
  }
}

/** The app's migrations plus the three the libraries provide. */
export const migrations = [
  CreateOrders1767225600001,
  createOutboxMigration({ schema, table: 'outbox', timestamp: 1767225600002 }),
  createRelayMigration({ schema, table: 'outbox', timestamp: 1767225600003 }),
  createInboxMigration({ schema, timestamp: 1767225600004 }),
];
