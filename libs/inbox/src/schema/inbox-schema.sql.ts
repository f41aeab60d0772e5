import { qualifiedTable, sqlIdentifier } from '@nest-outbox/core/internal';
import { INBOX_MODULE } from '../inbox.constants';

/**
 * Where the inbox's three tables live: the names `inboxSchemaSql`, `createInboxMigration`
 * and `InboxModule.forRoot()` take. Each one a lower-case SQL identifier. @publicApi
 */
export interface InboxTableNames {
  /** @default 'public' */
  readonly schema?: string;
  /** The inbox (one row per consumer and event). @default 'inbox' */
  readonly table?: string;
  /** Rejected and dead-lettered records. @default 'inbox_rejected' */
  readonly rejectedTable?: string;
  /** Last applied aggregate versions (`versionCheck`). @default 'inbox_aggregate_versions' */
  readonly versionsTable?: string;
}

/** Every table name, defaults applied (unquoted). @internal */
export interface InboxTableNamesResolved {
  readonly schema: string;
  readonly inbox: string;
  readonly rejected: string;
  readonly versions: string;
}

/** Applies the default table names. @internal */
export function inboxTableNames(names: InboxTableNames = {}): InboxTableNamesResolved {
  return {
    schema: names.schema ?? 'public',
    inbox: names.table ?? 'inbox',
    rejected: names.rejectedTable ?? 'inbox_rejected',
    versions: names.versionsTable ?? 'inbox_aggregate_versions',
  };
}

/**
 * Exact evidence of a rejected record: raw key (1 KiB max), headers as received (64 KiB max),
 * value length and SHA-256 (never the payload). @internal
 */
export const REJECTED_EVIDENCE = [
  ['key_bytes', 'bytea'],
  ['headers_bytes', 'bytea'],
  ['value_length', 'integer'],
  ['value_sha256', 'bytea'],
] as const;

/**
 * DDL of the inbox tables, version 1, as idempotent statements: the inbox (one row per
 * (consumer, event_id)), rejected records (reason and headers, never the payload; one per
 * (consumer, topic, partition, offset)), and aggregate versions (for `versionCheck`). @publicApi
 */
export function inboxSchemaSql(tables: InboxTableNames = {}): string[] {
  const n = inboxTableNames(tables);
  const inbox = qualifiedTable(INBOX_MODULE, n.schema, n.inbox);
  const rejected = qualifiedTable(INBOX_MODULE, n.schema, n.rejected);
  const versions = qualifiedTable(INBOX_MODULE, n.schema, n.versions);
  const name = (table: string, suffix: string) =>
    sqlIdentifier(INBOX_MODULE, 'tables', `${table}_${suffix}`);
  return [
    `CREATE SCHEMA IF NOT EXISTS ${sqlIdentifier(INBOX_MODULE, 'schema', n.schema)}`,
    `CREATE TABLE IF NOT EXISTS ${inbox} (
  consumer          text        NOT NULL,
  event_id          uuid        NOT NULL,
  event_type        text        NOT NULL,
  schema_version    integer     NOT NULL,
  aggregate_type    text        NOT NULL,
  aggregate_id      text        NOT NULL,
  aggregate_version bigint      NOT NULL,
  topic             text        NOT NULL,
  kafka_partition   integer     NOT NULL,
  kafka_offset      bigint      NOT NULL,
  processed_at      timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT ${name(n.inbox, 'pkey')} PRIMARY KEY (consumer, event_id)
)`,
    // Pruning walks processed rows by age.
    `CREATE INDEX IF NOT EXISTS ${name(n.inbox, 'processed_idx')} ON ${inbox} (processed_at)`,
    `CREATE TABLE IF NOT EXISTS ${rejected} (
  id                bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  consumer          text        NOT NULL,
  topic             text        NOT NULL,
  kafka_partition   integer     NOT NULL,
  kafka_offset      bigint      NOT NULL,
  reason_code       text        NOT NULL,
  reason            text        NOT NULL,
  event_id          text        NULL,
  event_type        text        NULL,
  aggregate_id      text        NULL,
  attempts          integer     NOT NULL DEFAULT 0,
  headers           jsonb       NOT NULL DEFAULT '{}'::jsonb,
  dead_letter_topic text        NULL,
  received_at       timestamptz NOT NULL DEFAULT now(),
${REJECTED_EVIDENCE.map(([column, type]) => `  ${column.padEnd(17)} ${type} NULL,`).join('\n')}
  CONSTRAINT ${name(n.rejected, 'record_key')} UNIQUE (consumer, topic, kafka_partition, kafka_offset)
)`,
    // Tables created before the evidence columns existed get them here (idempotent).
    ...REJECTED_EVIDENCE.map(
      ([column, type]) => `ALTER TABLE ${rejected} ADD COLUMN IF NOT EXISTS ${column} ${type} NULL`,
    ),
    `CREATE TABLE IF NOT EXISTS ${versions} (
  consumer          text        NOT NULL,
  aggregate_type    text        NOT NULL,
  aggregate_id      text        NOT NULL,
  last_version      bigint      NOT NULL,
  updated_at        timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT ${name(n.versions, 'pkey')} PRIMARY KEY (consumer, aggregate_type, aggregate_id)
)`,
  ];
}

/** Statements that remove the inbox tables (the schema is left alone). @publicApi */
export function dropInboxSchemaSql(tables: InboxTableNames = {}): string[] {
  const n = inboxTableNames(tables);
  return [n.inbox, n.rejected, n.versions].map(
    (t) => `DROP TABLE IF EXISTS ${qualifiedTable(INBOX_MODULE, n.schema, t)}`,
  );
}
