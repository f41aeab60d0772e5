import { qualifiedTable, sqlIdentifier } from '@nest-outbox/core/internal';
import { defaultPublication } from '../options/wal-options';
import { RELAY_MODULE } from '../relay.constants';
import { relayObjectNames, type RelayTableName } from '../schema/relay-schema.sql';
import { HISTORY, PENDING } from '../schema/row-state.sql';

/** The WAL mode's objects: the publication and the table of events set aside. @internal */
export function walObjectNames(name: RelayTableName, publication = defaultPublication(name)) {
  return {
    outbox: relayObjectNames(name).outbox,
    aside: qualifiedTable(RELAY_MODULE, name.schema, `${name.table}_relay_aside`),
    slots: qualifiedTable(RELAY_MODULE, name.schema, `${name.table}_relay_slot`),
    publication: sqlIdentifier(RELAY_MODULE, 'wal.publication', publication),
    publicationName: publication,
  };
}

/**
 * DDL of WAL mode (idempotent): a publication of the outbox's INSERTs only, and the table of
 * events set aside (a parked event and the later events of its aggregate held behind it).
 * @publicApi
 */
export function walSchemaSql(name: RelayTableName, publication?: string): string[] {
  const n = walObjectNames(name, publication);
  return [
    `CREATE TABLE IF NOT EXISTS ${n.aside} (
  id             bigint      PRIMARY KEY,
  aggregate_type text        NOT NULL,
  aggregate_id   text        NOT NULL,
  set_aside_at   timestamptz NOT NULL DEFAULT now()
)`,
    `CREATE TABLE IF NOT EXISTS ${n.slots} (
  slot          text        PRIMARY KEY,
  backfilled_at timestamptz NULL
)`,
    `DO $$ BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_publication WHERE pubname = '${n.publicationName}') THEN
    CREATE PUBLICATION ${n.publication} FOR TABLE ${n.outbox} WITH (publish = 'insert');
  END IF;
END $$`,
  ];
}

/** Drops what `walSchemaSql` creates (the slot is the relay's: `pg_drop_replication_slot`). @publicApi */
export function dropWalSchemaSql(name: RelayTableName, publication?: string): string[] {
  const n = walObjectNames(name, publication);
  return [
    `DROP PUBLICATION IF EXISTS ${n.publication}`,
    `DROP TABLE IF EXISTS ${n.slots}`,
    `DROP TABLE IF EXISTS ${n.aside}`,
  ];
}

/** What a WAL relay reads of an outbox row `t`, named as `ClaimedRow` names it. */
const ROW = `t.id::text AS id, t.event_id AS "eventId", t.event_type AS "eventType",
       t.schema_version AS "schemaVersion", t.aggregate_type AS "aggregateType",
       t.aggregate_id AS "aggregateId", t.aggregate_version::text AS "aggregateVersion",
       floor(extract(epoch FROM t.occurred_at) * 1000)::float8 AS "occurredAtMs",
       (extract(epoch FROM t.created_at) * 1000)::float8 AS "createdAtMs", t.payload::text AS payload,
       t.headers, t.topic, t.attempts, false AS suspect`;

/** Statements of the WAL relay. @internal */
export function walSql(name: RelayTableName, publication?: string) {
  const n = walObjectNames(name, publication);
  const T = n.outbox;
  return {
    walLevel: `SELECT current_setting('wal_level') AS level,
       (SELECT rolreplication OR rolsuper FROM pg_roles WHERE rolname = current_user) AS replication,
       EXISTS (SELECT 1 FROM pg_publication WHERE pubname = $1) AS publication,
       to_regclass('${n.aside.replace(/'/g, "''")}') IS NOT NULL
         AND to_regclass('${n.slots.replace(/'/g, "''")}') IS NOT NULL AS aside`,
    /** Before the slot is created: its rows committed before it must be published apart. */
    slotIntent: `INSERT INTO ${n.slots} (slot) VALUES ($1)
       ON CONFLICT (slot) DO UPDATE SET backfilled_at = NULL`,
    createSlot: `SELECT pg_create_logical_replication_slot($1, 'pgoutput')
       WHERE NOT EXISTS (SELECT 1 FROM pg_replication_slots WHERE slot_name = $1)`,
    slotState: `SELECT confirmed_flush_lsn::text AS confirmed, plugin, database = current_database() AS here
       FROM pg_replication_slots WHERE slot_name = $1`,
    /**
     * Once per slot, after it exists: the rows pending then (committed before the slot, or
     * after and read again from it) are set aside and published by the released rounds.
     */
    backfill: [
      `INSERT INTO ${n.aside} (id, aggregate_type, aggregate_id)
       SELECT t.id, t.aggregate_type, t.aggregate_id FROM ${T} t
        WHERE ${PENDING('t')} ON CONFLICT (id) DO NOTHING`,
      `UPDATE ${n.slots} SET backfilled_at = now() WHERE slot = $1 AND backfilled_at IS NULL`,
    ],
    backfillDue: `SELECT 1 FROM ${n.slots} WHERE slot = $1 AND backfilled_at IS NULL`,
    lag: `SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), confirmed_flush_lsn)::float8 AS bytes
       FROM pg_replication_slots WHERE slot_name = $1`,
    heartbeat: `SELECT pg_logical_emit_message(false, 'nest-outbox.heartbeat', '')`,
    /** Aggregates with events set aside: their later events are held too. */
    blocked: `SELECT DISTINCT aggregate_type AS "aggregateType", aggregate_id AS "aggregateId" FROM ${n.aside}`,
    /** Sets rows aside (`$1` ids, `$2` types, `$3` aggregate ids); one already there stays. */
    setAside: `INSERT INTO ${n.aside} (id, aggregate_type, aggregate_id)
       SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[]) ON CONFLICT (id) DO NOTHING`,
    /** Parks rows `$1` with attempts `$2`, kinds `$3` and errors `$4`, as polling mode does. */
    park: `UPDATE ${T} t SET attempts = v.attempt, parked_at = now(), parked_reason = v.kind || ': ' || v.error,
       next_attempt_at = NULL, lease_expires_at = NULL, last_error = v.error,
       error_history = ${HISTORY(`jsonb_build_object('at', now(), 'attempt', v.attempt, 'kind', v.kind, 'error', v.error)`)}
  FROM unnest($1::bigint[], $2::int[], $3::text[], $4::text[]) AS v(id, attempt, kind, error)
 WHERE t.id = v.id`,
    /**
     * Released rows, oldest first: set aside, and no earlier-or-same row of their aggregate
     * still parked (a skipped row comes back to be let go).
     */
    released: `SELECT ${ROW}, t.skipped_at IS NOT NULL AS skipped FROM ${n.aside} a JOIN ${T} t ON t.id = a.id
 WHERE NOT EXISTS (SELECT 1 FROM ${n.aside} b JOIN ${T} p ON p.id = b.id
                    WHERE b.aggregate_type = a.aggregate_type AND b.aggregate_id = a.aggregate_id
                      AND b.id <= a.id AND p.parked_at IS NOT NULL AND p.skipped_at IS NULL)
 ORDER BY a.id LIMIT $1`,
    /** Marks released rows `$1` published at partitions `$2`, offsets `$3`, and lets them go. */
    published: `WITH m AS (UPDATE ${T} t SET published_at = now(), kafka_partition = v.p, kafka_offset = v.o
       FROM unnest($1::bigint[], $2::int[], $3::bigint[]) AS v(id, p, o) WHERE t.id = v.id)
  DELETE FROM ${n.aside} WHERE id = ANY($1::bigint[])`,
    letGo: `DELETE FROM ${n.aside} WHERE id = ANY($1::bigint[])`,
  };
}

/** The WAL relay's statements of one outbox. @internal */
export type WalSql = ReturnType<typeof walSql>;
