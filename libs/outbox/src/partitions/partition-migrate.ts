import {
  InvalidOptionsError,
  keepDuration,
  loadOptionalPeer,
  partitionPeriod,
  PartitionMaintainer,
  type PartitionPolicy,
  type SqlExecutor,
} from '@nest-outbox/core/internal';
import { OUTBOX_PARTITION_STORAGE, partitionedOutboxSchemaSql } from './partitioned-outbox.sql';

/** The flags of `migrate` and `sql` about partitions. @internal */
export const PARTITION_FLAGS = {
  partition: { type: 'string' },
  keep: { type: 'string' },
} as const;

/** What these functions read of the CLI's schema parts. */
interface SchemaPart {
  readonly name: string;
  readonly up: string[];
}

/** What the CLI reads of `@nest-outbox/inbox` for partitions (an optional package here). */
interface InboxPartitionApi {
  partitionedInboxSchemaSql(names: { schema: string }): string[];
}

/**
 * The policy `--partition` and `--keep` give; `undefined` without `--partition`.
 * @throws InvalidOptionsError naming the flag and what to type
 * @internal
 */
export function partitionPolicyOf(values: {
  partition?: string;
  keep?: string;
}): PartitionPolicy | undefined {
  if (values.partition === undefined) {
    if (values.keep !== undefined)
      throw new InvalidOptionsError('nest-outbox', '--keep', 'needs --partition (daily, ...)');
    return undefined;
  }
  return {
    period: partitionPeriod('nest-outbox', '--partition', values.partition),
    keepMs: values.keep === undefined ? 0 : keepDuration('nest-outbox', '--keep', values.keep),
  };
}

/** The partitioned tables `parts` may hold: the outbox table, and the inbox's when installed. */
function maintainers(
  parts: readonly SchemaPart[],
  name: { schema: string; table: string },
): Map<string, PartitionMaintainer> {
  const { schema, table } = name;
  const storage = OUTBOX_PARTITION_STORAGE;
  const found = new Map([
    ['outbox', new PartitionMaintainer({ module: 'OutboxModule', schema, table, storage })],
  ]);
  if (parts.some((p) => p.name === 'inbox'))
    found.set('inbox', new PartitionMaintainer({ module: 'InboxModule', schema, table: 'inbox' }));
  return found;
}

/**
 * `parts` with the outbox table and the inbox table range-partitioned when `policy` is given;
 * with `setup`, each with its policy comment and default partition too (what `migrate` adds
 * in `installPartitions`, after its checks).
 * @internal
 */
export function partitionedParts<P extends SchemaPart>(
  parts: P[],
  name: { schema: string; table: string },
  policy: PartitionPolicy | undefined,
  withSetup = false,
): P[] {
  if (!policy) return parts;
  const tables = maintainers(parts, name);
  return parts.map((part) => {
    const setup = (withSetup && tables.get(part.name)?.setupSql(policy)) || [];
    if (part.name === 'outbox')
      return { ...part, up: [...partitionedOutboxSchemaSql(name), ...setup] };
    if (part.name !== 'inbox') return part;
    const inbox = loadOptionalPeer(
      '@nest-outbox/inbox',
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- present: the part exists
      () => require('@nest-outbox/inbox') as InboxPartitionApi,
    );
    const up = inbox?.partitionedInboxSchemaSql({ schema: name.schema }) ?? part.up;
    return { ...part, up: [...up, ...setup] };
  });
}

/**
 * After the DDL, in the same transaction: the partitions ahead of each partitioned table
 * (`policy` given; or, without it, a table partitioned before, whose own policy is kept).
 * Returns the partitions created (unquoted names).
 * @throws PartitionSetupError when a table cannot take the policy
 * @internal
 */
export async function installPartitions(
  sql: SqlExecutor,
  parts: readonly SchemaPart[],
  name: { schema: string; table: string },
  policy: PartitionPolicy | undefined,
): Promise<string[]> {
  const created: string[] = [];
  for (const maintainer of maintainers(parts, name).values()) {
    const own = policy ?? (await maintainer.state(sql)).policy;
    if (own) created.push(...(await maintainer.install(sql, own)));
  }
  return created;
}
