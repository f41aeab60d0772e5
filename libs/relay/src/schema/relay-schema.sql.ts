import { pressureRowSql, qualifiedTable, sqlIdentifier } from '@nest-outbox/core/internal';
import { RELAY_MODULE } from '../relay.constants';

/** Where the outbox table lives. */
export interface RelayTableName {
  readonly schema: string;
  readonly table: string;
}

/** Names of the relay's own objects next to the outbox table. @publicApi */
export function relayObjectNames(name: RelayTableName) {
  const id = (suffix: string) => sqlIdentifier(RELAY_MODULE, 'table', `${name.table}_${suffix}`);
  const q = (suffix: string) =>
    qualifiedTable(RELAY_MODULE, name.schema, `${name.table}_${suffix}`);
  return {
    outbox: qualifiedTable(RELAY_MODULE, name.schema, name.table),
    claimIndex: id('relay_claim_idx'),
    audit: q('relay_audit'),
    auditIndex: id('relay_audit_event_idx'),
    archive: q('archive'),
    pressure: q('pressure'),
  };
}

/**
 * The relay's own idempotent DDL on top of the outbox table: the claim index (pending rows in
 * id order), the audit, archive and one-row pressure tables.
 * @publicApi
 */
export function relaySchemaSql(name: RelayTableName): string[] {
  const n = relayObjectNames(name);
  return [
    `CREATE INDEX IF NOT EXISTS ${n.claimIndex} ON ${n.outbox} (id)
  WHERE published_at IS NULL AND skipped_at IS NULL`,
    `CREATE TABLE IF NOT EXISTS ${n.audit} (
  id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  at         timestamptz NOT NULL DEFAULT now(),
  action     text        NOT NULL,
  actor      text        NOT NULL,
  reason     text        NULL,
  event_id   uuid        NULL,
  details    jsonb       NOT NULL DEFAULT '{}'::jsonb
)`,
    `CREATE INDEX IF NOT EXISTS ${n.auditIndex} ON ${n.audit} (event_id)`,
    `CREATE TABLE IF NOT EXISTS ${n.archive} (LIKE ${n.outbox} INCLUDING DEFAULTS)`,
    pressureRowSql(RELAY_MODULE, name.schema, name.table).create,
  ];
}

/** Drops what `relaySchemaSql` creates, rows included; the outbox table stays. @publicApi */
export function dropRelaySchemaSql(name: RelayTableName): string[] {
  const n = relayObjectNames(name);
  const schema = sqlIdentifier(RELAY_MODULE, 'schema', name.schema);
  return [
    `DROP TABLE IF EXISTS ${n.pressure}`,
    `DROP TABLE IF EXISTS ${n.archive}`,
    `DROP TABLE IF EXISTS ${n.audit}`,
    `DROP INDEX IF EXISTS ${schema}.${n.claimIndex}`,
  ];
}
