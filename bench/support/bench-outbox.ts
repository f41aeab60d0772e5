import type { Pool } from 'pg';
import { outboxSchemaSql } from '@nest-outbox/outbox';
import { relaySchemaSql } from '@nest-outbox/relay';
import { waitFor } from '@test/support';
import { fillOutbox, type FillShape } from './relay-fill';

/** The bench's outbox table (`<schema>.outbox`, with the relay's objects) and its probes. */
export class BenchOutbox {
  /** The qualified table name (the schema is the bench's own, made of [a-z0-9_]). */
  readonly table: string;

  constructor(
    readonly pool: Pool,
    readonly schema: string,
  ) {
    this.table = `"${schema}".outbox`;
  }

  /** Drops and recreates the outbox table and the relay's objects. */
  async reset(): Promise<void> {
    await this.pool.query(`DROP TABLE IF EXISTS ${this.table} CASCADE`);
    await this.pool.query(
      `DROP TABLE IF EXISTS "${this.schema}".outbox_relay_audit, "${this.schema}".outbox_archive`,
    );
    for (const s of [
      ...outboxSchemaSql({ schema: this.schema, table: 'outbox' }),
      ...relaySchemaSql({ schema: this.schema, table: 'outbox' }),
    ])
      await this.pool.query(s);
  }

  fill(shape: FillShape, vacuum = true): Promise<number> {
    return fillOutbox(this.pool, this.table, shape, vacuum);
  }

  vacuum(): Promise<unknown> {
    return this.pool.query(`VACUUM ANALYZE ${this.table}`);
  }

  async pendingCount(): Promise<number> {
    const { rows } = await this.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM ${this.table} WHERE published_at IS NULL AND skipped_at IS NULL`,
    );
    return rows[0]!.n;
  }

  /**
   * Waits until no row is pending (a cheap EXISTS on the claim index every 50 ms, so that the
   * probe takes no CPU from the drain it watches); resolves with the epoch ms of the last
   * `published_at` (set by the mark's transaction), the drain's true end.
   */
  async drainedAt(timeoutMs = 600_000): Promise<number> {
    await waitFor(
      'drain',
      async () => {
        const { rows } = await this.pool.query<{ done: boolean }>(
          `SELECT NOT EXISTS (SELECT 1 FROM ${this.table} WHERE published_at IS NULL AND skipped_at IS NULL) AS done`,
        );
        return rows[0]!.done;
      },
      { timeoutMs, intervalMs: 50 },
    );
    const { rows } = await this.pool.query<{ at: number }>(
      `SELECT (extract(epoch FROM max(published_at)) * 1000)::float8 AS at FROM ${this.table}`,
    );
    return rows[0]!.at;
  }

  /** The highest id in the table (0 when empty): rows filled later have higher ids. */
  async lastId(): Promise<number> {
    const { rows } = await this.pool.query<{ id: number }>(
      `SELECT coalesce(max(id), 0)::float8 AS id FROM ${this.table}`,
    );
    return rows[0]!.id;
  }

  /**
   * How the rows after `afterId` were batched: the relay leaves each published row's lease
   * token (`<relayId>:<claim sequence>`) in `lease_owner`, so distinct tokens are claims that
   * published something, and their mean size is events per claim.
   */
  async claimShape(afterId = 0): Promise<{ claims: number; eventsPerClaim: number }> {
    const { rows } = await this.pool.query<{ claims: number; rows: number }>(
      `SELECT count(DISTINCT lease_owner)::int AS claims, count(*)::int AS rows FROM ${this.table}
        WHERE published_at IS NOT NULL AND id > $1`,
      [afterId],
    );
    const { claims, rows: published } = rows[0]!;
    return { claims, eventsPerClaim: claims > 0 ? published / claims : 0 };
  }
}
