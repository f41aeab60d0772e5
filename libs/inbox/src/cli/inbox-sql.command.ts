import type { CliIo, CliValues } from '@nest-outbox/core/internal';
import { dropInboxSchemaSql, inboxSchemaSql, inboxTableNames } from '../schema/inbox-schema.sql';

/** The command line of `inbox:sql`. @internal */
export const INBOX_SQL_CLI = {
  name: 'inbox:sql',
  usage:
    'usage: inbox:sql [--schema <name>] [--table <name>] [--rejected-table <name>] ' +
    '[--versions-table <name>] [--down]',
  flags: {
    schema: { type: 'string' },
    table: { type: 'string' },
    'rejected-table': { type: 'string' },
    'versions-table': { type: 'string' },
    down: { type: 'boolean' },
  },
} as const;

/** Prints the inbox DDL (or, with `--down`, the statements dropping its tables). @internal */
export function printInboxSql(values: CliValues<typeof INBOX_SQL_CLI.flags>, io: CliIo): number {
  const names = {
    schema: values.schema,
    table: values.table,
    rejectedTable: values['rejected-table'],
    versionsTable: values['versions-table'],
  };
  const n = inboxTableNames(names);
  const statements = values.down ? dropInboxSchemaSql(names) : inboxSchemaSql(names);
  io.out(
    `-- nest-outbox inbox tables ${values.down ? '(drop)' : 'v1'}: ` +
      [n.inbox, n.rejected, n.versions].map((t) => `${n.schema}.${t}`).join(', '),
  );
  io.out(statements.map((s) => `${s};`).join('\n\n'));
  return 0;
}
