/* eslint-disable @typescript-eslint/no-require-imports -- an optional peer, loaded only in WAL mode */
import { OptionalPeerMissingError } from '@nest-outbox/core';
import { loadOptionalPeer } from '@nest-outbox/core/internal';
import type { ClientConfig } from 'pg';
import type * as LogicalReplication from 'pg-logical-replication';
import type { ClaimedRow } from '../claim/claimed-batch';
import { RELAY_MODULE } from '../relay.constants';
import type { RelayTableName } from '../schema/relay-schema.sql';
import { walRow } from './wal-row';

type Lib = typeof LogicalReplication;
type Message = LogicalReplication.Pgoutput.Message;

/**
 * What the stream delivers, in commit order: a committed transaction's outbox rows (none for a
 * transaction of other tables, or a heartbeat), and the argument of `acknowledge` that
 * confirms it and everything before it.
 * @internal
 */
export interface WalItem {
  readonly rows: ClaimedRow[];
  readonly confirm: string;
  /** Commit time, epoch milliseconds. */
  readonly atMs: number;
}

/** What the stream tells its reader. @internal */
export interface WalStreamHandlers {
  /** Awaited: the stream reads no further until it resolves (back-pressure). */
  item(item: WalItem): Promise<void>;
  /** The server asks for a status update (else it drops the connection after `wal_sender_timeout`). */
  keepalive(): void;
  /** The stream ended (`error` when it failed). Called once. */
  ended(error?: unknown): void;
}

function loadLib(): Lib {
  const lib = loadOptionalPeer(
    'pg-logical-replication',
    () => require('pg-logical-replication') as Lib,
  );
  if (!lib) throw new OptionalPeerMissingError(RELAY_MODULE, 'pg-logical-replication@^2', 'mode');
  return lib;
}

/** `lsn` minus one, as `X/Y` (the library acknowledges the LSN it is given plus one). */
export function lsnBefore(lsn: string): string {
  const [hi, lo] = lsn.split('/').map((h) => parseInt(h, 16)) as [number, number];
  const [h, l] = lo === 0 ? [hi - 1, 0xffffffff] : [hi, lo - 1];
  return `${h.toString(16).toUpperCase()}/${l.toString(16).toUpperCase()}`;
}

/**
 * One logical replication session on the slot (`pgoutput`, protocol 1, messages on), with
 * column values kept as PostgreSQL prints them (the payload exactly as stored). The server
 * sends from the slot's confirmed position; nothing is confirmed but what `acknowledge` says.
 * @internal
 */
export class WalStream {
  private readonly service: LogicalReplication.LogicalReplicationService;
  private open: { rows: ClaimedRow[] } | undefined;
  private endedOnce = false;

  constructor(
    connection: ClientConfig,
    private readonly slot: string,
    private readonly publication: string,
    private readonly table: RelayTableName,
    private readonly handlers: WalStreamHandlers,
  ) {
    const lib = loadLib();
    // Every column as its text output: the payload as stored, timestamps in ISO and UTC.
    const options = [connection.options, '-c datestyle=ISO -c timezone=UTC'].filter(Boolean);
    this.service = new lib.LogicalReplicationService(
      { ...connection, options: options.join(' ') },
      { acknowledge: { auto: false, timeoutSeconds: 0 }, flowControl: { enabled: true } },
    );
    this.service.on('data', (_lsn, message: Message) => this.onMessage(message));
    this.service.on('heartbeat', (_lsn, _at, respond) => {
      if (respond) handlers.keepalive();
    });
    this.service.on('error', (error) => this.end(error));
  }

  /** Starts reading; rejects when the slot cannot be read (for example active elsewhere). */
  async start(): Promise<void> {
    const lib = loadLib();
    class TextPgoutput extends lib.PgoutputPlugin {
      override parse(buffer: Buffer): Message {
        const message = super.parse(buffer);
        if (message.tag === 'relation')
          for (const c of message.columns) c.parser = (raw: string) => raw;
        return message;
      }
    }
    const plugin = new TextPgoutput({
      protoVersion: 1,
      publicationNames: [this.publication],
      messages: true,
    });
    const started = new Promise<void>((resolve) => this.service.once('start', () => resolve()));
    const running = this.service.subscribe(plugin, this.slot);
    running.then(
      () => this.end(new Error('replication stream closed')),
      (error: unknown) => this.end(error),
    );
    await Promise.race([started, running.then(() => Promise.reject(new Error('stream closed')))]);
  }

  /** Confirms everything up to `confirm` (a `WalItem`'s) as flushed. */
  acknowledge(confirm: string): Promise<boolean> {
    return this.service.acknowledge(confirm);
  }

  async stop(): Promise<void> {
    this.endedOnce = true;
    await this.service.destroy();
  }

  private end(error?: unknown): void {
    if (this.endedOnce) return;
    this.endedOnce = true;
    void this.service.destroy().catch(() => undefined);
    this.handlers.ended(error);
  }

  private async onMessage(message: Message): Promise<void> {
    switch (message.tag) {
      case 'begin':
        this.open = { rows: [] };
        return;
      case 'insert': {
        const { schema, name } = message.relation;
        if (this.open && schema === this.table.schema && name === this.table.table)
          this.open.rows.push(walRow(message.new as Record<string, string | null>));
        return;
      }
      case 'commit': {
        const rows = this.open?.rows ?? [];
        this.open = undefined;
        const atMs = Number(message.commitTime) / 1000;
        await this.handlers.item({ rows, confirm: lsnBefore(message.commitEndLsn!), atMs });
        return;
      }
      case 'message':
        // A message outside any transaction (the heartbeat): confirmable once reached.
        if (!message.transactional)
          await this.handlers.item({ rows: [], confirm: message.messageLsn!, atMs: Date.now() });
        return;
      default:
        return;
    }
  }
}
