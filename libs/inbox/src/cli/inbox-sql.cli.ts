#!/usr/bin/env node
/**
 * Prints the inbox DDL as plain SQL for teams that migrate with other tools:
 *   npm run -s inbox:sql -- --schema shipping [--table inbox] [--rejected-table <name>]
 *     [--versions-table <name>] [--down]
 */
import { runCli } from '@nest-outbox/core/internal';
import { INBOX_SQL_CLI, printInboxSql } from './inbox-sql.command';

void runCli(INBOX_SQL_CLI, process.argv.slice(2), ({ values }, io) =>
  Promise.resolve(printInboxSql(values, io)),
);
