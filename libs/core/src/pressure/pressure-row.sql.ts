import { qualifiedTable } from '../sql-identifier';

/**
 * The one-row table `<table>_pressure` where the relay that ran the stats statement publishes
 * the backlog figures and pressure state; other relays read it instead while it is fresh, and
 * producers only read it. `fresh_until` (`sampled_at` plus the writer's `staleAfterMs`) is
 * judged by the database's clock; past it, or without `staleAfterMs` (an older relay's row),
 * the figures read as `unknown`, never as the last state.
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
    /** `$1` relay, `$2` fresh for (ms), `$3` figures, `$4` their age (ms) at the write. */
    write: `INSERT INTO ${T} (sampled_by, sampled_at, fresh_until, figures)
SELECT $1, s.at, s.at + $2::float8 * interval '1 millisecond',
       $3::jsonb || jsonb_build_object('staleAfterMs', $2::float8)
  FROM (SELECT now() - coalesce($4::float8, 0) * interval '1 millisecond' AS at) s
ON CONFLICT (id) DO UPDATE SET sampled_by = EXCLUDED.sampled_by, sampled_at = EXCLUDED.sampled_at,
  fresh_until = EXCLUDED.fresh_until, figures = EXCLUDED.figures`,
  };
}

/** @internal */
export interface PressureRow {
  readonly sampled_by: string;
  readonly figures: { readonly pressure?: unknown; readonly stats?: unknown };
  readonly sampled_at: Date;
  readonly fresh: boolean;
  readonly age_seconds: number;
  readonly fresh_seconds: number;
}
