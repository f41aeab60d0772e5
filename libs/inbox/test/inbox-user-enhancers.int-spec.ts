import type { CallHandler, CanActivate, ExecutionContext, NestInterceptor } from '@nestjs/common';
import type { KafkaContext } from '@nestjs/microservices';
import { createTopics, uniqueTopic, waitFor } from '@test/support';
import { tap, type Observable } from 'rxjs';
import { committedOffsets, send } from './inbox-test.kafka';
import { useInboxFixture } from './inbox-test.fixture';
import { startInboxApp } from './inbox-test.app';
import { eventRecord } from './inbox-test.records';

jest.setTimeout(90_000);

const offsetOf = (context: ExecutionContext) =>
  context.switchToRpc().getContext<KafkaContext>().getMessage().offset;

/** The application's own guard: notes each record it lets through. */
class NotingGuard implements CanActivate {
  readonly offsets: string[] = [];
  canActivate(context: ExecutionContext): boolean {
    this.offsets.push(offsetOf(context));
    return true;
  }
}

/** The application's own interceptor: notes each record whose handler call completed. */
class NotingInterceptor implements NestInterceptor {
  readonly offsets: string[] = [];
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const offset = offsetOf(context);
    return next.handle().pipe(tap({ complete: () => this.offsets.push(offset) }));
  }
}

describe("The application's own guard and interceptor on an @InboxHandler method (real PostgreSQL + Kafka)", () => {
  const fx = useInboxFixture('inbox_enhancers');

  it.each(['plain', 'batched'] as const)(
    'run for each record, each applied once (%s transport)',
    async (transport) => {
      const topic = uniqueTopic(`inbox-enhancers-${transport}`);
      const groupId = uniqueTopic('g');
      await createTopics([{ topic, numPartitions: 1 }]);
      const records = Array.from({ length: 5 }, () => eventRecord());
      await send(fx.tools.producer, topic, records);
      const guard = new NotingGuard();
      const interceptor = new NotingInterceptor();
      fx.apps.push(
        await startInboxApp({
          schema: fx.db.name,
          topics: [topic],
          groupId,
          transport,
          consumer: `enhancers-${transport}`,
          methodGuards: [guard],
          methodInterceptors: [interceptor],
        }),
      );
      await waitFor(
        'every offset committed',
        async () => (await committedOffsets(fx.tools.admin, groupId, topic)).get(0) === 5n,
      );

      const all = ['0', '1', '2', '3', '4'];
      expect([...new Set(guard.offsets)].sort()).toEqual(all);
      expect([...new Set(interceptor.offsets)].sort()).toEqual(all);
      const effects = await fx.db.pool.query<{ event_id: string }>(
        `SELECT event_id FROM "${fx.db.name}".effects WHERE consumer = $1`,
        [`enhancers-${transport}`],
      );
      expect(effects.rows.map((r) => r.event_id).sort()).toEqual(
        records.map((r) => r.eventId).sort(),
      );
    },
  );
});
