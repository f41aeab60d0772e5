import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';

/** Runs one of the packages' `bin` entries as npm linked it into the app. */
function runBin(name: string, args: readonly string[]): string {
  return execFileSync(join(process.cwd(), 'node_modules', '.bin', name), args, {
    encoding: 'utf8',
    env: { ...process.env, OUTBOX_SCHEMA: 'cli_check' },
  });
}

/** The CLIs the packages install: each runs from `node_modules/.bin` and prints its SQL. */
export function cliBins(): void {
  test('nest-outbox-sql prints the outbox DDL', () => {
    const sql = runBin('nest-outbox-sql', ['--schema', 'cli_check']);
    assert.match(sql, /CREATE TABLE IF NOT EXISTS "cli_check"\."outbox"/);
  });

  test('nest-outbox-inbox-sql prints the inbox DDL', () => {
    const sql = runBin('nest-outbox-inbox-sql', ['--schema', 'cli_check']);
    assert.match(sql, /CREATE TABLE IF NOT EXISTS "cli_check"\."inbox"/);
  });

  test('nest-outbox-relay answers --help and prints its SQL', () => {
    assert.match(runBin('nest-outbox-relay', ['--help']), /sql/);
    assert.match(runBin('nest-outbox-relay', ['sql']), /cli_check/);
  });
}
