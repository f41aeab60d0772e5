/**
 * Operator CLI of the relay (production use): `npm run relay:cli -- <command> [options]`.
 * Connection from DATABASE_URL, outbox from OUTBOX_SCHEMA / OUTBOX_TABLE.
 *
 *   sql                                   print the relay's idempotent DDL (pipe into psql)
 *   parked [--limit N] [--aggregate-type T]   list parked events (no payloads)
 *   retry <event_id> --by NAME [--reason R]   un-park one event in place
 *   skip <event_id> --by NAME --reason R      skip one event for good (recorded)
 *   republish --by NAME --reason R (--aggregate-type T [--aggregate-id I]
 *             [--from-version N] [--to-version N] | --from ISO --to ISO)   deliberate replay
 */
import { Pool } from 'pg';
import { RelayOperatorService } from '../operator/relay-operator.service';
import { relaySchemaSql } from '../schema/relay-schema.sql';

function parseArgs(argv: string[]): { positional: string[]; flags: Map<string, string> } {
  const positional: string[] = [];
  const flags = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg.startsWith('--')) flags.set(arg.slice(2), argv[++i] ?? '');
    else positional.push(arg);
  }
  return { positional, flags };
}

function usage(): never {
  console.error(
    'usage: relay:cli -- sql | parked [--limit N] [--aggregate-type T] | retry <event_id> --by NAME [--reason R] | skip <event_id> --by NAME --reason R | republish --by NAME --reason R (--aggregate-type T [--aggregate-id I] [--from-version N] [--to-version N] | --from ISO --to ISO)',
  );
  process.exit(2);
}

async function main(): Promise<void> {
  const { positional, flags } = parseArgs(process.argv.slice(2));
  const [command, eventId] = positional;
  const table = {
    schema: process.env.OUTBOX_SCHEMA ?? 'public',
    table: process.env.OUTBOX_TABLE ?? 'outbox',
  };
  if (command === 'sql') {
    console.log(
      relaySchemaSql(table)
        .map((s) => `${s};`)
        .join('\n\n'),
    );
    return;
  }
  const pool = new Pool({
    connectionString: process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
    max: 1,
  });
  const operator = new RelayOperatorService(pool, table);
  const who = { actor: flags.get('by') ?? '', reason: flags.get('reason') };
  const num = (name: string) => (flags.has(name) ? Number(flags.get(name)) : undefined);
  try {
    let result: unknown;
    switch (command) {
      case 'parked':
        result = await operator.listParked({
          limit: num('limit'),
          aggregateType: flags.get('aggregate-type'),
        });
        break;
      case 'retry':
        if (!eventId) usage();
        result = await operator.retry(eventId, who);
        break;
      case 'skip':
        if (!eventId) usage();
        result = await operator.skip(eventId, who);
        break;
      case 'republish': {
        const type = flags.get('aggregate-type');
        const from = flags.get('from');
        const to = flags.get('to');
        if (type) {
          result = await operator.republish(
            {
              aggregateType: type,
              aggregateId: flags.get('aggregate-id'),
              fromVersion: num('from-version'),
              toVersion: num('to-version'),
            },
            who,
          );
        } else if (from && to) {
          result = await operator.republish(
            { publishedFrom: new Date(from), publishedTo: new Date(to) },
            who,
          );
        } else usage();
        break;
      }
      default:
        usage();
    }
    console.log(JSON.stringify(result, null, 2));
    const outcome = (result as { outcome?: string }).outcome;
    if (outcome && !['retried', 'skipped', 'republishing'].includes(outcome)) process.exitCode = 1;
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    process.exitCode = 1;
  } finally {
    await pool.end();
  }
}

void main();
