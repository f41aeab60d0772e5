import {
  CliUsageError,
  inTransaction,
  InvalidOptionsError,
  sqlExecutorOf,
  runCli,
  type CliIo,
  type CliValues,
} from '@nest-outbox/core/internal';
import { Pool } from 'pg';
import {
  installPartitions,
  PARTITION_FLAGS,
  partitionedParts,
  partitionPolicyOf,
} from '../partitions/partition-migrate';
import { schemaParts, type SchemaPart } from './schema-parts';

const NEST_OUTBOX_CLI = {
  name: 'nest-outbox',
  usage:
    'usage: nest-outbox migrate|status --url <postgres url> [--schema <name>] [--table <outbox table>]\n' +
    '                  [--partition hourly|daily|weekly [--keep <7d|36h|2w>]] [--wal [--publication <name>]]\n' +
    '       nest-outbox sql [--schema <name>] [--table <outbox table>] [--down] [--partition <period>]\n' +
    '                       [--wal [--publication <name>]]\n' +
    "--wal adds the objects of the relay's WAL mode (a publication of the outbox inserts; migrate\n" +
    'checks wal_level = logical first).\n' +
    'Covers the outbox table, and the relay and inbox objects when @nest-outbox/relay or\n' +
    '@nest-outbox/inbox is installed. migrate is idempotent and safe to run at every deploy.\n' +
    '--partition creates the outbox and inbox tables range-partitioned by event time\n' +
    '(docs/PARTITIONS.md); --keep is the shortest time a partition is kept.',
  flags: {
    url: { type: 'string' },
    schema: { type: 'string' },
    table: { type: 'string' },
    down: { type: 'boolean' },
    ...PARTITION_FLAGS,
    wal: { type: 'boolean' },
    publication: { type: 'string' },
  },
} as const;

type Values = CliValues<typeof NEST_OUTBOX_CLI.flags>;

const usageError = (problem: string) =>
  new CliUsageError(NEST_OUTBOX_CLI.name, problem, NEST_OUTBOX_CLI.usage);

function partitionPolicy(values: Values) {
  try {
    return partitionPolicyOf(values);
  } catch (error) {
    if (error instanceof InvalidOptionsError)
      throw usageError(error.message.slice(`${NEST_OUTBOX_CLI.name}: `.length));
    throw error;
  }
}

async function withPool<T>(values: Values, fn: (pool: Pool) => Promise<T>): Promise<T> {
  const url = values.url ?? process.env.DATABASE_URL;
  if (!url) throw usageError('--url (or DATABASE_URL) is required');
  const pool = new Pool({ connectionString: url, max: 1 });
  try {
    return await fn(pool);
  } finally {
    await pool.end();
  }
}

async function missing(pool: Pool, part: SchemaPart): Promise<string[]> {
  const { rows } = await pool.query<{ name: string }>(
    'SELECT name FROM unnest($1::text[]) AS name WHERE to_regclass(name) IS NULL',
    [part.relations],
  );
  return rows.map((r) => r.name);
}

/** `--wal` on a database whose WAL cannot be decoded: refused, with the fix. */
async function requireLogicalWal(client: { query: Pool['query'] }): Promise<void> {
  const { rows } = await client.query<{ level: string }>(
    `SELECT current_setting('wal_level') AS level`,
  );
  if (rows[0]?.level !== 'logical')
    throw new CliUsageError(
      NEST_OUTBOX_CLI.name,
      `--wal needs wal_level = logical (it is '${rows[0]?.level}'): run ALTER SYSTEM SET wal_level = logical and restart PostgreSQL, then migrate again`,
      NEST_OUTBOX_CLI.usage,
    );
}

/** Runs `migrate`, `status` or `sql`; returns the exit code (`status`: 1 if anything is missing). @internal */
export async function runNestOutbox(
  command: string | undefined,
  values: Values,
  io: CliIo,
): Promise<number> {
  if (values.publication !== undefined && !values.wal)
    throw usageError('--publication goes with --wal');
  const wal = values.wal ? { publication: values.publication } : undefined;
  const name = { schema: values.schema ?? 'public', table: values.table ?? 'outbox' };
  const policy = partitionPolicy(values);
  const parts = partitionedParts(
    schemaParts(name.schema, name.table, wal),
    name,
    policy,
    command === 'sql',
  );
  if (wal && !parts.some((p) => p.name === 'wal'))
    throw usageError('--wal needs @nest-outbox/relay installed next to @nest-outbox/outbox');
  if (command === 'sql') {
    for (const part of values.down ? [...parts].reverse() : parts) {
      io.out(`-- nest-outbox ${part.name}${values.down ? ' (drop)' : ''}`);
      io.out((values.down ? part.down : part.up).map((s) => `${s};`).join('\n\n'));
    }
    return 0;
  }
  if (command === 'migrate') {
    const created = await withPool(values, (pool) =>
      // Under a lock: two deploys migrating together do not race on the catalog.
      inTransaction(pool, async (client) => {
        if (wal) await requireLogicalWal(client);
        await client.query(`SELECT pg_advisory_xact_lock(hashtext('nest-outbox:migrate'))`);
        for (const part of parts) for (const statement of part.up) await client.query(statement);
        return installPartitions(sqlExecutorOf(client), parts, name, policy);
      }),
    );
    io.out(`applied: ${parts.map((p) => p.name).join(', ')}`);
    if (created.length > 0) io.out(`partitions created: ${created.join(', ')}`);
    return 0;
  }
  if (command === 'status') {
    let incomplete = 0;
    await withPool(values, async (pool) => {
      for (const part of parts) {
        const absent = await missing(pool, part);
        incomplete += absent.length;
        io.out(`${part.name}: ${absent.length === 0 ? 'applied' : `missing ${absent.join(', ')}`}`);
      }
    });
    return incomplete === 0 ? 0 : 1;
  }
  throw usageError('give one command: migrate, status or sql');
}

/** Sets the exit code. @internal */
export function nestOutboxCli(argv: readonly string[]): Promise<number> {
  return runCli(NEST_OUTBOX_CLI, argv, ({ values, positionals }, io) =>
    runNestOutbox(positionals[0], values, io),
  );
}
