import { createSqlMigration, sqlIdentifier } from '@nest-outbox/core/internal';
import { createInboxMigration } from '@nest-outbox/inbox';
import { createOutboxMigration } from '@nest-outbox/outbox';
import type { MigrationInterface } from 'typeorm';
import { createRelayMigration } from '@nest-outbox/relay';

/** Name of the outbox table inside the shipping service's schema. */
export const SHIPPING_OUTBOX_TABLE = 'outbox';

/** The shipments table (version 1) in `schema`, as a TypeORM migration class. */
export function createShipmentsTableMigration(schema: string): new () => MigrationInterface {
  const s = sqlIdentifier('shipping-service', 'SHIPPING_SCHEMA', schema);
  return createSqlMigration('CreateShipments1767225600101', {
    up: [
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
    ],
    down: [`DROP TABLE IF EXISTS ${s}."shipments"`],
  });
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
