import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Pool } from 'pg';
import type { PrivatePostgres } from '@test/support';

/** The relay's own login: its statements are the only ones auto_explain logs and this reads. */
const ROLE = 'bench_relay';

/** postgresql.conf settings that log the plan of any relay statement running 1 s or more. */
export const RELAY_STATEMENT_SETTINGS = {
  shared_preload_libraries: "'pg_stat_statements,auto_explain'",
  'auto_explain.log_analyze': 'off',
  log_line_prefix: "'%m [%p] %u '",
};

/** What the relay's statements did in a span: the slowest ones, their logged plans, timeouts. */
export interface RelayStatements {
  readonly slowest: { query: string; calls: number; mean_ms: number; max_ms: number }[];
  /** auto_explain entries (statements of 1 s or more), plan included. */
  readonly slowPlans: string[];
  /** Statements cancelled by the relay's statement timeout. */
  readonly timeouts: string[];
}

/**
 * The relay's role (a superuser, as the bench's own login is) and the watch on its statements:
 * `url` for the relay, `mark()` before a span, `read()` after it.
 */
export async function watchRelayStatements(pool: Pool, pg: PrivatePostgres) {
  await pool.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
  await pool.query(`CREATE ROLE ${ROLE} LOGIN SUPERUSER`);
  await pool.query(`ALTER ROLE ${ROLE} SET auto_explain.log_min_duration = '1s'`);
  const log = join(dirname(pg.dataDir), 'postgres.log');
  const size = () => (existsSync(log) ? statSync(log).size : 0);
  let offset = 0;
  return {
    url: pg.url.replace('//postgres@', `//${ROLE}@`),
    async mark(): Promise<void> {
      await pool.query('SELECT pg_stat_statements_reset()');
      offset = size();
    },
    async read(): Promise<RelayStatements> {
      const { rows } = await pool.query<RelayStatements['slowest'][number]>(
        `SELECT left(regexp_replace(query, '\\s+', ' ', 'g'), 100) AS query, calls::int,
                round(mean_exec_time::numeric, 1)::float8 AS mean_ms,
                round(max_exec_time::numeric, 1)::float8 AS max_ms
           FROM pg_stat_statements s JOIN pg_roles r ON r.oid = s.userid
          WHERE r.rolname = $1 ORDER BY max_exec_time DESC LIMIT 5`,
        [ROLE],
      );
      // An entry is a prefixed line and its tab-indented continuation lines.
      const entries = readFileSync(log)
        .subarray(offset)
        .toString()
        .split(/\n(?!\t)/);
      const mine = (kind: string) => entries.filter((e) => e.includes(`] ${ROLE} ${kind}`));
      const statementAfter = (i: number) => entries[i + 1]?.replace(/^.*STATEMENT: +/, '') ?? '';
      return {
        slowest: rows,
        slowPlans: mine('LOG:  duration:'),
        timeouts: entries
          .map((e, i) =>
            e.includes(`] ${ROLE} ERROR:  canceling statement due to statement timeout`)
              ? statementAfter(i).slice(0, 100)
              : undefined,
          )
          .filter((e): e is string => e !== undefined),
      };
    },
  };
}

export type RelayStatementsWatch = Awaited<ReturnType<typeof watchRelayStatements>>;
