import { qualifiedTable } from '../sql-identifier';

/**
 * The one-row table `<table>_pressure` where a relay publishes outbox `schema.table`'s
 * backlog figures and pressure state (the relay's DDL creates it). The relay that ran the
 * stats statement writes it; the other relays read it instead of running that statement
 * while it is fresh; producers only read it. `fresh_until` (the writer's pause, twice) is
 * judged by the database's clock: past it the figures are stale (their relay stopped) and
 * read as `unknown`, never as the last state. Names are validated; values are bound.
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
    read: `SELECT sampled_by, figures, fresh_until > now() AS fresh,
       extract(epoch FROM fresh_until - sampled_at)::float8 AS fresh_seconds FROM ${T}`,
    /** `$1` the relay, `$2` how long the row stays fresh (ms), `$3` the figures (JSON). */
    write: `INSERT INTO ${T} (sampled_by, fresh_until, figures)
VALUES ($1, now() + $2::float8 * interval '1 millisecond', $3)
ON CONFLICT (id) DO UPDATE SET sampled_by = EXCLUDED.sampled_by, sampled_at = now(),
  fresh_until = EXCLUDED.fresh_until, figures = EXCLUDED.figures`,
  };
}

/** The state row as read. @internal */
export interface PressureRow {
  readonly sampled_by: string;
  readonly figures: { readonly pressure?: unknown; readonly stats?: unknown };
  readonly fresh: boolean;
  readonly fresh_seconds: number;
}
