import { loadOptionalPeer, qualifiedTable } from '@nest-outbox/core/internal';
import { idempotencyTable } from '../idempotency/idempotency.sql';
import { dropOutboxSchemaSql, outboxSchemaSql } from '../schema/outbox-schema.sql';

/** One package's DDL for one schema: its statements and the relations they create. @internal */
export interface SchemaPart {
  readonly name: 'outbox' | 'relay' | 'inbox' | 'wal';
  readonly up: string[];
  readonly down: string[];
  /** Qualified names `to_regclass` finds once `up` ran. */
  readonly relations: string[];
}

type Ddl = (name: { schema: string; table: string }) => string[];
/** Of the optional `@nest-outbox/relay` and `@nest-outbox/inbox`. */
interface RelayApi {
  relaySchemaSql: Ddl;
  dropRelaySchemaSql: Ddl;
  relayObjectNames(name: { schema: string; table: string }): Record<string, string>;
  walSchemaSql?: (name: { schema: string; table: string }, publication?: string) => string[];
  dropWalSchemaSql?: (name: { schema: string; table: string }, publication?: string) => string[];
}
interface InboxApi {
  inboxSchemaSql(names: { schema: string }): string[];
  dropInboxSchemaSql(names: { schema: string }): string[];
}

// eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only if installed
const optionalPackage = <T>(name: string) => loadOptionalPeer(name, () => require(name) as T);

/**
 * The DDL of the outbox table, and of the relay's and the inbox's objects when those
 * packages are installed, for `schema` (outbox table `table`). @internal
 */
export function schemaParts(
  schema: string,
  table: string,
  wal?: { readonly publication?: string },
): SchemaPart[] {
  const name = { schema, table };
  const parts: SchemaPart[] = [
    {
      name: 'outbox',
      up: outboxSchemaSql(name),
      down: dropOutboxSchemaSql(name),
      relations: [qualifiedTable('nest-outbox', schema, table), idempotencyTable(schema, table)],
    },
  ];
  const relay = optionalPackage<RelayApi>('@nest-outbox/relay');
  if (relay) {
    const n = relay.relayObjectNames(name);
    parts.push({
      name: 'relay',
      up: relay.relaySchemaSql(name),
      down: relay.dropRelaySchemaSql(name),
      relations: [n.audit!, n.archive!, n.pressure!, `"${schema}".${n.claimIndex!}`],
    });
    if (wal && relay.walSchemaSql && relay.dropWalSchemaSql)
      parts.push({
        name: 'wal',
        up: relay.walSchemaSql(name, wal.publication),
        down: relay.dropWalSchemaSql(name, wal.publication),
        relations: [qualifiedTable('nest-outbox', schema, `${table}_relay_aside`)],
      });
  }
  const inbox = optionalPackage<InboxApi>('@nest-outbox/inbox');
  if (inbox) {
    const tables = ['inbox', 'inbox_rejected', 'inbox_aggregate_versions'];
    parts.push({
      name: 'inbox',
      up: inbox.inboxSchemaSql({ schema }),
      down: inbox.dropInboxSchemaSql({ schema }),
      relations: tables.map((t) => qualifiedTable('nest-outbox', schema, t)),
    });
  }
  return parts;
}
