import {
  chunkRecord,
  counted,
  eventIdAt,
  fakeRoute,
  pipelineOverFakes,
  type RouteCall,
} from '../../test/inbox-unit.fakes';
import { InboxPermanentError } from '../errors/inbox-permanent.error';
import { InboxRetryAbandoned } from '../errors/inbox-retry-abandoned.error';
import { InboxVersionGapError } from '../errors/inbox-version-gap.error';

/** A chunk of partition t/0 at `offsets`; `bad` offsets lack their event id. */
function chunkOf(
  consumer: Parameters<typeof chunkRecord>[0],
  offsets: number[],
  bad: number[] = [],
) {
  return offsets.map((o) => chunkRecord(consumer, o, { bad: bad.includes(o) }));
}

const setUp = pipelineOverFakes;
type Fakes = ReturnType<typeof setUp>;

afterEach(() => jest.restoreAllMocks());

describe('InboxPipeline.runChunk', () => {
  it('decodes, registers once per route and invokes in offset order inside one transaction, then makes the offsets committable once', async () => {
    const { pipeline, session, trace, commits, metrics, consumer } = setUp();
    const a = fakeRoute(trace, 'a');
    const b = fakeRoute(trace, 'b');

    await pipeline.runChunk(session, [a.route, b.route], chunkOf(consumer, [0, 1, 2]));

    expect(trace).toEqual([
      'begin',
      'register a 0,1,2',
      'invoke a 0',
      'invoke a 1',
      'invoke a 2',
      'register b 0,1,2',
      'invoke b 0',
      'invoke b 1',
      'invoke b 2',
      'commit',
      'settle a',
      'settle b',
      'finishAll 0,1,2',
    ]);
    await session.flush();
    expect(commits).toEqual([[{ topic: 't', partition: 0, offset: '3' }]]);
    expect(await counted(metrics, 'events_applied_total', { consumer: 'a' })).toBe(3);
    expect(await counted(metrics, 'events_applied_total', { consumer: 'b' })).toBe(3);
  });

  it('writes a rejected record in the transaction and logs it only after the commit', async () => {
    const { pipeline, session, trace, commits, store, metrics, consumer } = setUp();
    const a = fakeRoute(trace, 'a');

    await pipeline.runChunk(session, [a.route], chunkOf(consumer, [0, 1, 2], [1]));

    expect(trace).toEqual([
      'begin',
      'reject 1',
      'register a 0,2',
      'invoke a 0',
      'invoke a 2',
      'commit',
      'log rejected record',
      'settle a',
      'finishAll 0,1,2',
    ]);
    expect(store.rejections).toMatchObject([{ consumer: 'a', offset: '1', attempts: 0 }]);
    expect(await counted(metrics, 'events_rejected_total', { reason: 'missing_header' })).toBe(1);
    await session.flush();
    expect(commits).toEqual([[{ topic: 't', partition: 0, offset: '3' }]]);
  });

  it("decodes under each route's own rules: a record one route refuses is still handled by another", async () => {
    const { pipeline, session, trace, store, commits, consumer } = setUp();
    const shipping = fakeRoute(trace, 'shipping', {
      policy: { eventTypes: new Set(['order.shipped']) },
    });
    const billing = fakeRoute(trace, 'billing');

    await pipeline.runChunk(session, [shipping.route, billing.route], chunkOf(consumer, [0, 1]));

    expect(store.rejections.map((r) => [r.consumer, r.offset, r.reasonCode])).toEqual([
      ['shipping', '0', 'unknown_event_type'],
      ['shipping', '1', 'unknown_event_type'],
    ]);
    expect(shipping.calls).toEqual([]);
    expect(billing.calls.map((c) => c.offsets)).toEqual([['0'], ['1']]);
    await session.flush();
    expect(commits).toEqual([[{ topic: 't', partition: 0, offset: '2' }]]);
  });

  it('does not invoke the handler for a duplicate or a stale event, and counts each outcome', async () => {
    const { pipeline, session, trace, store, metrics, consumer } = setUp();
    const a = fakeRoute(trace, 'a', { policy: { versionCheck: 'log' } });
    store.known.add(eventIdAt(0));
    store.versions.set(eventIdAt(2), { kind: 'stale', last: 5 });

    await pipeline.runChunk(session, [a.route], chunkOf(consumer, [0, 1, 2]));

    expect(a.calls.map((c) => c.offsets)).toEqual([['1']]);
    expect(trace).toEqual([
      'begin',
      'register a 0,1,2',
      'version 2',
      'version 3',
      'invoke a 1',
      'commit',
      'settle a',
      'finishAll 0,1,2',
    ]);
    const labels = { consumer: 'a', topic: 't' };
    expect(await counted(metrics, 'events_applied_total', labels)).toBe(1);
    expect(await counted(metrics, 'events_duplicate_total', labels)).toBe(1);
    expect(await counted(metrics, 'events_stale_total', labels)).toBe(1);
    expect(await counted(metrics, 'events_received_total', labels)).toBe(3);
  });

  it('calls a batch route once with its new events in offset order and the last record as payload', async () => {
    const { pipeline, session, trace, store, consumer } = setUp();
    const batch = fakeRoute(trace, 'batch', { batch: true });
    store.known.add(eventIdAt(1));

    await pipeline.runChunk(session, [batch.route], chunkOf(consumer, [0, 1, 2, 3]));

    expect(batch.calls).toEqual<RouteCall[]>([
      {
        consumer: 'batch',
        offsets: ['0', '2', '3'],
        eventIds: [eventIdAt(0), eventIdAt(2), eventIdAt(3)],
        payload: { at: 3 },
      },
    ]);
  });

  it('registers an event repeated inside the chunk once: new at its first offset, a duplicate after', async () => {
    const { pipeline, session, trace, store, metrics, consumer } = setUp();
    const a = fakeRoute(trace, 'a');
    const records = [
      chunkRecord(consumer, 0),
      chunkRecord(consumer, 1, { eventAt: 0 }),
      chunkRecord(consumer, 2),
    ];

    await pipeline.runChunk(session, [a.route], records);

    expect(store.registrations.map((r) => r.pending.map((p) => p.offset))).toEqual([['0', '2']]);
    expect(a.calls.map((c) => c.offsets)).toEqual([['0'], ['2']]);
    expect(await counted(metrics, 'events_duplicate_total', { consumer: 'a' })).toBe(1);
  });

  const faults: {
    stage: string;
    inject: (f: Fakes, a: ReturnType<typeof fakeRoute>) => void;
    error: string | typeof InboxVersionGapError;
  }[] = [
    {
      stage: 'registration',
      inject: (f) => (f.store.fail.registerMany = new Error('deadlock')),
      error: 'deadlock',
    },
    {
      stage: 'the version check (a gap held)',
      inject: (f) => f.store.versions.set(eventIdAt(2), { kind: 'gap', last: 0 }),
      error: InboxVersionGapError,
    },
    {
      stage: 'the handler',
      inject: (_f, a) =>
        (a.fail = (call) => (call.offsets[0] === '2' ? new Error('boom') : undefined)),
      error: 'boom',
    },
    {
      stage: 'the rejection write',
      inject: (f) => (f.store.fail.recordRejection = new Error('lost')),
      error: 'lost',
    },
  ];

  describe.each(faults)('when $stage throws', ({ inject, error }) => {
    /** Offsets 0..3 (1 refused) through a route holding version gaps, with the fault injected. */
    const failedChunk = async () => {
      const f = setUp();
      const a = fakeRoute(f.trace, 'a', { policy: { versionCheck: 'hold' } });
      const records = chunkOf(f.consumer, [0, 1, 2, 3], [1]);
      inject(f, a);
      await expect(f.pipeline.runChunk(f.session, [a.route], records)).rejects.toThrow(error);
      return { ...f, a, records };
    };

    it('propagates the error after a rollback and settles nothing: no metric, no log, nothing committable', async () => {
      const { trace, metrics, session, commits, logs } = await failedChunk();

      expect(trace).toContain('rollback');
      expect(trace).not.toContain('commit');
      expect(trace.filter((t) => /^(settle|finish)/.test(t))).toEqual([]);
      expect(logs.filter((l) => l.startsWith('rejected record'))).toEqual([]);
      expect(await counted(metrics, 'events_received_total')).toBe(0);
      await session.flush();
      expect(commits).toEqual([]);
    });

    it('abandons its offsets: the chunk run again without the fault commits past all of it', async () => {
      const { pipeline, session, commits, store, a, records } = await failedChunk();
      delete store.fail.registerMany;
      delete store.fail.recordRejection;
      store.versions.clear();
      a.fail = undefined;

      await pipeline.runChunk(session, [a.route], records);

      await session.flush();
      expect(commits).toEqual([[{ topic: 't', partition: 0, offset: '4' }]]);
    });
  });

  it('counts a refused record once its chunk commits: a rolled-back chunk counts no rejection, its replay counts it once', async () => {
    const { pipeline, session, trace, metrics, consumer } = setUp();
    const a = fakeRoute(trace, 'a');
    const records = chunkOf(consumer, [0, 1, 2], [1]);
    a.fail = (call) => (call.offsets[0] === '2' ? new Error('boom') : undefined);
    await expect(pipeline.runChunk(session, [a.route], records)).rejects.toThrow('boom');

    expect(await counted(metrics, 'events_rejected_total')).toBe(0);

    a.fail = undefined;
    await pipeline.runChunk(session, [a.route], records);
    expect(await counted(metrics, 'events_rejected_total')).toBe(1);
  });
});

describe('InboxPipeline.runRecord', () => {
  it('settles a refused record on its own: its row written and logged, its offset committable', async () => {
    const { pipeline, session, trace, commits, store, consumer } = setUp();
    const a = fakeRoute(trace, 'a');

    const outcome = await pipeline.runRecord(
      session,
      a.route,
      chunkRecord(consumer, 5, { bad: true }),
    );

    expect(outcome).toBe('rejected');
    expect(trace).toEqual(['reject 5', 'log rejected record', 'finish 5']);
    expect(store.rejections).toMatchObject([{ offset: '5', reasonCode: 'missing_header' }]);
    await session.flush();
    expect(commits).toEqual([[{ topic: 't', partition: 0, offset: '6' }]]);
  });

  it('retries a handler that fails, each attempt in a transaction of its own, and applies the event once', async () => {
    const { pipeline, session, trace, metrics, commits, consumer } = setUp();
    const a = fakeRoute(trace, 'a');
    a.fail = () => (a.calls.length === 1 ? new Error('flaky') : undefined);

    const outcome = await pipeline.runRecord(session, a.route, chunkRecord(consumer, 5));

    expect(outcome).toBe('applied');
    expect(trace).toEqual([
      'begin',
      'register a 5',
      'invoke a 5',
      'rollback',
      'log handler failed',
      'begin',
      'register a 5',
      'invoke a 5',
      'commit',
      'settle a',
      'finish 5',
    ]);
    expect(await counted(metrics, 'handler_failures_total')).toBe(1);
    expect(await counted(metrics, 'events_applied_total')).toBe(1);
    await session.flush();
    expect(commits).toEqual([[{ topic: 't', partition: 0, offset: '6' }]]);
  });

  it.each([
    { why: 'a permanent error', error: new InboxPermanentError('refused'), attempts: 1 },
    { why: 'its last attempt', error: new Error('always'), attempts: 3 },
  ])('dead-letters an event after $why and commits past it', async ({ error, attempts }) => {
    const { pipeline, session, trace, store, metrics, commits, consumer } = setUp();
    const a = fakeRoute(trace, 'a', { policy: { maxAttempts: 3 } });
    a.fail = () => error;

    const outcome = await pipeline.runRecord(session, a.route, chunkRecord(consumer, 5));

    expect(outcome).toBe('dead-lettered');
    expect(a.calls).toHaveLength(attempts);
    expect(store.rejections).toMatchObject([
      { offset: '5', reasonCode: 'handler_failed', attempts },
    ]);
    expect(await counted(metrics, 'events_dead_lettered_total')).toBe(1);
    expect(await counted(metrics, 'events_applied_total')).toBe(0);
    expect(trace.slice(-2)).toEqual(['log event dead-lettered', 'finish 5']);
    await session.flush();
    expect(commits).toEqual([[{ topic: 't', partition: 0, offset: '6' }]]);
  });

  it("pauses the partition under onExhausted 'pause' and leaves the offset uncommitted", async () => {
    const { pipeline, session, trace, store, commits, consumer } = setUp();
    const a = fakeRoute(trace, 'a', { policy: { onExhausted: 'pause' } });
    a.fail = () => new InboxPermanentError('refused');

    const outcome = await pipeline.runRecord(session, a.route, chunkRecord(consumer, 5));

    expect(outcome).toBe('paused');
    expect(session.snapshot().paused).toMatchObject([
      { topic: 't', partition: 0, offset: '5', consumer: 'a', eventId: eventIdAt(5) },
    ]);
    expect(store.rejections).toEqual([]);
    expect(trace.filter((t) => t.startsWith('finish'))).toEqual([]);
    await session.flush();
    expect(commits).toEqual([]);
  });

  it('retries while the database is unavailable without counting those attempts: the event keeps all its own', async () => {
    const { pipeline, session, trace, store, metrics, consumer } = setUp();
    const a = fakeRoute(trace, 'a', { policy: { maxAttempts: 2 } });
    const down = Object.assign(new Error('terminating connection'), { code: '57P01' });
    a.fail = () => (a.calls.length <= 3 ? down : new Error('flaky'));

    const outcome = await pipeline.runRecord(session, a.route, chunkRecord(consumer, 5));

    expect(outcome).toBe('dead-lettered');
    expect(a.calls).toHaveLength(5); // three outages, then its two attempts
    expect(store.rejections).toMatchObject([{ offset: '5', attempts: 2 }]);
    expect(await counted(metrics, 'handler_failures_total')).toBe(5);
  });

  it('gives up when the partition is revoked during the backoff: throws, its offset not committed', async () => {
    const { pipeline, session, trace, join, commits, consumer } = setUp();
    const a = fakeRoute(trace, 'a', { policy: { baseDelayMs: 1000, maxDelayMs: 1000 } });
    a.fail = () => new Error('flaky');
    join({ t: [0] });
    jest.useFakeTimers();
    try {
      const run = pipeline.runRecord(session, a.route, chunkRecord(consumer, 5));
      const abandoned = expect(run).rejects.toThrow(InboxRetryAbandoned);
      await jest.advanceTimersByTimeAsync(0);
      expect(a.calls).toHaveLength(1); // backing off before its second attempt
      join({ t: [1] });
      await jest.advanceTimersByTimeAsync(1000);
      await abandoned;
    } finally {
      jest.useRealTimers();
    }
    expect(a.calls).toHaveLength(1);
    expect(trace.filter((t) => t.startsWith('finish'))).toEqual([]);
    await session.flush();
    expect(commits).toEqual([]);
  });
});
