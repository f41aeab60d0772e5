import { CliUsageError, readPartitionState, sqlExecutorOf } from '@nest-outbox/core/internal';
import { createTestSchema, DATABASE_URL, type TestSchema } from '@test/support';
import { runNestOutbox } from '../src/cli/nest-outbox.commands';

let db: TestSchema;
const capture = () => {
  const lines: string[] = [];
  return { lines, io: { out: (t: string) => lines.push(t), err: (t: string) => lines.push(t) } };
};
const DAY = 86_400_000;

beforeAll(async () => {
  db = await createTestSchema('nest_outbox_partitions');
});

afterAll(() => db?.drop());

const state = (table: string) => readPartitionState(sqlExecutorOf(db.pool), db.name, table);

describe('npx nest-outbox migrate --partition', () => {
  it('Given an empty schema, when migrate runs with --partition daily --keep 7d (twice), then the outbox and the inbox are partitioned by event time with a default partition, yesterday, today and three days ahead', async () => {
    const { lines, io } = capture();
    const values = { url: DATABASE_URL, schema: db.name, partition: 'daily', keep: '7d' };
    await expect(runNestOutbox('migrate', values, io)).resolves.toBe(0);
    await expect(runNestOutbox('migrate', values, io)).resolves.toBe(0);
    expect(lines.filter((l) => l.startsWith('partitions created'))).toHaveLength(1);
    for (const table of ['outbox', 'inbox']) {
      const { kind, policy, ranges, defaultPartition, nowMs } = await state(table);
      expect({ kind, policy, defaultPartition }).toEqual({
        kind: 'partitioned',
        policy: { period: 'daily', keepMs: 7 * DAY },
        defaultPartition: `${table}_default`,
      });
      const today = Math.floor(nowMs / DAY) * DAY;
      expect(ranges.map((r) => r.from)).toEqual([-1, 0, 1, 2, 3].map((d) => today + d * DAY));
      expect(ranges[1]!.name).toBe(
        `${table}_p${new Date(today).toISOString().slice(0, 10).replaceAll('-', '')}`,
      );
    }
    await expect(runNestOutbox('status', { url: DATABASE_URL, schema: db.name }, io)).resolves.toBe(
      0,
    );
  });

  it('Given an outbox created without partitions, when migrate runs with --partition, then it fails with a PartitionSetupError saying how to move, and changes nothing', async () => {
    const plain = await createTestSchema('nest_outbox_plain');
    try {
      const values = { url: DATABASE_URL, schema: plain.name };
      await runNestOutbox('migrate', values, capture().io);
      await expect(
        runNestOutbox('migrate', { ...values, partition: 'daily' }, capture().io),
      ).rejects.toThrow(/exists as an ordinary table.*--table <new name>/);
      const { rows } = await plain.pool.query(
        `SELECT obj_description(to_regclass($1), 'pg_class') AS comment`,
        [`"${plain.name}".outbox`],
      );
      expect(rows).toEqual([{ comment: null }]);
    } finally {
      await plain.drop();
    }
  });

  it('Given a wrong period, --keep alone or a wrong --keep, then the command line is refused with its usage', async () => {
    const { io } = capture();
    const refused = (values: Record<string, string>) =>
      expect(runNestOutbox('sql', values, io)).rejects.toThrow(CliUsageError);
    await refused({ partition: 'monthly' });
    await refused({ keep: '7d' });
    await refused({ partition: 'daily', keep: 'a week' });
    await expect(runNestOutbox('sql', { partition: 'monthly' }, io)).rejects.toThrow(
      /--partition" must be hourly, daily or weekly/,
    );
  });

  it('Given sql --partition daily, then it prints the partitioned tables with their policy and default partition', async () => {
    const { lines, io } = capture();
    await runNestOutbox('sql', { schema: 'app', partition: 'daily' }, io);
    const text = lines.join('\n');
    expect(text).toContain('PRIMARY KEY (id, event_id)');
    expect(text.match(/PARTITION BY RANGE \(event_id\)/g)).toHaveLength(2);
    expect(text).toContain(
      `COMMENT ON TABLE "app"."outbox" IS 'nest-outbox partitions: period=daily keep=none'`,
    );
    expect(text).toContain('"app"."inbox_default" PARTITION OF "app"."inbox" DEFAULT');
  });
});
