import type { SqlExecutor } from '@nest-outbox/core/internal';
import type { ResolvedOutboxOptions } from '../outbox-options.interface';
import { NotifyConnection, type NotifyClient } from './notify-connection';
import { OutboxNotifier, type NotifySender } from './outbox-notifier';

/** A node-postgres pool (what TypeORM's driver, Drizzle's session and plain `pg` hold). */
interface PgPool {
  readonly options: object;
  readonly Client: new (options: object) => NotifyClient;
}

/** The notify connection closes after this long without a notification. */
const IDLE_MS = 10_000;

function pgPoolOf(fallback: unknown): Partial<PgPool> | undefined {
  const f = fallback as {
    connection?: { driver?: { master?: Partial<PgPool> } };
    session?: { client?: Partial<PgPool> };
  } & Partial<PgPool>;
  return f.connection?.driver?.master ?? f.session?.client ?? f;
}

/** On a node-postgres pool, a connection of its own; else the stack's non-transactional executor. */
function notifySender(
  fallback: unknown,
  sql: SqlExecutor,
  channel: string,
  payload: string,
): NotifySender {
  const pool = pgPoolOf(fallback);
  if (typeof pool?.Client === 'function' && pool.options) {
    const { Client, options } = pool as PgPool;
    const text = `NOTIFY "${channel}", '${payload}'`;
    return new NotifyConnection(() => new Client(options), text, IDLE_MS);
  }
  const text = `SELECT set_config('synchronous_commit', 'off', true) AS s, pg_notify('${channel}', '${payload}')::text AS n`;
  return { send: () => sql.query(text, []), close: () => Promise.resolve() };
}

/** Undefined when `notifyChannel` is false. @internal */
export function createOutboxNotifier(
  fallback: unknown,
  sql: SqlExecutor,
  options: ResolvedOutboxOptions,
  logger: { warn(message: string): void },
): OutboxNotifier | undefined {
  const { notifyChannel: channel, schema, table, notifyCoalesceMs } = options;
  if (channel === false) return undefined;
  const sender = notifySender(fallback, sql, channel, `${schema}.${table}`);
  return new OutboxNotifier(sender, notifyCoalesceMs, logger);
}
