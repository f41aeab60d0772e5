import { spawn, type ChildProcess } from 'node:child_process';
import { REPO_ROOT } from './env';
import { waitFor } from './poll';

/** A TypeScript entry point running as a real child process (for SIGKILL tests). */
export interface TsChild {
  readonly process: ChildProcess;
  /** Everything the child printed so far (stdout and stderr). */
  output(): string;
  /** Waits until the output contains `text`. */
  waitForOutput(text: string | RegExp, timeoutMs?: number): Promise<void>;
  /** SIGKILL: no shutdown hook runs, like a crash or an OOM kill. */
  kill(): Promise<void>;
  /** SIGTERM and wait for exit (graceful shutdown). */
  stop(timeoutMs?: number): Promise<number | null>;
}

/**
 * Runs `entry` (a .ts file, relative to the repo root) with ts-node/swc and tsconfig paths.
 * CHILD_NODE_ARGS (space-separated, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`) adds Node flags
 * that NODE_OPTIONS refuses, for profiling a benchmark's children.
 */
export function spawnTs(
  entry: string,
  env: Record<string, string> = {},
  args: string[] = [],
): TsChild {
  const preload = ['-r', 'ts-node/register', '-r', 'tsconfig-paths/register'];
  return spawnNode(entry, [...preload, entry, ...args], {
    TS_NODE_PROJECT: `${REPO_ROOT}/tsconfig.json`,
    ...env,
  });
}

/**
 * Runs compiled JavaScript (`entry`, an absolute path or relative to the repo root) with plain
 * Node, as users run it; CHILD_NODE_ARGS as for `spawnTs`.
 */
export function spawnJs(
  entry: string,
  env: Record<string, string> = {},
  args: string[] = [],
): TsChild {
  return spawnNode(entry, [entry, ...args], env);
}

function spawnNode(entry: string, nodeArgs: string[], env: Record<string, string>): TsChild {
  const child = spawn(
    process.execPath,
    [...(process.env.CHILD_NODE_ARGS?.split(' ').filter(Boolean) ?? []), ...nodeArgs],
    {
      cwd: REPO_ROOT,
      env: { ...process.env, KAFKAJS_NO_PARTITIONER_WARNING: '1', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => resolve(code)),
  );
  return {
    process: child,
    output: () => out,
    async waitForOutput(text, timeoutMs = 60_000) {
      await waitFor(
        `child ${entry} to print ${String(text)}`,
        () => (typeof text === 'string' ? out.includes(text) : text.test(out)),
        { timeoutMs },
      ).catch((error: unknown) => {
        throw new Error(`${(error as Error).message}\n--- child output ---\n${out.slice(-4000)}`);
      });
    },
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
    async stop(timeoutMs = 30_000) {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}
