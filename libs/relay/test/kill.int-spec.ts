import { consumeUntil, createTopics, uniqueTopic, waitFor } from '@test/support';
import { faultIds, waitForExit } from './relay-child.support';
import { checkDelivery, useRelayFixture } from './relay-test.fixture';

describe('Relay child process killed with SIGKILL (real PostgreSQL + Kafka)', () => {
  const fixture = useRelayFixture('relay_kill');

  it.each(['after-claim', 'after-send', 'during-mark'] as const)(
    'Given a relay SIGKILLed %s, when another one starts, then every event is delivered in per-key order and only events unmarked at the kill are duplicated',
    async (fault) => {
      const scene = await fixture.newScene(`relay_kill_${fault.replace('-', '_')}`);
      const { schema, producer } = scene;
      const topic = uniqueTopic(`relay-kill-${fault}`);
      await createTopics([topic]);
      await producer.writeMany(600, 20, 50);
      const routing = { defaultTopic: topic };

      const doomed = await scene.spawn({ routing }, { RELAY_FAULT: fault, RELAY_FAULT_BATCH: '2' });
      await waitForExit(doomed);
      expect(doomed.process.signalCode).toBe('SIGKILL');
      const killedBatch = new Set(faultIds(doomed));
      expect(killedBatch.size).toBeGreaterThan(0);
      expect(await scene.pending()).toBeGreaterThan(0);
      // Unmarked at the kill: the killed batch and the batch in flight with it (the loop
      // claims one batch ahead). Only these may be published twice.
      const unmarked = new Set(
        (
          await schema.pool.query<{ event_id: string }>(
            `SELECT event_id FROM "${schema.name}".outbox WHERE published_at IS NULL`,
          )
        ).rows.map((r) => r.event_id),
      );

      const survivor = await scene.spawn({ routing });
      await waitFor('outbox drained after restart', async () => (await scene.pending()) === 0, {
        timeoutMs: 60_000,
      });
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
