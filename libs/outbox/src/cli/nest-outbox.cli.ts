#!/usr/bin/env node
/**
 * Applies, checks or prints the nest-outbox DDL of one schema (outbox, relay, inbox):
 *   npx nest-outbox migrate --url postgres://... --schema app
 *   npx nest-outbox status --url postgres://... --schema app
 *   npx nest-outbox sql --schema app [--down]
 */
import { runCli } from '@nest-outbox/core/internal';
import { NEST_OUTBOX_CLI, runNestOutbox } from './nest-outbox.commands';

void runCli(NEST_OUTBOX_CLI, process.argv.slice(2), ({ values, positionals }, io) =>
  runNestOutbox(positionals[0], values, io),
);
