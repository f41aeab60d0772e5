#!/usr/bin/env node
/** `nest-outbox-sql [flags]`, the older name of `nest-outbox sql [flags]`. */
import { nestOutboxCli } from './nest-outbox.commands';

void nestOutboxCli(['sql', ...process.argv.slice(2)]);
