#!/usr/bin/env node
/**
 * Applies, checks or prints the nest-outbox DDL of one schema (outbox, relay, inbox):
 *   npx nest-outbox migrate --url postgres://... --schema app
 *   npx nest-outbox status --url postgres://... --schema app
 *   npx nest-outbox sql --schema app [--down]
 */
import { nestOutboxCli } from './nest-outbox.commands';

void nestOutboxCli(process.argv.slice(2));
