import { createOutboxMigration } from '@nest-outbox/outbox';
import type { MigrationInterface, QueryRunner } from 'typeorm';
import { createRelayMigration } from '@nest-outbox/relay';
import { pgIdentifier } from '../../../common/src';

/** Name of the outbox table inside the order service's schema. */
export const ORDERS_OUTBOX_TABLE = 'outbox';

/** The orders table (version 1) in `schema`, as a TypeORM migration class. */
export function createOrdersTableMigration(schema: string): new () => MigrationInterface {
  const s = pgIdentifier('order-service', 'ORDERS_SCHEMA', schema);
  return class CreateOrders1767225600001 implements MigrationInterface {
    readonly name = 'CreateOrders1767225600001';

    async up(runner: QueryRunner): Promise<void> {
      for (const sql of [
        `CREATE SCHEMA IF NOT EXISTS ${s}`,
        `CREATE TABLE IF NOT EXISTS ${s}."orders" (
  id               uuid        PRIMARY KEY,
  customer_id      text        NOT NULL,
  amount_cents     integer     NOT NULL CHECK (amount_cents > 0),
  currency         text        NOT NULL,
  shipping_address text        NOT NULL,
  status           text        NOT NULL CHECK (status IN ('pending', 'confirmed', 'cancelled')),
  version          integer     NOT NULL,
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now(),
  confirmed_at     timestamptz NULL,
  cancelled_at     timestamptz NULL,
  cancel_reason    text        NULL
)`,
        `CREATE INDEX IF NOT EXISTS "orders_created_at_idx" ON ${s}."orders" (created_at)`,
      ])
        await runner.query(sql);
    }

    async down(runner: QueryRunner): Promise<void> {
      await runner.query(`DROP TABLE IF EXISTS ${s}."orders"`);
    }
  };
}

/**
 * Every migration of the order service, in order: its table, the outbox (with the
 * idempotency keys of `@Idempotent()` commands), the relay's objects.
 */
export function orderServiceMigrations(schema: string): (new () => MigrationInterface)[] {
  return [
    createOrdersTableMigration(schema),
    createOutboxMigration({ schema, table: ORDERS_OUTBOX_TABLE, timestamp: 1767225600002 }),
    createRelayMigration({ schema, table: ORDERS_OUTBOX_TABLE, timestamp: 1767225600003 }),
  ];
}
