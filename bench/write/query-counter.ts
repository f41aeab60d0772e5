/**
 * Counts what the Node process sends to PostgreSQL, client-side: every `pg` Client.query
 * (one round trip each: node-postgres never pipelines) by its first keyword (or its
 * prepared statement name), and every connection checkout from a pool. Patches the `pg`
 * module that TypeORM and the raw variants both load, so both are counted the same way.
 * Only used when BENCH_COUNT=on (the wrapper costs a little CPU).
 */
import { Client, Pool } from 'pg';

const counts = new Map<string, number>();

function labelOf(config: unknown): string {
  if (typeof config === 'string') return config.trim().split(/\s+/, 1)[0]!.toUpperCase();
  const named = config as { name?: string; text?: string } | null;
  if (named?.name) return `named ${named.name.replace(/_[0-9a-f]{16}$/, '')}`;
  return named?.text ? labelOf(named.text) : 'other';
}

let installed = false;

/** Starts counting (idempotent). */
export function installQueryCounter(): void {
  if (installed) return;
  installed = true;
  const query = Client.prototype.query as (...args: unknown[]) => unknown;
  Client.prototype.query = function (this: Client, ...args: unknown[]) {
    const label = labelOf(args[0]);
    counts.set(label, (counts.get(label) ?? 0) + 1);
    return query.apply(this, args);
  } as typeof Client.prototype.query;
  const connect = Pool.prototype.connect as (...args: unknown[]) => unknown;
  Pool.prototype.connect = function (this: Pool, ...args: unknown[]) {
    counts.set('(pool checkout)', (counts.get('(pool checkout)') ?? 0) + 1);
    return connect.apply(this, args);
  } as typeof Pool.prototype.connect;
}

/** Returns the counts since the last call and starts again from zero. */
export function takeQueryCounts(): Map<string, number> {
  const copy = new Map(counts);
  counts.clear();
  return copy;
}

/** `BEGIN 1.00, UPDATE 1.00, ...` per operation. */
export function formatPerOp(taken: Map<string, number>, ops: number): string {
  return [...taken]
    .sort((a, b) => b[1] - a[1])
    .map(([label, n]) => `${label} ${(n / ops).toFixed(3)}`)
    .join(', ');
}
