import {
  inTransaction,
  PartitionMaintainer,
  readPartitionState,
  sqlExecutorOf,
  uuidAt,
  type PartitionDb,
} from '@nest-outbox/core/internal';
import { createTestSchema, type TestSchema } from '@test/support';
import { INBOX_MODULE } from '../src/inbox.constants';
import { InboxPartitions } from '../src/partitions/inbox-partitions';
import { partitionedInboxSchemaSql } from '../src/partitions/partitioned-inbox.sql';
import { inboxStatements } from '../src/store/inbox.sql';

let db: TestSchema;
let pdb: PartitionDb;
let statements: ReturnType<typeof inboxStatements>;
let partitions: InboxPartitions;

beforeAll(async () => {
  db = await createTestSchema('inbox_partitions');
  for (const sql of partitionedInboxSchemaSql({ schema: db.name })) await db.pool.query(sql);
  const maintainer = new PartitionMaintainer({
    module: INBOX_MODULE,
    schema: db.name,
    table: 'inbox',
  });
  await inTransaction(db.pool, (client) =>
    maintainer.install(sqlExecutorOf(client), { period: 'hourly', keepMs: 0 }),
  );
  pdb = {
    sql: sqlExecutorOf(db.pool),
    transaction: (work) => inTransaction(db.pool, (client) => work(sqlExecutorOf(client))),
  };
  const names = { schema: db.name };
  const inbox = `"${db.name}".inbox`;
  statements = inboxStatements({
    schema: `"${db.name}"`,
    inbox,
    rejected: '',
    versions: '',
    names,
  });
  partitions = new InboxPartitions({
    schema: `"${db.name}"`,
    inbox,
    rejected: '',
    versions: '',
    names,
  });
});

afterAll(() => db?.drop());

const state = () => readPartitionState(sqlExecutorOf(db.pool), db.name, 'inbox');
const register = async (eventId: string) => {
  const { rows } = await db.pool.query(statements.registerMany, [
    'consumer-a',
    'topic',
    0,
    [eventId],
    ['thing.happened'],
    [1],
    ['thing'],
    ['a'],
    [1],
    ['7'],
  ]);
  return rows.length;
};
const processedAgo = (eventId: string, interval: string) =>
  db.pool.query(
    `UPDATE "${db.name}".inbox SET processed_at = now() - $2::interval WHERE event_id = $1`,
    [eventId, interval],
  );

describe('A partitioned inbox (real PostgreSQL)', () => {
  it('Given events in a range partition and in the default one, when each is registered again, then the second copy is refused', async () => {
    const { ranges } = await state();
    for (const eventId of [uuidAt(ranges[1]!.from + 1), uuidAt(Date.UTC(2300, 0, 1))]) {
      expect(await register(eventId)).toBe(1);
      expect(await register(eventId)).toBe(0);
    }
    const { rows } = await db.pool.query<{ part: string }>(
      `SELECT tableoid::regclass::text AS part FROM "${db.name}".inbox ORDER BY 1 DESC`,
    );
    expect(rows.map((r) => r.part.split('.')[1])).toEqual([ranges[1]!.name, 'inbox_default']);
  });

  it('Given an old partition whose event was processed just now, when the pruner runs, then it keeps it until the row is older than the retention, then drops it', async () => {
    const { ranges } = await state();
    const old = ranges[0]!;
    const late = uuidAt(old.from + 7);
    await register(late);
    expect((await partitions.maintain(pdb, 60_000))?.held).toEqual([old.name]);
    await processedAgo(late, '2 minutes');
    expect((await partitions.maintain(pdb, 60_000))?.dropped).toEqual([old.name]);
    expect((await state()).ranges.map((r) => r.name)).not.toContain(old.name);
    expect(await register(late)).toBe(1);
  });

  it('Given a partition ahead that went missing, when the pruner runs, then it is created again, and old rows of the default partition are deleted row by row, recent ones kept', async () => {
    const { ranges } = await state();
    const ahead = ranges[ranges.length - 1]!;
    await db.pool.query(`DROP TABLE "${db.name}"."${ahead.name}"`);
    const fallback = uuidAt(Date.UTC(2301, 0, 1));
    await register(fallback);
    await processedAgo(fallback, '2 minutes');
    const pass = await partitions.maintain(pdb, 60_000);
    expect(pass?.created).toEqual([ahead.name]);
    const prune = inboxStatements({
      schema: '',
      inbox: partitions.defaultPartition,
      rejected: '',
      versions: '',
      names: {},
    }).prune;
    const { rows } = await db.pool.query(prune, [60_000, 100]);
    expect(rows).toEqual([{ pruned: 1 }]);
    const left = await db.pool.query(
      `SELECT count(*)::int AS n FROM ${partitions.defaultPartition}`,
    );
    expect(left.rows).toEqual([{ n: 2 }]); // the two registered lately, in earlier tests
  });
});
