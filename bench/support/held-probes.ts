import type { Pool } from 'pg';

/** One look at the relay and the database, taken every few seconds of the held-snapshot bench. */
export interface HeldSample {
  readonly at: number;
  /** Cumulative claim_duration_seconds buckets (`le` in seconds -> count), from /metrics. */
  readonly claimBuckets: Map<number, number>;
  /** The relay's gauges (/metrics) and /health's figures. */
  readonly reported: {
    metricsPending: number | null;
    metricsOldestS: number | null;
    healthPending: number | null;
    healthOldestMs: number | null;
    healthStatus: string;
  };
  /** The truth: count(*) pending and the oldest pending row's age. */
  readonly truth: { pending: number; oldestMs: number };
  readonly table: TableStats;
  /** pg_stat_statements of the claim's window and skip-scan statements (cumulative). */
  readonly claimStatements: { calls: number; ms: number; blocks: number };
}

/** pg_stat_user_tables and the sizes of the outbox table. */
export interface TableStats {
  deadTuples: number;
  liveTuples: number;
  updates: number;
  hotUpdates: number;
  autovacuums: number;
  tableBytes: number;
  indexBytes: Record<string, number>;
}

const metric = (text: string, name: string): number | null => {
  const match = new RegExp(`^${name} ([0-9.e+-]+|NaN)$`, 'm').exec(text);
  return match ? Number(match[1]) : null;
};

function claimBuckets(text: string): Map<number, number> {
  const buckets = new Map<number, number>();
  const re = /^nest_outbox_relay_claim_duration_seconds_bucket\{le="([^"]+)"[^}]*\} (\d+)$/gm;
  for (let m = re.exec(text); m; m = re.exec(text))
    buckets.set(m[1] === '+Inf' ? Infinity : Number(m[1]), Number(m[2]));
  return buckets;
}

/**
 * The `q` quantile of the claims between two samples, in ms, interpolated in its bucket as
 * Prometheus' histogram_quantile does; Infinity when it falls past the last finite bucket.
 */
export function claimQuantileMs(from: HeldSample, to: HeldSample, q: number): number {
  const les = [...to.claimBuckets.keys()].sort((a, b) => a - b);
  const count = (le: number) => (to.claimBuckets.get(le) ?? 0) - (from.claimBuckets.get(le) ?? 0);
  const total = count(Infinity);
  if (total === 0) return NaN;
  const rank = q * total;
  let lower = 0;
  let below = 0;
  for (const le of les) {
    const upTo = count(le);
    if (upTo >= rank) {
      if (le === Infinity) return Infinity;
      return (lower + ((le - lower) * (rank - below)) / Math.max(1, upTo - below)) * 1000;
    }
    lower = le;
    below = upTo;
  }
  return Infinity;
}

async function tableStats(pool: Pool, schema: string): Promise<TableStats> {
  const { rows } = await pool.query<Record<string, string>>(
    `SELECT n_dead_tup, n_live_tup, n_tup_upd, n_tup_hot_upd, autovacuum_count,
            pg_relation_size(relid) AS table_bytes
       FROM pg_stat_user_tables WHERE schemaname = $1 AND relname = 'outbox'`,
    [schema],
  );
  const indexes = await pool.query<{ name: string; bytes: string }>(
    `SELECT indexrelname AS name, pg_relation_size(indexrelid) AS bytes
       FROM pg_stat_user_indexes WHERE schemaname = $1 AND relname = 'outbox'`,
    [schema],
  );
  const r = rows[0] ?? {};
  return {
    deadTuples: Number(r.n_dead_tup ?? 0),
    liveTuples: Number(r.n_live_tup ?? 0),
    updates: Number(r.n_tup_upd ?? 0),
    hotUpdates: Number(r.n_tup_hot_upd ?? 0),
    autovacuums: Number(r.autovacuum_count ?? 0),
    tableBytes: Number(r.table_bytes ?? 0),
    indexBytes: Object.fromEntries(indexes.rows.map((i) => [i.name, Number(i.bytes)])),
  };
}

async function claimStatements(pool: Pool): Promise<HeldSample['claimStatements']> {
  const { rows } = await pool.query<{ calls: string; ms: number; blocks: string }>(
    `SELECT coalesce(sum(calls), 0) AS calls, coalesce(sum(total_exec_time), 0)::float8 AS ms,
            coalesce(sum(shared_blks_hit + shared_blks_read), 0) AS blocks
       FROM pg_stat_statements
      WHERE query LIKE 'WITH w AS MATERIALIZED%' OR query LIKE 'WITH RECURSIVE a AS%'`,
  );
  const r = rows[0]!;
  return { calls: Number(r.calls), ms: r.ms, blocks: Number(r.blocks) };
}

async function relayReport(
  httpPort: number,
): Promise<{ reported: HeldSample['reported']; metricsText: string }> {
  const base = `http://127.0.0.1:${httpPort}`;
  const [metricsText, health] = await Promise.all([
    fetch(`${base}/metrics`).then((r) => r.text()),
    fetch(`${base}/health`).then(async (r) => ({
      status: String(r.status),
      body: (await r.json()) as {
        details?: { relay?: { pending?: number; oldestAgeMs?: number } };
      },
    })),
  ]);
  const relay = health.body.details?.relay;
  const reported = {
    metricsPending: metric(metricsText, 'nest_outbox_relay_pending_events'),
    metricsOldestS: metric(metricsText, 'nest_outbox_relay_oldest_pending_age_seconds'),
    healthPending: relay?.pending ?? null,
    healthOldestMs: relay?.oldestAgeMs ?? null,
    healthStatus: health.status,
  };
  return { reported, metricsText };
}

/** Takes one sample (the truth's count(*) is part of what the bench costs the database). */
export async function sample(pool: Pool, schema: string, httpPort: number): Promise<HeldSample> {
  const at = Date.now();
  const [{ reported, metricsText }, truth, table, statements] = await Promise.all([
    relayReport(httpPort),
    pool.query<{ pending: number; oldest_ms: number | null }>(
      `SELECT count(*)::int AS pending,
              (extract(epoch FROM now() - min(created_at)) * 1000)::float8 AS oldest_ms
         FROM "${schema}".outbox WHERE published_at IS NULL AND skipped_at IS NULL`,
    ),
    tableStats(pool, schema),
    claimStatements(pool),
  ]);
  return {
    at,
    claimBuckets: claimBuckets(metricsText),
    reported,
    truth: { pending: truth.rows[0]!.pending, oldestMs: truth.rows[0]!.oldest_ms ?? 0 },
    table,
    claimStatements: statements,
  };
}
