import { createInboxMigration } from '@nest-outbox/inbox';
import { createOutboxMigration } from '@nest-outbox/outbox';
import type { MigrationInterface, QueryRunner } from 'typeorm';
import { createRelayMigration } from '@nest-outbox/relay';
import { pgIdentifier } from '../../../common/src';

/** Name of the outbox table inside the shipping service's schema. */
export const SHIPPING_OUTBOX_TABLE = 'outbox';

/** The shipments table (version 1) in `schema`, as a TypeORM migration class. */
export function createShipmentsTableMigration(schema: string): new () => MigrationInterface {
  const s = pgIdentifier('shipping-service', 'SHIPPING_SCHEMA', schema);
  return class CreateShipments1767225600101 implements MigrationInterface {
    readonly name = 'CreateShipments1767225600101';

    async up(runner: QueryRunner): Promise<void> {
      for (const sql of [
        `CREATE SCHEMA IF NOT EXISTS ${s}`,
        `CREATE TABLE IF NOT EXISTS ${s}."shipments" (
  id               uuid        PRIMARY KEY,
  order_id         uuid        NOT NULL,
  status           text        NOT NULL CHECK (status IN ('created', 'cancelled')),
  version          integer     NOT NULL,
  customer_id      text        NOT NULL,
  shipping_address text        NOT NULL,
  source_event_id  uuid        NOT NULL,
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now(),
  cancelled_at     timestamptz NULL,
  CONSTRAINT "shipments_order_id_key" UNIQUE (order_id)
)`,
      ])
        await runner.query(sql);
    }

    async down(runner: QueryRunner): Promise<void> {
      await runner.query(`DROP TABLE IF EXISTS ${s}."shipments"`);
    }
  };
}

/** Every migration of the shipping service: shipments, the inbox, the outbox, the relay's objects. */
export function shippingServiceMigrations(schema: string): (new () => MigrationInterface)[] {
  return [
    createShipmentsTableMigration(schema),
    createInboxMigration({ schema, timestamp: 1767225600102 }),
    createOutboxMigration({ schema, table: SHIPPING_OUTBOX_TABLE, timestamp: 1767225600103 }),
    createRelayMigration({ schema, table: SHIPPING_OUTBOX_TABLE, timestamp: 1767225600104 }),
  ];
}
