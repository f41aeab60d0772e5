import { OUTBOX_WAKEUP, OutboxWakeup } from '@nest-outbox/core/internal';
import { waitFor } from '@test/support';
import { RelayLoop } from '../src/loop/relay.loop';
import type {
  PublishAck,
  PublishRecord,
  RelayPublisher,
} from '../src/publisher/relay-publisher.interface';
import { useRelayFixture } from './relay-test.fixture';

/** Acknowledges like the null publisher, but holds each publish until the test lets it go. */
class GatedPublisher implements RelayPublisher {
  readonly calls: string[][] = [];
  concurrent = 0;
  maxConcurrent = 0;
  private readonly waiting: (() => void)[] = [];
  private offset = 0;

  connect(): Promise<void> {
    return Promise.resolve();
  }

  async publish(records: readonly PublishRecord[]): Promise<PublishAck[]> {
    this.calls.push(records.map((r) => r.key));
    this.concurrent++;
    this.maxConcurrent = Math.max(this.maxConcurrent, this.concurrent);
    await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.concurrent--;
    return records.map(() => ({ partition: 0, offset: String(this.offset++) }));
  }

  /** Lets every held publish finish. */
  releaseAll(): void {
    for (const go of this.waiting.splice(0)) go();
  }

  get held(): number {
    return this.waiting.length;
  }

  ping(): Promise<boolean> {
    return Promise.resolve(true);
  }

  disconnect(): Promise<void> {
    this.releaseAll();
    return Promise.resolve();
  }
}

describe('Relay pipeline: claim ahead while a batch is being sent (real PostgreSQL)', () => {
  const publisher = new GatedPublisher();
  const wakeup = new OutboxWakeup();
  afterAll(() => publisher.releaseAll()); // before the fixture closes the relay
  const fixture = useRelayFixture('relay_pipeline');

  it('Given a batch held in its send, when new events of another aggregate are signalled, then they are claimed at once, sent only after the held send, and never in the same flight as the held aggregate', async () => {
    const { scene } = fixture;
    const { schema, producer } = scene;
    const relay = await scene.start(
      {
        routing: { defaultTopic: 'unused' },
        // Polls too far apart to matter: only the wakeup claims.
        tuning: { publisher, polling: { minMs: 600_000, maxMs: 600_000 }, listen: false },
      },
      [{ provide: OUTBOX_WAKEUP, useValue: wakeup }],
    );
    const loop = relay.get(RelayLoop);
    await producer.write([{ aggregateId: 'first' }, { aggregateId: 'first' }]);
    wakeup.signal();
    await waitFor('first send held', () => publisher.held === 1, { timeoutMs: 5000 });

    // More of the held aggregate, and another aggregate, while the first send is held.
    await producer.write([{ aggregateId: 'first' }]);
    const [otherId] = await producer.write([{ aggregateId: 'other' }]);
    wakeup.signal();
    await waitFor(
      'other aggregate claimed during the held send',
      async () =>
        (
          await schema.pool.query<{ n: number }>(
            `SELECT count(*)::int AS n FROM "${schema.name}".outbox WHERE event_id = $1 AND lease_expires_at > now()`,
            [otherId],
          )
        ).rows[0]!.n === 1,
      { intervalMs: 10 },
    );
    // The claimed-ahead batch waits for its turn to send.
    expect(publisher.calls).toHaveLength(1);
    expect(publisher.maxConcurrent).toBe(1);

    for (let i = 0; i < 20 && publisher.calls.length < 3; i++) {
      publisher.releaseAll();
      await waitFor('next send or drained', async () => {
        return publisher.held > 0 || (await scene.pending()) === 0;
      });
    }
    publisher.releaseAll();
    await waitFor('drained', async () => (await scene.pending()) === 0);

    expect(publisher.maxConcurrent).toBe(1);
    // The held aggregate's third event was not in the claimed-ahead batch (its head was leased).
    expect(publisher.calls[0]).toEqual(['first', 'first']);
    expect(publisher.calls[1]).toEqual(['other']);
    expect(publisher.calls[2]).toEqual(['first']);
    expect(loop.totals.published).toBe(4);
  });
});
