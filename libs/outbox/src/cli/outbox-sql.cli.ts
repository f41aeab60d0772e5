#!/usr/bin/env node
/**
 * Prints the outbox DDL as plain SQL for teams that migrate with other tools:
 *   npm run -s outbox:sql -- --schema app --table outbox [--down]
 */
import { runCli } from '@nest-outbox/core/internal';
import { dropOutboxSchemaSql, outboxSchemaSql } from '../schema/outbox-schema.sql';

const OUTBOX_SQL_CLI = {
  name: 'outbox:sql',
  usage: 'usage: outbox:sql [--schema <name>] [--table <name>] [--down]',
  flags: { schema: { type: 'string' }, table: { type: 'string' }, down: { type: 'boolean' } },
} as const;

void runCli(OUTBOX_SQL_CLI, process.argv.slice(2), ({ values }, io) => {
  const name = { schema: values.schema ?? 'public', table: values.table ?? 'outbox' };
  const statements = values.down ? dropOutboxSchemaSql(name) : outboxSchemaSql(name);
  io.out(
    `-- nest-outbox outbox table ${values.down ? '(drop)' : 'v1'}: ${name.schema}.${name.table}`,
  );
  io.out(statements.map((s) => `${s};`).join('\n\n'));
  return Promise.resolve(0);
});
