import type {
  ArgumentsHost,
  CallHandler,
  CanActivate,
  ExceptionFilter,
  ExecutionContext,
  NestInterceptor,
  PipeTransform,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { EventEnvelope } from '@nest-outbox/core';
import type { KafkaContext } from '@nestjs/microservices';
import { createTopics, uniqueTopic, waitFor } from '@test/support';
import { EMPTY, of, tap, throwError, type Observable } from 'rxjs';
import { committedOffsets, send } from './inbox-test.kafka';
import { useInboxFixture } from './inbox-test.fixture';
import { HANDLER_MARK, startInboxApp } from './inbox-test.app';
import { eventRecord } from './inbox-test.records';

jest.setTimeout(90_000);

const offsetOf = (context: ExecutionContext) =>
  context.switchToRpc().getContext<KafkaContext>().getMessage().offset;

/** The application's own guard: notes each record it lets through, and the handler's mark. */
class NotingGuard implements CanActivate {
  readonly offsets: string[] = [];
  readonly marks: unknown[] = [];
  canActivate(context: ExecutionContext): boolean {
    this.offsets.push(offsetOf(context));
    this.marks.push(new Reflector().get(HANDLER_MARK, context.getHandler()));
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

/** The application's own pipe: notes the event id of each decoded event it is handed. */
class NotingPipe implements PipeTransform {
  readonly eventIds: string[] = [];
  transform(value: unknown): unknown {
    const eventId = (value as Partial<EventEnvelope> | null)?.eventId;
    if (typeof eventId === 'string') this.eventIds.push(eventId);
    return value;
  }
}

/** The application's own interceptor: answers for the handler of the events it knows. */
class SkippingInterceptor implements NestInterceptor {
  constructor(private readonly answers: ReadonlyMap<string, Observable<unknown>>) {}
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const { headers } = context.switchToRpc().getContext<KafkaContext>().getMessage();
    return this.answers.get(String(headers?.event_id)) ?? next.handle();
  }
}

class FlakyEffectError extends Error {}

/** The application's own exception filter: notes the offsets it saw fail, and rethrows. */
class NotingFilter implements ExceptionFilter {
  readonly offsets: string[] = [];
  catch(exception: unknown, host: ArgumentsHost): Observable<never> {
    if (exception instanceof FlakyEffectError)
      this.offsets.push(host.switchToRpc().getContext<KafkaContext>().getMessage().offset);
    return throwError(() => exception);
  }
}

describe("The application's guards, interceptors, pipes and filters around an @InboxHandler method (real PostgreSQL + Kafka)", () => {
  const fx = useInboxFixture('inbox_enhancers');

  /** A fresh one-partition topic holding `n` events, and a group to read it with. */
  async function topicOf(name: string, n: number) {
    const topic = uniqueTopic(name);
    await createTopics([{ topic, numPartitions: 1 }]);
    const records = Array.from({ length: n }, () => eventRecord());
    await send(fx.tools.producer, topic, records);
    return { topic, groupId: uniqueTopic('g'), records };
  }

  /** Waits until the group committed all `n` offsets; then the event ids with an effect row. */
  async function effectsOnceCommitted(groupId: string, topic: string, n: number, consumer: string) {
    await waitFor(
      'every offset committed',
      async () => (await committedOffsets(fx.tools.admin, groupId, topic)).get(0) === BigInt(n),
    );
    const effects = await fx.db.pool.query<{ event_id: string }>(
      `SELECT event_id FROM "${fx.db.name}".effects WHERE consumer = $1`,
      [consumer],
    );
    return effects.rows.map((r) => r.event_id).sort();
  }

  it("run for each record (the method's guard and interceptor, the application's global interceptor), each applied once", async () => {
    const { topic, groupId, records } = await topicOf(`inbox-enhancers-server`, 5);
    const guard = new NotingGuard();
    const interceptor = new NotingInterceptor();
    const global = new NotingInterceptor();
    fx.apps.push(
      await startInboxApp({
        schema: fx.db.name,
        topics: [topic],
        groupId,
        consumer: `enhancers-server`,
        methodGuards: [guard],
        methodInterceptors: [interceptor],
        globalInterceptors: [global],
      }),
    );
    const effects = await effectsOnceCommitted(groupId, topic, 5, `enhancers-server`);

    const all = ['0', '1', '2', '3', '4'];
    expect([...new Set(guard.offsets)].sort()).toEqual(all);
    expect(new Set(guard.marks)).toEqual(new Set(['effect-handler']));
    expect([...new Set(interceptor.offsets)].sort()).toEqual(all);
    expect([...new Set(global.offsets)].sort()).toEqual(all);
    expect(effects).toEqual(records.map((r) => r.eventId).sort());
  });

  it('apply its pipe to the decoded event, and its exception filter to a failing call, each event applied once', async () => {
    const { topic, groupId, records } = await topicOf(`inbox-pipes-server`, 3);
    const flaky = records[1]!.eventId;
    const pipe = new NotingPipe();
    const filter = new NotingFilter();
    let failed = false;
    fx.apps.push(
      await startInboxApp({
        schema: fx.db.name,
        topics: [topic],
        groupId,
        consumer: `pipes-server`,
        methodPipes: [pipe],
        methodFilters: [filter],
        behavior: {
          before: (event) => {
            if (event.eventId !== flaky || failed) return;
            failed = true;
            throw new FlakyEffectError('the effect fails once');
          },
        },
      }),
    );
    const effects = await effectsOnceCommitted(groupId, topic, 3, `pipes-server`);

    expect([...new Set(pipe.eventIds)].sort()).toEqual(records.map((r) => r.eventId).sort());
    expect(filter.offsets).toEqual(['1']);
    expect(effects).toEqual(records.map((r) => r.eventId).sort());
  });

  it('dead-letter an event whose interceptor answered without calling the handler (InboxHandlerSkippedError), never marking it applied; the others are applied once and every offset is committed', async () => {
    const { topic, groupId, records } = await topicOf(`inbox-skipping`, 4);
    const [applied0, answered, applied2, empty] = records.map((r) => r.eventId);
    const interceptor = new SkippingInterceptor(
      new Map<string, Observable<unknown>>([
        [answered!, of('cached')],
        [empty!, EMPTY],
      ]),
    );
    fx.apps.push(
      await startInboxApp({
        schema: fx.db.name,
        topics: [topic],
        groupId,
        consumer: `skipping`,
        methodInterceptors: [interceptor],
      }),
    );
    const effects = await effectsOnceCommitted(groupId, topic, 4, `skipping`);

    expect(effects).toEqual([applied0, applied2].sort());
    const inbox = await fx.db.pool.query<{ event_id: string }>(
      `SELECT event_id FROM "${fx.db.name}".inbox WHERE consumer = 'skipping'`,
    );
    expect(inbox.rows.map((r) => r.event_id).sort()).toEqual([applied0, applied2].sort());
    const rejected = await fx.db.pool.query(
      `SELECT kafka_offset, reason_code, reason FROM "${fx.db.name}".inbox_rejected
       WHERE consumer = 'skipping' ORDER BY kafka_offset`,
    );
    const skipped = (offset: string) => ({
      kafka_offset: offset,
      reason_code: 'handler_failed',
      reason: expect.stringContaining(
        'InboxHandlerSkippedError: EffectController.onEvent: an interceptor returned without calling next.handle()',
      ),
    });
    expect(rejected.rows).toEqual([skipped('1'), skipped('3')]);
  });
});
