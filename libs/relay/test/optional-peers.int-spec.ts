import { consumeUntil, createTopics, uniqueTopic, waitFor } from '@test/support';
import { checkDelivery, useRelayFixture } from './relay-test.fixture';

describe('Relay without its optional peers @nestjs/terminus and prom-client (child process, real PostgreSQL + Kafka)', () => {
  const fixture = useRelayFixture('relay_nopeers');

  it('Given a process where neither @nestjs/terminus nor prom-client can be resolved, when a RelayModule starts there, then it starts, warns once that metrics are off, and publishes every event in order', async () => {
    const scene = await fixture.newScene('relay_nopeers');
    const topic = uniqueTopic('relay-nopeers');
    await createTopics([topic]);
    await scene.producer.writeMany(120, 6, 20);

    const child = await scene.spawn(
      { routing: { defaultTopic: topic } },
      { BLOCK_MODULES: '@nestjs/terminus,prom-client' },
    );
    await waitFor(
      'outbox drained by the relay without peers',
      async () => (await scene.pending()) === 0,
      {
        timeoutMs: 60_000,
      },
    );
    const ids = new Set(scene.producer.written.map((e) => e.eventId));
    const records = await consumeUntil([topic], (r) => {
      const seen = new Set(r.map((x) => x.headers.event_id!));
      return [...ids].every((id) => seen.has(id));
    });
    const report = checkDelivery(records, scene.producer.written);
    expect(report.missing).toEqual([]);
    expect(report.orderViolations).toEqual([]);

    const output = child.output();
    // The block works (prom-client was asked for, and refused) ...
    expect(output).toContain('BLOCKED prom-client');
    // ... the relay said once that it records no metrics ...
    expect(
      output.match(/prom-client is not installed: RelayModule records no metrics/g),
    ).toHaveLength(1);
    // ... and nothing even asked for terminus.
    expect(output).not.toContain('BLOCKED @nestjs/terminus');
    await child.stop(20_000);
    expect(child.process.signalCode).toBe('SIGTERM');
  });
});
