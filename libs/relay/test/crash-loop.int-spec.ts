import { consumeUntil, uniqueTopic, waitFor } from '@test/support';
import { waitForExit } from './relay-child.support';
import { useRelayFixture } from './relay-test.fixture';

describe('An event whose publish keeps killing the relay (real child processes, PostgreSQL + Kafka)', () => {
  const topic = uniqueTopic('relay-crash');
  const fixture = useRelayFixture('relay_crash', { topics: [topic] });
  const routing = { defaultTopic: topic };

  it('Given an event whose publish kills the relay each time, when relays restart, then it is parked as a crash loop and its neighbours in the fatal batches are delivered', async () => {
    const { scene } = fixture;
    const { schema, producer } = scene;
    await producer.writeMany(60, 6, 30);
    const [killer] = await producer.write([{ aggregateId: 'k2' }]);
    const [behind] = await producer.write([{ aggregateId: 'k2' }]);
    await producer.writeMany(60, 6, 30, 'm');

    let crashes = 0;
    for (let round = 0; round < 6; round++) {
      const { rows } = await schema.pool.query<{ parked: boolean }>(
        `SELECT parked_at IS NOT NULL AS parked FROM "${schema.name}".outbox WHERE event_id = $1`,
        [killer],
      );
      if (rows[0]!.parked) break;
      const child = await scene.spawn(
        { routing },
        { RELAY_FAULT: 'before-send', RELAY_FAULT_EVENT: killer! },
      );
      // Either it dies on the killer, or (once parked) it drains and we stop it.
      await waitFor(
        'child died or outbox settled',
        async () =>
          child.process.exitCode !== null ||
          child.process.signalCode !== null ||
          (await scene.pending()) <= 2,
        { timeoutMs: 60_000 },
      );
      if (child.process.signalCode === 'SIGKILL') {
        crashes++;
        continue;
      }
      await child.stop(20_000);
      await waitForExit(child);
    }
    const { rows } = await schema.pool.query<{
      parked_reason: string;
      claims: number;
      attempts: number;
    }>(`SELECT parked_reason, claims, attempts FROM "${schema.name}".outbox WHERE event_id = $1`, [
      killer,
    ]);
    expect(rows[0]!.parked_reason).toMatch(/^crash-loop: 3 publishes started and never finished/);
    expect(crashes).toBe(3);

    // Everything else reaches Kafka; only the killer's own aggregate waits behind it.
    const survivor = await scene.spawn({ routing });
    await waitFor(
      'all but the blocked aggregate drained',
      async () => (await scene.pending()) === 2,
    );
    await survivor.stop(20_000);
    const others = producer.written.filter((e) => e.eventId !== killer && e.eventId !== behind);
    const records = await consumeUntil([topic], (r) => {
      const seen = new Set(r.map((x) => x.headers.event_id));
      return others.every((e) => seen.has(e.eventId));
    });
    expect(
      records.some((r) => r.headers.event_id === killer || r.headers.event_id === behind),
    ).toBe(false);
  });
});
