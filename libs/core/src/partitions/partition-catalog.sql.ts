import { qualifiedTable, sqlIdentifier } from '../sql-identifier';
import { type SqlExecutor } from '../sql/sql-executor';
import { policyOfComment, uuidMs, type PartitionPolicy } from './partition-period';

/** One range partition: its name (unquoted) and its bounds as epoch milliseconds. @internal */
export interface RangePartition {
  readonly name: string;
  readonly from: number;
  readonly to: number;
}

/** What the catalog says of a table that may be partitioned. @internal */
export interface PartitionState {
  /** `absent`, `plain` (an ordinary table) or `partitioned`. */
  readonly kind: 'absent' | 'plain' | 'partitioned';
  /** The policy its comment records (partitioned tables made by nest-outbox). */
  readonly policy?: PartitionPolicy;
  /** Range partitions, oldest first. */
  readonly ranges: RangePartition[];
  /** The default partition's name, when there is one. */
  readonly defaultPartition?: string;
  /** Tables detached by an earlier pass and left to drop (a pass that died between two steps). */
  readonly leftovers: string[];
  /** The database's clock, epoch ms. */
  readonly nowMs: number;
}

/** The comment on a detached partition that a later pass may drop. @internal */
export const leftoverComment = (parent: string): string =>
  `nest-outbox: detached from ${parent}, to drop`;

const BOUND = /FROM \('([0-9a-f-]{36})'\) TO \('([0-9a-f-]{36})'\)/;

/** Reads the state of `schema.table` (unquoted names) in one round trip. @internal */
export async function readPartitionState(
  sql: SqlExecutor,
  schema: string,
  table: string,
): Promise<PartitionState> {
  const parent = qualifiedTable('partitions', schema, table);
  const [row] = await sql.query<{
    kind: string | null;
    comment: string | null;
    parts: { name: string; bound: string }[] | null;
    leftovers: string[] | null;
    now_ms: number;
  }>(
    `SELECT c.relkind::text AS kind, obj_description(c.oid, 'pg_class') AS comment,
       (SELECT json_agg(json_build_object('name', p.relname, 'bound', pg_get_expr(p.relpartbound, p.oid)))
          FROM pg_inherits i JOIN pg_class p ON p.oid = i.inhrelid WHERE i.inhparent = c.oid) AS parts,
       (SELECT array_agg(l.relname::text ORDER BY l.relname) FROM pg_class l
          WHERE l.relnamespace = $2::regnamespace AND l.relkind = 'r'
            AND obj_description(l.oid, 'pg_class') = $3) AS leftovers,
       (extract(epoch FROM now()) * 1000)::float8 AS now_ms
     FROM (SELECT to_regclass($1) AS oid) r LEFT JOIN pg_class c ON c.oid = r.oid`,
    [parent, sqlIdentifier('partitions', 'schema', schema), leftoverComment(parent)],
  );
  const kind = row?.kind === 'p' ? 'partitioned' : row?.kind ? 'plain' : 'absent';
  const ranges: RangePartition[] = [];
  let defaultPartition: string | undefined;
  for (const part of row?.parts ?? []) {
    const bound = BOUND.exec(part.bound);
    if (bound) ranges.push({ name: part.name, from: uuidMs(bound[1]!), to: uuidMs(bound[2]!) });
    else if (part.bound === 'DEFAULT') defaultPartition = part.name;
  }
  return {
    kind,
    policy: kind === 'partitioned' ? policyOfComment(row?.comment) : undefined,
    ranges: ranges.sort((a, b) => a.from - b.from),
    defaultPartition,
    leftovers: row?.leftovers ?? [],
    nowMs: Number(row?.now_ms ?? Date.now()),
  };
}
