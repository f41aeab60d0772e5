import { KAFKA_BROKERS, uniqueTopic, waitFor } from '@test/support';
import { logLevel } from 'kafkajs';
import { RelayLoop } from '../src/loop/relay.loop';
import { RelayOperatorService } from '../src/operator/relay-operator.service';
import { KafkaPublisher } from '../src/publisher/kafka.publisher';
import { RecordingPublisher } from './recording.publisher';
import { useRelayFixture } from './relay-test.fixture';

describe('Operator actions on an event a running relay holds (real PostgreSQL + Kafka)', () => {
  const topic = uniqueTopic('relay-operator-leased');
  const fixture = useRelayFixture('relay_op_leased', { topics: [topic] });

  it('Given an event leased by a running relay, when an operator skips or parks it, then nothing changes and the audited answer names the relay, the end of its lease and what to do; after pausing that relay, park and skip take effect', async () => {
    const { scene } = fixture;
    const { schema, producer } = scene;
    const publisher = new RecordingPublisher(
      new KafkaPublisher({ clientId: 'op', brokers: KAFKA_BROKERS, logLevel: logLevel.NOTHING }),
    );
    publisher.delayMs = 4000; // a slow broker: the lease is visible for a while
    const relay = await scene.start({
      routing: { defaultTopic: topic },
      tuning: {
        relayId: 'relay-a',
        publisher,
        leaseMs: 30_000,
        publishTimeoutMs: 15_000,
        shutdownTimeoutMs: 20_000,
      },
    });
    const operator = relay.get(RelayOperatorService);
    const who = { actor: 'alice', reason: 'test' };
    const [held] = await producer.write([{ aggregateId: 'held' }]);
    await waitFor('the event leased', () => Promise.resolve(publisher.attempts.length > 0));

    const skip = await operator.skip(held!, who);
    const park = await operator.park(held!, who);
    for (const answer of [skip, park]) {
      expect(answer).toMatchObject({ outcome: 'leased', eventId: held, relayId: 'relay-a' });
      if (answer.outcome !== 'leased') throw new Error('unreachable');
      expect(answer.leaseExpiresAt.getTime()).toBeGreaterThan(Date.now() - 1000);
      expect(answer.hint).toMatch(/relay relay-a is publishing this event; by .* \(its lease\)/);
      expect(answer.hint).toMatch(
        /pause that relay first \(operator console: POST \/operator\/api\/relay\/pause\)/,
      );
    }
    const { rows: audit } = await schema.pool.query<{ action: string; outcome: string }>(
      `SELECT action, details->'result'->>'outcome' AS outcome FROM "${schema.name}".outbox_relay_audit WHERE event_id = $1 ORDER BY id`,
      [held],
    );
    expect(audit).toEqual([
      { action: 'skip', outcome: 'leased' },
      { action: 'park', outcome: 'leased' },
    ]);

    // Paused: in-flight batches end first; then nothing is leased and the actions apply.
    const loop = relay.get(RelayLoop);
    await loop.pause();
    publisher.delayMs = 0;
    expect(await operator.skip(held!, who)).toEqual({ outcome: 'not-pending', eventId: held });
    const [next, after] = await producer.write([{ aggregateId: 'held' }, { aggregateId: 'held' }]);
    expect(await operator.park(next!, who)).toEqual({ outcome: 'parked', eventId: next });
    expect(await operator.park(next!, who)).toEqual({ outcome: 'already-parked', eventId: next });
    await loop.resume();
    const state = async (id: string) =>
      (
        await schema.pool.query<{ parked_reason: string | null; published: boolean }>(
          `SELECT parked_reason, published_at IS NOT NULL AS published FROM "${schema.name}".outbox WHERE event_id = $1`,
          [id],
        )
      ).rows[0]!;
    expect(await state(next!)).toEqual({ parked_reason: 'operator alice: test', published: false });
    expect(await operator.skip(next!, who)).toEqual({ outcome: 'skipped', eventId: next });
    await waitFor('the event behind it published', async () => (await state(after!)).published);
  });
});
