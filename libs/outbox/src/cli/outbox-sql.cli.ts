/**
 * Prints the outbox DDL as plain SQL for teams that migrate with other tools:
 *   npm run -s outbox:sql -- --schema app --table outbox [--down]
 */
import { NestOutboxError } from '@nest-outbox/core';
import { dropOutboxSchemaSql, outboxSchemaSql } from '../schema/outbox-schema.sql';

interface CliArgs {
  schema: string;
  table: string;
  down: boolean;
}

const USAGE = 'usage: outbox:sql [--schema <name>] [--table <name>] [--down]';

function parseArgs(argv: string[]): CliArgs {
  const args: CliArgs = { schema: 'public', table: 'outbox', down: false };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    if (flag === '--down') args.down = true;
    else if (flag === '--schema' || flag === '--table') {
      const value = argv[++i];
      if (value === undefined) throw new Error(`${flag} needs a value\n${USAGE}`);
      args[flag === '--schema' ? 'schema' : 'table'] = value;
    } else if (flag === '--help' || flag === '-h') {
      console.log(USAGE);
      process.exit(0);
    } else throw new Error(`unknown argument ${JSON.stringify(flag)}\n${USAGE}`);
  }
  return args;
}

function main(): void {
  const args = parseArgs(process.argv.slice(2));
  const name = { schema: args.schema, table: args.table };
  const statements = args.down ? dropOutboxSchemaSql(name) : outboxSchemaSql(name);
  console.log(
    `-- nest-outbox outbox table ${args.down ? '(drop)' : 'v1'}: ${args.schema}.${args.table}`,
  );
  console.log(statements.map((s) => `${s};`).join('\n\n'));
}

try {
  main();
} catch (error) {
  console.error(error instanceof NestOutboxError || error instanceof Error ? error.message : error);
  process.exit(1);
}
