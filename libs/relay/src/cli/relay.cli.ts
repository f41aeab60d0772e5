#!/usr/bin/env node
/** Operator CLI of the relay (`--help` lists the commands); DATABASE_URL, OUTBOX_SCHEMA, OUTBOX_TABLE. */
import { runCli } from '@nest-outbox/core/internal';
import { Pool } from 'pg';
import { RelayOperatorService } from '../operator/relay-operator.service';
import { RELAY_CLI, relaySqlText, runRelayCommand } from './relay-cli.commands';

void runCli(RELAY_CLI, process.argv.slice(2), async (parsed, io) => {
  const table = {
    schema: process.env.OUTBOX_SCHEMA ?? 'public',
    table: process.env.OUTBOX_TABLE ?? 'outbox',
  };
  if (parsed.positionals[0] === 'sql') {
    io.out(relaySqlText(table));
    return 0;
  }
  const pool = new Pool({
    connectionString: process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
    max: 1,
  });
  try {
    const { output, code } = await runRelayCommand(parsed, new RelayOperatorService(pool, table));
    io.out(JSON.stringify(output, null, 2));
    return code;
  } finally {
    await pool.end();
  }
});
