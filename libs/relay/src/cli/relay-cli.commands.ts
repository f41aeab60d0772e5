import {
  CliUsageError,
  type CliFlag,
  type CliSpec,
  type ParsedCli,
} from '@nest-outbox/core/internal';
import type { RelayOperatorService } from '../operator/relay-operator.service';
import { relaySchemaSql, type RelayTableName } from '../schema/relay-schema.sql';

/** The relay's operator command line. @internal */
export const RELAY_CLI = {
  name: 'relay:cli',
  usage: `usage: nest-outbox-relay <command> [options]   (in this repository: npm run relay:cli -- ...)
  (connection from DATABASE_URL, outbox from OUTBOX_SCHEMA / OUTBOX_TABLE)

  sql                                       print the relay's idempotent DDL (pipe into psql)
  parked [--limit N] [--aggregate-type T]   list parked events (no payloads)
  retry <event_id> --by NAME [--reason R]   un-park one event in place
  skip <event_id> --by NAME --reason R      skip one event for good (recorded)
  park <event_id> --by NAME --reason R      park one event (its aggregate waits; recorded)
  republish --by NAME --reason R (--aggregate-type T [--aggregate-id I]
            [--from-version N] [--to-version N] | --from ISO --to ISO)   deliberate replay
  --help                                    this text`,
  flags: {
    limit: { type: 'integer', min: 1 },
    'aggregate-type': { type: 'string' },
    'aggregate-id': { type: 'string' },
    'from-version': { type: 'integer', min: 0 },
    'to-version': { type: 'integer', min: 0 },
    from: { type: 'date' },
    to: { type: 'date' },
    by: { type: 'string' },
    reason: { type: 'string' },
  },
} as const satisfies CliSpec<Record<string, CliFlag>>;

type Parsed = ParsedCli<typeof RELAY_CLI.flags>;

const DONE = new Set(['retried', 'skipped', 'parked', 'republishing']);

function usageError(problem: string): never {
  throw new CliUsageError(RELAY_CLI.name, problem, RELAY_CLI.usage);
}

/** `sql`: the relay's DDL, ready for psql. */
export function relaySqlText(table: RelayTableName): string {
  return relaySchemaSql(table)
    .map((s) => `${s};`)
    .join('\n\n');
}

/** One operator command: what to print, and exit code 1 when the event was not in a state to act on. @internal */
export async function runRelayCommand(
  { positionals, values }: Parsed,
  operator: Pick<RelayOperatorService, 'listParked' | 'retry' | 'skip' | 'park' | 'republish'>,
): Promise<{ output: unknown; code: number }> {
  const [command, eventId] = positionals;
  const who = { actor: values.by ?? '', reason: values.reason };
  const needId = () => eventId ?? usageError(`${command} needs an <event_id>`);
  let output: unknown;
  switch (command) {
    case 'parked':
      output = await operator.listParked({
        limit: values.limit,
        aggregateType: values['aggregate-type'],
      });
      break;
    case 'retry':
    case 'skip':
    case 'park':
      output = await operator[command](needId(), who);
      break;
    case 'republish':
      output = await operator.republish(republishRange(values), who);
      break;
    default:
      usageError(command ? `unknown command ${JSON.stringify(command)}` : 'no command given');
  }
  const outcome = (output as { outcome?: string }).outcome;
  return { output, code: outcome && !DONE.has(outcome) ? 1 : 0 };
}

function republishRange(values: Parsed['values']) {
  const type = values['aggregate-type'];
  if (type)
    return {
      aggregateType: type,
      aggregateId: values['aggregate-id'],
      fromVersion: values['from-version'],
      toVersion: values['to-version'],
    };
  if (values.from && values.to) return { publishedFrom: values.from, publishedTo: values.to };
  return usageError('republish needs --aggregate-type, or --from and --to');
}
