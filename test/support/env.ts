import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** Connection settings of the real stack the tests run against (see scripts/stack.sh). */
export const DATABASE_URL =
  process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const KAFKA_BROKERS = (process.env.KAFKA_BROKERS ?? '127.0.0.1:9092').split(',');

/** The first folder at or above `from` that holds scripts/stack.sh. */
function findRepoRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'scripts', 'stack.sh'))) return dir;
    if (dirname(dir) === dir) throw new Error(`no scripts/stack.sh above ${from}`);
  }
}

/** The repository's root, from the TypeScript sources (test/support) or from dist/test/support. */
export const REPO_ROOT = findRepoRoot(__dirname);
