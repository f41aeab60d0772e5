import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port';

/**
 * A PostgreSQL instance of one test's own (initdb + pg_ctl on a free port, data in a temp
 * dir), for tests that crash the database: never the shared cluster of the other tests.
 */
export interface PrivatePostgres {
  readonly port: number;
  /** postgres://postgres@127.0.0.1:<port>/postgres (trust authentication). */
  readonly url: string;
  readonly dataDir: string;
  /** `pg_ctl stop -m immediate`: every backend dies at once, unflushed WAL buffers are lost. */
  crash(): void;
  /** `pg_ctl start -w`: crash recovery replays the WAL that reached the OS. */
  start(): void;
  /** `pg_ctl stop -m fast`. */
  stop(): void;
  /** True while the postmaster runs. */
  running(): boolean;
  /** Stops it and removes its data. */
  destroy(): void;
}

/** The newest PostgreSQL server binaries installed (PG_BIN overrides). */
export function postgresBinDir(): string {
  if (process.env.PG_BIN) return process.env.PG_BIN;
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((v) => existsSync(join(root, v, 'bin', 'pg_ctl')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (!versions[0]) {
    throw new Error(
      'no PostgreSQL server binaries in /usr/lib/postgresql/*/bin: install postgresql (15+) or set PG_BIN',
    );
  }
  return join(root, versions[0], 'bin');
}

/** initdb and pg_ctl refuse root: run them as the `postgres` user then. */
function runAs(): { prefix: string[]; uid?: number; gid?: number } {
  if (process.getuid?.() !== 0) return { prefix: [] };
  const uid = Number(execFileSync('id', ['-u', 'postgres']).toString());
  const gid = Number(execFileSync('id', ['-g', 'postgres']).toString());
  return { prefix: ['runuser', '-u', 'postgres', '--'], uid, gid };
}

/** Options of `startPrivatePostgres`. */
export interface PrivatePostgresOptions {
  /** Extra postgresql.conf settings (e.g. `{ wal_writer_delay: '5s' }`). */
  readonly settings?: Record<string, string>;
}

/** Creates and starts the instance. */
export async function startPrivatePostgres(
  options: PrivatePostgresOptions = {},
): Promise<PrivatePostgres> {
  const bin = postgresBinDir();
  const who = runAs();
  const dir = mkdtempSync(join(tmpdir(), 'nest-outbox-pg-'));
  if (who.uid !== undefined) chownSync(dir, who.uid, who.gid!);
  const dataDir = join(dir, 'data');
  const port = await freePort();
  const run = (tool: string, args: string[]) => {
    const [command, ...before] = [...who.prefix, join(bin, tool)];
    return execFileSync(command, [...before, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  };
  run('initdb', ['-D', dataDir, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8']);
  const settings: Record<string, string> = {
    port: String(port),
    listen_addresses: "'127.0.0.1'",
    unix_socket_directories: `'${dir}'`,
    max_connections: '80',
    shared_buffers: '32MB',
    // A process crash keeps what reached the OS; only an OS crash needs fsync (not tested here).
    fsync: 'off',
    logging_collector: 'off',
    ...options.settings,
  };
  const conf = Object.entries(settings)
    .map(([k, v]) => `${k} = ${v}`)
    .join('\n');
  writeFileSync(join(dataDir, 'postgresql.auto.conf'), `${conf}\n`);
  if (who.uid !== undefined) chownSync(join(dataDir, 'postgresql.auto.conf'), who.uid, who.gid!);
  const log = join(dir, 'postgres.log');
  const ctl = (args: string[]) => run('pg_ctl', ['-D', dataDir, ...args]);
  const running = () => {
    try {
      ctl(['status']);
      return true;
    } catch {
      return false;
    }
  };
  const start = () => {
    if (!running()) ctl(['-l', log, '-w', '-t', '120', 'start']);
  };
  start();
  return {
    port,
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    dataDir,
    crash: () => {
      if (running()) ctl(['-m', 'immediate', '-w', 'stop']);
    },
    start,
    stop: () => {
      if (running()) ctl(['-m', 'fast', '-w', 'stop']);
    },
    running,
    destroy: () => {
      if (running()) ctl(['-m', 'immediate', '-w', 'stop']);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
