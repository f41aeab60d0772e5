import { qualifiedTable } from '../sql-identifier';

/**
 * The one-row table `<table>_pressure` where a relay publishes outbox `schema.table`'s
 * backlog figures and pressure state (the relay's DDL creates it). The relay that ran the
 * stats statement writes it; the other relays read it instead of running that statement
 * while it is fresh; producers only read it. `sampled_at` is when the statement ran (not when
 * the row was written); `fresh_until` is `sampled_at` plus the writer's `staleAfterMs` (two
 * sampling intervals, kept in the figures) and is judged by the database's clock: past it, or
 * without `staleAfterMs` (a row of an older relay, whose freshness followed its pauses), the
 * figures are stale and read as `unknown`, never as the last state. Names are validated;
 * values are bound.
 * @internal
 */
export function pressureRowSql(module: string, schema: string, table: string) {
  const T = qualifiedTable(module, schema, `${table}_pressure`);
  return {
    create: `CREATE TABLE IF NOT EXISTS ${T} (
  id          boolean     PRIMARY KEY DEFAULT true CHECK (id),
  sampled_by  text        NOT NULL,
  sampled_at  timestamptz NOT NULL DEFAULT now(),
  fresh_until timestamptz NOT NULL,
  figures     jsonb       NOT NULL
)`,
    read: `SELECT sampled_by, figures, sampled_at,
       fresh_until > now() AND figures ? 'staleAfterMs' AS fresh,
       extract(epoch FROM now() - sampled_at)::float8 AS age_seconds,
       extract(epoch FROM fresh_until - sampled_at)::float8 AS fresh_seconds FROM ${T}`,
    /**
     * `$1` the relay, `$2` how long the figures stay fresh from their sampling (ms), `$3` the
     * figures (JSON), `$4` how old they already are (ms: the statement ran before the write).
     */
    write: `INSERT INTO ${T} (sampled_by, sampled_at, fresh_until, figures)
SELECT $1, s.at, s.at + $2::float8 * interval '1 millisecond',
       $3::jsonb || jsonb_build_object('staleAfterMs', $2::float8)
  FROM (SELECT now() - coalesce($4::float8, 0) * interval '1 millisecond' AS at) s
ON CONFLICT (id) DO UPDATE SET sampled_by = EXCLUDED.sampled_by, sampled_at = EXCLUDED.sampled_at,
  fresh_until = EXCLUDED.fresh_until, figures = EXCLUDED.figures`,
  };
}

/** The state row as read. @internal */
export interface PressureRow {
  readonly sampled_by: string;
  readonly figures: { readonly pressure?: unknown; readonly stats?: unknown };
  readonly sampled_at: Date;
  /** Within `fresh_until`, and written with a `staleAfterMs`. */
  readonly fresh: boolean;
  /** Age of the figures by the database's clock. */
  readonly age_seconds: number;
  readonly fresh_seconds: number;
}
