import { Injectable } from '@nestjs/common';
import type { TestingModule } from '@nestjs/testing';
import { uniqueTopic, waitFor } from '@test/support';
import {
  OutboxBackPressureError,
  OutboxPressureService,
  OutboxService,
  OutboxTransactional,
} from '@nest-outbox/outbox';
import type { PressureView } from '../src/operator/relay-overview.service';
import { createOutboxApp } from '../../outbox/test/outbox-test-app';
import { RelayStatsService } from '../src/health/relay-stats.service';
import { useRelayFixture } from './relay-test.fixture';

@Injectable()
class Commands {
  constructor(private readonly outbox: OutboxService) {}

  private async record(id: string): Promise<void> {
    const event = { eventType: 'order.placed', aggregateType: 'order', aggregateId: id };
    await this.outbox.record({ ...event, aggregateVersion: 1, payload: { id } });
  }

  @OutboxTransactional()
  critical(id: string): Promise<void> {
    return this.record(id);
  }

  @OutboxTransactional({ critical: false })
  optional(id: string): Promise<void> {
    return this.record(id);
  }
}

describe('Back-pressure: the relay publishes the state, the producer reads it (real PostgreSQL)', () => {
  const topic = uniqueTopic('relay-back-pressure');
  const fixture = useRelayFixture('relay_back_pressure', { topics: [topic] });
  let producerApp: TestingModule | undefined;

  afterAll(async () => {
    await producerApp?.close();
  });

  it('Given no relay, the producer reads unknown and refuses nothing; given a relay, events held behind a parked event do not make it critical, an old free event does and non-critical commands are refused before any write; once the relay stops the state reads unknown, not critical', async () => {
    const { schema, producer } = fixture.scene;
    const table = `"${schema.name}".outbox`;
    const events = async () =>
      (await schema.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`)).rows[0]!
        .n;
    producerApp = await createOutboxApp(
      { pressure: true, schema: schema.name },
      { providers: [Commands] },
    );
    const commands = producerApp.get(Commands);
    const pressure = producerApp.get(OutboxPressureService);
    const state = (wanted: PressureView['state']) =>
      waitFor(`the producer to read ${wanted}`, async () => {
        const view = await pressure.refresh();
        return view.state === wanted ? view : undefined;
      });

    await producer.writePoisoned('held');
    await state('unknown');
    await commands.optional('fresh'); // after the held events: they are the oldest
    const relay = await fixture.scene.start({
      routing: { defaultTopic: topic },
      // nothing is published: the backlog stays as written
      tuning: { autoStart: false, statsIntervalMs: 500 },
      pressure: {
        maxBacklog: 1000,
        maxOldestAgeMs: 60_000,
        warnForecastSeconds: 0,
        criticalForecastSeconds: 0,
      },
    });
    await state('ok');
    await commands.optional('admitted');

    await producer.age('fresh');
    const critical = await state('critical');
    expect(critical.reasons?.join(' ')).toMatch(/^oldest age \d+ ms >= \d+ ms/);
    const before = await events();
    await expect(commands.optional('refused')).rejects.toBeInstanceOf(OutboxBackPressureError);
    expect(await events()).toBe(before);
    await commands.critical('critical');
    expect(await events()).toBe(before + 1);

    await fixture.scene.stop(relay);
    const stale = await state('unknown');
    expect(stale.reasons?.join(' ')).toMatch(/^stale/);
    await commands.optional('after-relay');
  });

  it('Given a database without the pressure table and verifySchema: false, then the relay still counts its backlog on its own', async () => {
    const scene = await fixture.newScene('relay_bp_unmigrated');
    await scene.schema.pool.query(`DROP TABLE "${scene.schema.name}".outbox_pressure`);
    await scene.producer.writeMany(2, 2);
    const app = await scene.start({
      routing: { defaultTopic: topic },
      tuning: { autoStart: false, verifySchema: false },
    });
    expect(await app.get(RelayStatsService).refresh()).toMatchObject({ pending: 2 });
  });
});
