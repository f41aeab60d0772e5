import type { CallHandler } from '@nestjs/common';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host';
import { lastValueFrom, of, throwError, type Observable } from 'rxjs';
import { chunkRecord, eventIdAt, pipelineOverFakes, policyOf } from '../../test/inbox-unit.fakes';
import { InboxKafkaContext } from '../chunk/inbox-kafka.context';
import type { InboxConsumerRegistry } from '../consumer/inbox-consumer.registry';
import { InboxMisuseError } from '../errors/inbox-misuse.error';
import type { InboxHandlerPolicies } from '../options/inbox-handler.policies';
import { InboxInterceptor } from './inbox.interceptor';

class OrdersController {
  onOrder(): void {}
}
const handler = OrdersController.prototype.onOrder;

/**
 * The interceptor over a real pipeline on fakes, for `@InboxHandler('a')` on `handler`; `next`
 * traces each call of the rest of Nest's chain with the `@Ctx()` it sees (`args[1]`).
 */
function setUp() {
  const fakes = pipelineOverFakes();
  const policies = {
    forHandler: (fn: object) =>
      fn === handler ? { consumer: 'a', policy: policyOf(), batch: false } : undefined,
  } as unknown as InboxHandlerPolicies;
  const attached: unknown[] = [];
  const registry = {
    attach: (consumer: unknown) => {
      attached.push(consumer);
      return fakes.session;
    },
  } as unknown as InboxConsumerRegistry;
  const interceptor = new InboxInterceptor(policies, fakes.pipeline, registry);
  const runRecord = jest.spyOn(fakes.pipeline, 'runRecord');
  const seen: unknown[] = [];
  const results: (() => Observable<unknown>)[] = [];
  const call = (args: unknown[], type = 'rpc', fn: () => void = handler) => {
    const context = new ExecutionContextHost(args, OrdersController, fn);
    context.setType(type);
    const next: CallHandler = {
      handle: () => {
        seen.push(args[1]);
        fakes.trace.push('handler');
        return (results.shift() ?? (() => of('done')))();
      },
    };
    return { intercepted: () => interceptor.intercept(context, next), next };
  };
  return { ...fakes, attached, runRecord, seen, results, call };
}

afterEach(() => jest.restoreAllMocks());

describe('InboxInterceptor', () => {
  it('steps aside under InboxKafkaServer: a call with an InboxKafkaContext goes straight on', () => {
    const { call, consumer, runRecord, attached } = setUp();
    const record = chunkRecord(consumer, 5);
    const context = new InboxKafkaContext(record.context, [], false);
    const passed = of('done');
    const { intercepted, next } = call([{ at: 5 }, context]);
    jest.spyOn(next, 'handle').mockReturnValue(passed);

    expect(intercepted()).toBe(passed);
    expect(runRecord).not.toHaveBeenCalled();
    expect(attached).toEqual([]);
  });

  it("runs a plain ServerKafka record through the pipeline once, the rest of Nest's chain being its invoke stage with the InboxKafkaContext as @Ctx()", async () => {
    const { call, consumer, runRecord, attached, seen, trace, session, commits } = setUp();
    const record = chunkRecord(consumer, 5);
    const { intercepted } = call([{ at: 5 }, record.context]);

    const result = intercepted();
    expect(runRecord).not.toHaveBeenCalled(); // nothing runs before Nest subscribes
    expect(await lastValueFrom(result)).toBeUndefined();

    expect(attached).toEqual([consumer]);
    expect(runRecord).toHaveBeenCalledTimes(1);
    expect(runRecord).toHaveBeenCalledWith(
      session,
      expect.objectContaining({ consumer: 'a', batch: false }),
      expect.objectContaining({ position: { topic: 't', partition: 0, offset: '5' } }),
    );
    expect(seen).toHaveLength(1);
    expect(seen[0]).toBeInstanceOf(InboxKafkaContext);
    expect((seen[0] as InboxKafkaContext).events.map((e) => e.eventId)).toEqual([eventIdAt(5)]);
    expect(trace).toEqual(['begin', 'register a 5', 'handler', 'commit', 'settle a', 'finish 5']);
    await session.flush();
    expect(commits).toEqual([[{ topic: 't', partition: 0, offset: '6' }]]);
  });

  it("retries through the pipeline: a failed call runs the rest of Nest's chain again, in a new transaction", async () => {
    const { call, consumer, runRecord, results, trace } = setUp();
    results.push(() => throwError(() => new Error('flaky')));
    const record = chunkRecord(consumer, 5);

    await lastValueFrom(call([{ at: 5 }, record.context]).intercepted());

    expect(runRecord).toHaveBeenCalledTimes(1);
    expect(trace.filter((t) => ['handler', 'commit', 'rollback'].includes(t))).toEqual([
      'handler',
      'rollback',
      'handler',
      'commit',
    ]);
  });

  it.each([
    {
      what: 'outside the Kafka transport',
      args: (ctx: unknown) => [{}, ctx],
      type: 'http',
      fn: handler,
    },
    { what: 'without a KafkaContext', args: () => [{}, {}], type: 'rpc', fn: handler },
    {
      what: 'on a method without @InboxHandler',
      args: (ctx: unknown) => [{}, ctx],
      type: 'rpc',
      fn: () => undefined,
    },
  ])('refuses a call $what', ({ args, type, fn }) => {
    const { call, consumer } = setUp();
    const record = chunkRecord(consumer, 5);

    expect(() => call(args(record.context), type, fn).intercepted()).toThrow(InboxMisuseError);
  });
});
