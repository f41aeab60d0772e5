import { runCli } from '@nest-outbox/core/internal';
import { INBOX_SQL_CLI, printInboxSql } from './inbox-sql.command';

async function run(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const io = { out: (t: string) => out.push(t), err: (t: string) => err.push(t) };
  const main = ({ values }: { values: Parameters<typeof printInboxSql>[0] }) =>
    Promise.resolve(printInboxSql(values, io));
  const code = await runCli(INBOX_SQL_CLI, argv, main, io);
  process.exitCode = undefined;
  return { code, out: out.join('\n'), err: err.join('\n') };
}

describe('inbox:sql', () => {
  it('prints the DDL of the three tables in the schema and under the names given', async () => {
    const { code, out } = await run('--schema', 'shipping', '--rejected-table', 'refused');
    expect(code).toBe(0);
    expect(out).toContain('CREATE SCHEMA IF NOT EXISTS "shipping"');
    expect(out).toContain('CREATE TABLE IF NOT EXISTS "shipping"."inbox"');
    expect(out).toContain('CREATE TABLE IF NOT EXISTS "shipping"."refused"');
    expect(out).toContain('CREATE TABLE IF NOT EXISTS "shipping"."inbox_aggregate_versions"');
  });

  it('prints the statements that drop the tables with --down', async () => {
    const { out } = await run('--down');
    expect(out).toContain('DROP TABLE IF EXISTS "public"."inbox";');
    expect(out).not.toContain('CREATE');
  });

  it('prints the usage for --help and refuses an unknown flag or a name that is not an identifier', async () => {
    expect((await run('--help')).out).toBe(INBOX_SQL_CLI.usage);
    const unknown = await run('--tables', 'x');
    expect(unknown.code).toBe(2);
    expect(unknown.err).toContain(INBOX_SQL_CLI.usage);
    const bad = await run('--schema', 'Bad; drop');
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(/lower-case SQL identifier/);
  });
});
