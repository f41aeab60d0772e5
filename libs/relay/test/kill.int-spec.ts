import {
  consumeUntil,
  createTopics,
  uniqueTopic,
  waitFor,
  type TestSchema,
  type TsChild,
} from '@test/support';
import { faultIds, spawnRelay, waitForExit } from './child-relay.fixture';
import { TestProducer, checkDelivery, createRelaySchema, pendingCount } from './relay-test.fixture';

describe('Relay child process killed with SIGKILL (real PostgreSQL + Kafka)', () => {
  const schemas: TestSchema[] = [];
  const children: TsChild[] = [];

  afterAll(async () => {
    for (const child of children) await child.kill();
    for (const schema of schemas) await schema.drop();
  });

  it.each(['after-claim', 'after-send', 'during-mark'] as const)(
    'delivers every event in per-key order after a SIGKILL %s and a restart, duplicating only events unmarked at the kill',
    async (fault) => {
      const schema = await createRelaySchema(`relay_kill_${fault.replace('-', '_')}`);
      schemas.push(schema);
      const topic = uniqueTopic(`relay-kill-${fault}`);
      await createTopics([topic]);
      const producer = new TestProducer(schema.pool, schema.name);
      await producer.writeMany(600, 20, 50);

      const doomed = await spawnRelay(schema.name, topic, {
        RELAY_FAULT: fault,
        RELAY_FAULT_BATCH: '2',
      });
      children.push(doomed);
      await waitForExit(doomed);
      expect(doomed.process.signalCode).toBe('SIGKILL');
      const killedBatch = new Set(faultIds(doomed));
      expect(killedBatch.size).toBeGreaterThan(0);
      expect(await pendingCount(schema.pool, schema.name)).toBeGreaterThan(0);
      // Unmarked at the kill: the killed batch and the batch in flight with it (the loop
      // claims one batch ahead). Only these may be published twice.
      const unmarked = new Set(
        (
          await schema.pool.query<{ event_id: string }>(
            `SELECT event_id FROM "${schema.name}".outbox WHERE published_at IS NULL`,
          )
        ).rows.map((r) => r.event_id),
      );

      const survivor = await spawnRelay(schema.name, topic);
      children.push(survivor);
      await waitFor(
        'outbox drained after restart',
        async () => (await pendingCount(schema.pool, schema.name)) === 0,
        {
          timeoutMs: 60_000,
        },
      );
      // Graceful: Nest re-raises SIGTERM after its shutdown hooks ran (no SIGKILL fallback).
      await survivor.stop(20_000);
      expect(survivor.process.signalCode).toBe('SIGTERM');

      const seenAll = (ids: Set<string>) => producer.written.every((e) => ids.has(e.eventId));
      const records = await consumeUntil([topic], (r) =>
        seenAll(new Set(r.map((x) => x.headers.event_id!))),
      );
      const report = checkDelivery(records, producer.written);
      expect(report.missing).toEqual([]);
      expect(report.orderViolations).toEqual([]);
      for (const id of report.duplicates) expect(unmarked.has(id)).toBe(true);
      // Killed after its claim, the batch was never sent: none of it is a duplicate.
      if (fault === 'after-claim')
        expect(report.duplicates.filter((id) => killedBatch.has(id))).toEqual([]);
      if (fault === 'after-send')
        expect(report.duplicates.filter((id) => killedBatch.has(id)).length).toBeGreaterThan(0);
    },
  );
});
