import type { KafkaContext } from '@nestjs/microservices';
import { InvalidOptionsError } from '@nest-outbox/core';
import type { MessageHandler } from '@nestjs/microservices';
import type { Consumer, ConsumerRunConfig, EachBatchPayload } from 'kafkajs';
import { kafkaMessage, policyOf, type Trace } from '../../test/inbox-unit.fakes';
import type { ChunkRecord, InboxRoute } from '../chunk/chunk';
import type { InboxOutcome } from '../chunk/chunk';
import type { ConsumerSession } from '../consumer/consumer.session';
import { InboxMisuseError } from '../errors/inbox-misuse.error';
import type { InboxPipeline } from '../pipeline/inbox.pipeline';
import { InboxKafkaServer } from './inbox-kafka.server';
import type { InboxLink } from './inbox-link';

const route = (consumer: string): InboxRoute => ({
  consumer,
  policy: policyOf(),
  batch: false,
  invoke: () => Promise.resolve(undefined),
});
const handler = () => (() => Promise.resolve(undefined)) as unknown as MessageHandler;

/** The trace of a chunk the pipeline ran: its last offset resolved, then a heartbeat. */
const chunkRan = (offsets: string) => [
  `chunk ${offsets} for a,b`,
  `resolve ${offsets.split(',').at(-1)}`,
  'heartbeat',
];
const offsetsOf = (records: readonly ChunkRecord[]) => records.map((r) => r.offset).join(',');

/**
 * An `InboxKafkaServer` serving topic `t` with routes `a` and `b`, over a fake pipeline that
 * traces its calls (a chunk fails when `failChunk` says so, a record ends as `outcomeOf` says)
 * and a fake kafkajs consumer whose `run()` hands over `eachBatch`.
 */
async function started(options: { inboxBatchSize?: number } = {}) {
  const trace: Trace = [];
  const script = {
    failChunk: (_offsets: string) => false,
    outcomeOf: (_consumer: string, _offset: bigint): InboxOutcome | 'rejected' => 'applied',
  };
  const chunks: ChunkRecord[][] = [];
  const sessions = new Set<ConsumerSession>();
  const pipeline = {
    runChunk: (s: ConsumerSession, routes: readonly InboxRoute[], records: ChunkRecord[]) => {
      const offsets = offsetsOf(records);
      trace.push(`chunk ${offsets} for ${routes.map((r) => r.consumer).join(',')}`);
      chunks.push(records);
      sessions.add(s);
      return script.failChunk(offsets)
        ? Promise.reject(new Error('rolled back'))
        : Promise.resolve();
    },
    runRecord: (s: ConsumerSession, r: InboxRoute, record: ChunkRecord) => {
      trace.push(`record ${r.consumer} ${record.offset}`);
      sessions.add(s);
      return Promise.resolve(script.outcomeOf(r.consumer, record.offset));
    },
  };
  const session = {
    refusals: {
      refuse: (_: unknown, r: { code: string; offsets: bigint[] }, consumers: string[]) =>
        trace.push(`refused ${r.code} ${r.offsets.join(',')} for ${consumers.join(',')}`),
    },
  } as unknown as ConsumerSession;
  const routes = [route('a'), route('b')];
  const link: InboxLink = {
    pipeline: pipeline as unknown as InboxPipeline,
    routes: (topic) => (topic === 't' ? routes : []),
    session: () => session,
    connectionName: undefined,
  };
  const server = new InboxKafkaServer({
    client: { brokers: ['localhost:9092'] },
    run: { autoCommit: false },
    inboxBatchSize: options.inboxBatchSize ?? 2,
  });
  for (const _ of routes) server.addHandler('t', handler(), true); // one @EventPattern method each
  server.useInbox(link);
  let config: ConsumerRunConfig | undefined;
  const consumer = {
    subscribe: jest.fn(() => Promise.resolve()),
    run: (c: ConsumerRunConfig) => {
      config = c;
      return Promise.resolve();
    },
  };
  await server.bindEvents(consumer as unknown as Consumer);
  const live = { running: true, stale: false };
  /** Runs `eachBatch` over partition t/0's records at `offsets` (log end: past the last). */
  const consume = (offsets: number[], highWatermark = String(Math.max(-1, ...offsets) + 1)) =>
    config!.eachBatch!({
      batch: {
        topic: 't',
        partition: 0,
        highWatermark,
        messages: offsets.map((o) => kafkaMessage(o)),
      },
      resolveOffset: (offset: string) => trace.push(`resolve ${offset}`),
      heartbeat: () => {
        trace.push('heartbeat');
        return Promise.resolve();
      },
      isRunning: () => live.running,
      isStale: () => live.stale,
    } as unknown as EachBatchPayload);
  return { trace, script, chunks, session, sessions, consumer, config: config!, consume, live };
}

describe('InboxKafkaServer', () => {
  it('subscribes to its topics and runs eachBatch without auto-commit nor auto-resolve', async () => {
    const { consumer, config } = await started();

    expect(consumer.subscribe).toHaveBeenCalledWith({ topics: ['t'] });
    expect(config).toMatchObject({ autoCommit: false, eachBatchAutoResolve: false });
  });

  it('hands a batch to the pipeline in chunks of inboxBatchSize, resolving and heartbeating after each', async () => {
    const { trace, consume, session, sessions } = await started({ inboxBatchSize: 2 });

    await consume([0, 1, 2, 3, 4]);

    expect([...sessions]).toEqual([session]); // the InboxModule's session of this consumer
    expect(trace).toEqual([...chunkRan('0,1'), ...chunkRan('2,3'), ...chunkRan('4')]);
  });

  it("gives the pipeline records as Nest's ServerKafka hands them to handlers: position, context and payload", async () => {
    const { chunks, consume } = await started();

    await consume([7]);

    const [record] = chunks[0]!;
    expect(record).toMatchObject({
      position: { topic: 't', partition: 0, offset: '7' },
      offset: 7n,
    });
    expect(record!.headers.event_type).toBe('order.confirmed');
    const context = record!.context as KafkaContext;
    expect([context.getTopic(), context.getPartition()]).toEqual(['t', 0]);
    expect(await record!.payload()).toEqual({ at: 7 });
  });

  it('replays a failed chunk record by record for every route, resolving each record, then goes on', async () => {
    const { trace, script, consume } = await started();
    script.failChunk = (offsets) => offsets === '2,3';

    await consume([0, 1, 2, 3, 4]);

    expect(trace).toEqual([
      ...chunkRan('0,1'),
      'chunk 2,3 for a,b',
      'record a 2',
      'record b 2',
      'resolve 2',
      'record a 3',
      'record b 3',
      'resolve 3',
      'heartbeat',
      ...chunkRan('4'),
    ]);
  });

  it('refuses records past the log end or not increasing before any chunk, and never resolves them', async () => {
    const { trace, consume } = await started();

    await consume([0, 1, 1003, 2, 1, 3], '4');

    expect(trace).toEqual([
      'refused offset_beyond_log_end 1003 for a,b',
      'refused offset_not_increasing 1 for a,b',
      ...chunkRan('0,1'),
      ...chunkRan('2,3'),
    ]);
  });

  it('stops the batch at a paused record: neither it nor anything after it is resolved', async () => {
    const { trace, script, consume } = await started();
    script.failChunk = () => true;
    script.outcomeOf = (consumer, offset) =>
      consumer === 'a' && offset === 1n ? 'paused' : 'applied';

    await consume([0, 1, 2, 3]);

    expect(trace).toEqual([
      'chunk 0,1 for a,b',
      'record a 0',
      'record b 0',
      'resolve 0',
      'record a 1',
    ]);
  });

  it.each([
    { what: 'no longer running', stop: (live: { running: boolean }) => (live.running = false) },
    { what: 'stale', stop: (live: { stale: boolean }) => (live.stale = true) },
  ])(
    'stops between chunks and between replayed records once the batch is $what',
    async ({ stop }) => {
      const between = await started();
      between.script.failChunk = () => {
        stop(between.live);
        return false;
      };
      await between.consume([0, 1, 2, 3]);
      expect(between.trace).toEqual(chunkRan('0,1'));

      const replaying = await started();
      replaying.script.failChunk = () => true;
      replaying.script.outcomeOf = () => {
        stop(replaying.live);
        return 'applied';
      };
      await replaying.consume([0, 1, 2, 3]);
      expect(replaying.trace).toEqual([
        'chunk 0,1 for a,b',
        'record a 0',
        'record b 0',
        'resolve 0',
      ]);
    },
  );

  describe('refuses to start', () => {
    const server = () =>
      new InboxKafkaServer({ client: { brokers: ['localhost:9092'] }, run: { autoCommit: false } });
    const link = (routes: (topic: string) => readonly InboxRoute[], connectionName?: string) =>
      ({ pipeline: {}, routes, session: () => ({}), connectionName }) as unknown as InboxLink;
    const consumer = () => ({ subscribe: jest.fn(), run: jest.fn() });

    it('a topic whose handler is not an inbox handler', async () => {
      const s = server();
      s.addHandler('t', handler(), true);
      s.addHandler('other', handler(), true);
      s.useInbox(link((topic) => (topic === 't' ? [route('a')] : [])));
      const kafka = consumer();

      await expect(s.bindEvents(kafka as unknown as Consumer)).rejects.toThrow(
        new InboxMisuseError(
          "InboxKafkaServer: topic 'other' has 1 @EventPattern handler(s) without @InboxHandler or " +
            '@InboxBatchHandler. Serve that topic from an application without inbox handlers, ' +
            'or make its handlers inbox handlers.',
        ),
      );
      expect(kafka.subscribe).not.toHaveBeenCalled();
      expect(kafka.run).not.toHaveBeenCalled();
    });

    it('a topic with an inbox handler and another one beside it', async () => {
      const s = server();
      s.addHandler('t', handler(), true);
      s.addHandler('t', handler(), true);
      s.useInbox(link(() => [route('a')]));

      await expect(s.bindEvents(consumer() as unknown as Consumer)).rejects.toThrow(
        /topic 't' has 1 @EventPattern handler\(s\) without @InboxHandler/,
      );
    });

    it('without InboxModule', async () => {
      const s = server();
      s.addHandler('t', handler(), true);

      await expect(s.bindEvents(consumer() as unknown as Consumer)).rejects.toThrow(
        /started without InboxModule: import InboxModule.forRoot\(\)/,
      );
    });

    it("with another connectionName than InboxModule's", async () => {
      const s = server();
      s.addHandler('t', handler(), true);
      s.useInbox(link(() => [route('a')], 'orders'));

      await expect(s.bindEvents(consumer() as unknown as Consumer)).rejects.toThrow(
        /InboxKafkaServer has connectionName null but InboxModule "orders": give both the same connectionName/,
      );
    });

    it.each([
      { option: 'inboxBatchSize', options: { inboxBatchSize: 0, run: { autoCommit: false } } },
      { option: 'run.autoCommit', options: {} },
    ])('with an invalid $option', ({ option, options }) => {
      expect(() => new InboxKafkaServer({ client: { brokers: ['b:9092'] }, ...options })).toThrow(
        InvalidOptionsError,
      );
      expect(() => new InboxKafkaServer({ client: { brokers: ['b:9092'] }, ...options })).toThrow(
        option,
      );
    });
  });
});
