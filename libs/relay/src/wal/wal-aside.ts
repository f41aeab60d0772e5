import { inTransaction } from '@nest-outbox/core/internal';
import type { Pool } from 'pg';
import type { ClaimedRow } from '../claim/claimed-batch';
import {
  aggregateOf,
  type DispatchSink,
  type ParkEntry,
  type WalDispatcher,
} from './wal-dispatcher';
import type { WalSql } from './wal-schema.sql';

/** What one dispatch decided and has yet to write (in one transaction). @internal */
export class AsideWrites {
  readonly aside: ClaimedRow[] = [];
  readonly parks: { row: ClaimedRow; entry: ParkEntry }[] = [];
  readonly published: { id: string; partition: number; offset: string }[] = [];
  readonly letGo: string[] = [];

  get empty(): boolean {
    return !this.aside.length && !this.parks.length && !this.published.length && !this.letGo.length;
  }
}

/**
 * The events WAL mode sets aside: a parked event and the later events of its aggregate, held
 * behind it in `<table>_relay_aside` (the parked row keeps `parked_at` and its reason, as in
 * polling mode, for the CLI and the console). Once an operator retries or skips the parked
 * event, `releasedRound` publishes its aggregate's events in order and lets them go.
 * @internal
 */
export class WalAside {
  /** Aggregates with events set aside: their later events are held too. */
  private blocked = new Set<string>();

  constructor(
    private readonly pool: Pool,
    private readonly sql: WalSql,
    private readonly batchSize: number,
  ) {}

  get heldAggregates(): number {
    return this.blocked.size;
  }

  /** Reads the held aggregates from the table (at each start of reading, and after a release). */
  async load(): Promise<void> {
    const { rows } = await this.pool.query<Pick<ClaimedRow, 'aggregateType' | 'aggregateId'>>(
      this.sql.blocked,
    );
    this.blocked = new Set(rows.map(aggregateOf));
  }

  /** Outcomes of events read from the slot: parked and held ones are set aside. */
  streamSink(writes: AsideWrites): DispatchSink {
    return {
      isHeld: (aggregate) => this.blocked.has(aggregate),
      acked: () => undefined,
      parked: (row, entry) => {
        this.blocked.add(aggregateOf(row));
        writes.aside.push(row);
        writes.parks.push({ row, entry });
      },
      holding: (rows) => writes.aside.push(...rows),
    };
  }

  /** Writes what a dispatch decided, in one transaction. */
  async write(writes: AsideWrites): Promise<void> {
    if (writes.empty) return;
    await inTransaction(this.pool, async (client) => {
      const aside = writes.aside;
      if (aside.length > 0)
        await client.query(this.sql.setAside, [
          aside.map((r) => r.id),
          aside.map((r) => r.aggregateType),
          aside.map((r) => r.aggregateId),
        ]);
      const parks = writes.parks;
      if (parks.length > 0)
        await client.query(this.sql.park, [
          parks.map((p) => p.row.id),
          parks.map((p) => p.entry.attempt),
          parks.map((p) => p.entry.kind),
          parks.map((p) => p.entry.error),
        ]);
      const done = writes.published;
      if (done.length > 0)
        await client.query(this.sql.published, [
          done.map((p) => p.id),
          done.map((p) => p.partition),
          done.map((p) => p.offset),
        ]);
      if (writes.letGo.length > 0) await client.query(this.sql.letGo, [writes.letGo]);
    });
  }

  /**
   * Publishes released events (set aside, nothing parked before them in their aggregate) in
   * order, marks them published and lets them go; skipped ones are let go unpublished.
   * @returns the number of events it settled
   */
  async releasedRound(dispatcher: WalDispatcher, signal: AbortSignal): Promise<number> {
    if (this.blocked.size === 0) return 0;
    const { rows } = await this.pool.query<ClaimedRow & { skipped: boolean }>(this.sql.released, [
      this.batchSize,
    ]);
    const writes = new AsideWrites();
    const parkedNow = new Set<string>();
    writes.letGo.push(...rows.filter((r) => r.skipped).map((r) => r.id));
    await dispatcher.dispatch(
      rows.filter((r) => !r.skipped),
      {
        isHeld: (aggregate) => parkedNow.has(aggregate),
        acked: (items, acks) =>
          items.forEach(({ row }, i) => writes.published.push({ id: row.id, ...acks[i]! })),
        parked: (row, entry) => {
          parkedNow.add(aggregateOf(row));
          writes.parks.push({ row, entry });
        },
        holding: () => undefined,
      },
      signal,
    );
    await this.write(writes);
    await this.load();
    return rows.length;
  }
}
