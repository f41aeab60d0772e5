import type { DataSource } from 'typeorm';
import type { ResolvedOutboxOptions } from '../outbox-options.interface';
import { NotifyConnection, type NotifyClient } from './notify-connection';
import { OutboxNotifier, type NotifierLogger } from './outbox-notifier';

/** Sends one wake-up notification; `close` releases what it holds. @internal */
export interface NotifySender {
  send(): Promise<unknown>;
  close(): Promise<void>;
}

/** node-postgres' pool as TypeORM's postgres driver holds it (`driver.master`). */
interface PgPool {
  readonly options: object;
  readonly Client: new (options: object) => NotifyClient;
}

/** The notify connection closes after this long without a notification. */
const IDLE_MS = 10_000;

/**
 * Sends `NOTIFY "<channel>", '<payload>'` outside any business transaction. With the
 * node-postgres driver, on a connection of its own opened with the data source's pool
 * settings (the same `new Client(options)` the pool itself does); otherwise through
 * `dataSource.query`, in a one-statement transaction that skips the WAL flush wait.
 * Both names are validated identifiers, so they are literals: no parameters.
 * @internal
 */
export function createNotifySender(
  dataSource: DataSource,
  channel: string,
  payload: string,
): NotifySender {
  const pool = (dataSource.driver as { master?: Partial<PgPool> }).master;
  if (typeof pool?.Client === 'function' && pool.options) {
    const { Client, options } = pool as PgPool;
    const connection = new NotifyConnection(
      () => new Client(options),
      `NOTIFY "${channel}", '${payload}'`,
      IDLE_MS,
    );
    return { send: () => connection.send(), close: () => connection.close() };
  }
  const sql = `SELECT set_config('synchronous_commit', 'off', true), pg_notify('${channel}', '${payload}')`;
  return { send: () => dataSource.query(sql), close: () => Promise.resolve() };
}

/** The outbox's cross-process wake-up: the coalescing notifier and what it sends with. @internal */
export interface OutboxNotify {
  readonly notifier: OutboxNotifier;
  readonly sender: NotifySender;
}

/** The wake-up of these options, or undefined when `notifyChannel` is false. @internal */
export function createOutboxNotify(
  dataSource: DataSource,
  options: ResolvedOutboxOptions,
  logger: NotifierLogger,
): OutboxNotify | undefined {
  const { notifyChannel: channel, schema, table, notifyCoalesceMs } = options;
  if (channel === false) return undefined;
  const sender = createNotifySender(dataSource, channel, `${schema}.${table}`);
  return { sender, notifier: new OutboxNotifier(() => sender.send(), notifyCoalesceMs, logger) };
}
