import { Logger } from '@nestjs/common';
import { EventEmitter } from 'node:events';
import type { Consumer } from 'kafkajs';
import { Registry } from 'prom-client';
import { InboxMetrics } from '../metrics/inbox.metrics';
import { ConsumerSession } from './consumer.session';
import { kafkajsConsumerPort } from './kafkajs-consumer.port';

const EVENTS = {
  GROUP_JOIN: 'consumer.group_join',
  REBALANCING: 'consumer.rebalancing',
  CRASH: 'consumer.crash',
  STOP: 'consumer.stop',
  CONNECT: 'consumer.connect',
  END_BATCH_PROCESS: 'consumer.end_batch_process',
  COMMIT_OFFSETS: 'consumer.commit_offsets',
};

type Offset = { topic: string; partition: number; offset: string };

/**
 * A recording fake of the kafkajs consumer surface the session uses. Like kafkajs, a sent
 * commit emits COMMIT_OFFSETS; `kafka.running = false` makes `commitOffsets` resolve without
 * sending (kafkajs while its consumer stops), `kafka.fail` makes it reject.
 */
function fakeConsumer() {
  const emitter = new EventEmitter();
  const commits: Offset[][] = [];
  const kafka = {
    running: true,
    /** Called before each attempt (numbered from 1): an error rejects it. */
    fail: undefined as ((attempt: number) => Error | undefined) | undefined,
    attempts: 0,
  };
  const consumer = {
    events: EVENTS,
    on: (event: string, fn: (e: unknown) => void) => {
      emitter.on(event, fn);
      return () => emitter.off(event, fn);
    },
    commitOffsets: (offsets: Offset[]) => {
      kafka.attempts += 1;
      if (!kafka.running) return Promise.resolve();
      const error = kafka.fail?.(kafka.attempts);
      if (error) return Promise.reject(error);
      commits.push(offsets);
      const topics = [...new Set(offsets.map((o) => o.topic))].map((topic) => ({
        topic,
        partitions: offsets
          .filter((o) => o.topic === topic)
          .map(({ partition, offset }) => ({ partition, offset })),
      }));
      emitter.emit(EVENTS.COMMIT_OFFSETS, { payload: { groupId: 'g', topics } });
      return Promise.resolve();
    },
    pause: jest.fn(),
    resume: jest.fn(),
    seek: jest.fn(),
    connect: jest.fn(() => Promise.resolve()),
    disconnect: jest.fn(() => Promise.resolve()),
  };
  const join = (assignment: Record<string, number[]>) =>
    emitter.emit(EVENTS.GROUP_JOIN, { payload: { groupId: 'g', memberAssignment: assignment } });
  return {
    consumer: consumer as unknown as Consumer,
    fake: consumer,
    kafka,
    commits,
    join,
    emit: (e: string, payload: object = {}) => emitter.emit(e, { payload }),
  };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 10));

describe('ConsumerSession', () => {
  const newSession = () => {
    const fake = fakeConsumer();
    const logger = new Logger('test');
    const warn = jest.spyOn(logger, 'warn').mockImplementation(() => undefined);
    const session = new ConsumerSession(
      kafkajsConsumerPort(fake.consumer),
      new InboxMetrics(new Registry()),
      logger,
    );
    return { ...fake, session, warn };
  };

  /** Runs `body` on jest's fake timers (setImmediate and setTimeout included). */
  const onFakeTimers = async (body: () => Promise<void>) => {
    jest.useFakeTimers();
    try {
      await body();
    } finally {
      jest.useRealTimers();
    }
  };

  it('coalesces the results of several partitions into one commit of offset + 1', async () => {
    const { session, commits } = newSession();
    const a = session.begin('t', 0, 10n);
    const b = session.begin('t', 1, 3n);
    session.finish(a, 10n);
    session.finish(b, 3n);
    await session.flush();
    expect(commits).toEqual([
      [
        { topic: 't', partition: 0, offset: '11' },
        { topic: 't', partition: 1, offset: '4' },
      ],
    ]);
  });

  it('makes the offsets of a chunk committable only when they finish together, in one commit', async () => {
    const { session, commits } = newSession();
    const tracker = session.begin('t', 0, 20n);
    session.begin('t', 0, 21n);
    session.begin('t', 0, 22n);
    await session.flush();
    expect(tracker.committable()).toBeUndefined();
    session.finishAll(tracker, [20n, 21n, 22n]);
    await session.flush();
    expect(commits).toEqual([[{ topic: 't', partition: 0, offset: '23' }]]);
  });

  it('releases the offsets of a rolled-back chunk for redelivery: a later record commits nothing past them', async () => {
    const { session, commits } = newSession();
    const tracker = session.begin('t', 0, 30n);
    session.begin('t', 0, 31n);
    tracker.abandon(30n);
    tracker.abandon(31n);
    expect(tracker.committable()).toBeUndefined();
    // Replayed record by record: 30 finishes, 31 is still running, so only 31 is committable.
    const replay = session.begin('t', 0, 30n);
    session.begin('t', 0, 31n);
    session.finish(replay, 30n);
    await session.flush();
    expect(commits).toEqual([[{ topic: 't', partition: 0, offset: '31' }]]);
  });

  it('commits nothing between a rebalance and the next join, and nothing for a partition the join revoked', async () => {
    const { session, commits, join, emit } = newSession();
    join({ t: [0, 1] });
    const kept = session.begin('t', 0, 5n);
    const revoked = session.begin('t', 1, 7n);
    emit(EVENTS.REBALANCING);
    session.finish(kept, 5n);
    session.finish(revoked, 7n);
    await settle();
    expect(commits).toEqual([]);
    join({ t: [0] });
    await session.flush();
    expect(commits).toEqual([[{ topic: 't', partition: 0, offset: '6' }]]);
    // A late result of a record of the revoked partition is never committed either.
    const again = session.begin('t', 1, 8n);
    expect(again).not.toBe(revoked);
    session.finish(revoked, 9n);
    await session.flush();
    expect(commits.flat().filter((c) => c.partition === 1)).toEqual([]);
    expect(commits).toEqual([[{ topic: 't', partition: 0, offset: '6' }]]);
    // The record begun after the join is still in flight: nothing of partition 1 is committable.
    expect(again.committable()).toBeUndefined();
  });

  it('counts a commit only when kafkajs reports it sent: one it resolved unsent (its consumer stopping) is tried again', () =>
    onFakeTimers(async () => {
      const { session, commits, kafka, warn } = newSession();
      kafka.running = false;
      const tracker = session.begin('t', 0, 4n);
      session.finish(tracker, 4n);
      await jest.advanceTimersByTimeAsync(0);
      expect(kafka.attempts).toBe(1);
      expect(tracker.committable()).toBe(5n); // not taken as committed
      expect(warn).toHaveBeenCalledWith(
        expect.stringMatching(/attempt 1\) stage=commit: not sent: the consumer is stopping/),
      );
      kafka.running = true;
      await jest.advanceTimersByTimeAsync(2000);
      expect(commits).toEqual([[{ topic: 't', partition: 0, offset: '5' }]]);
      expect(tracker.committable()).toBeUndefined();
    }));

  it('commits a result that came in during the last of five failed tries at once, and an idle partition by itself 10 s after', () =>
    onFakeTimers(async () => {
      const { session, commits, kafka, warn } = newSession();
      const first = session.begin('t', 0, 1n);
      const second = session.begin('t', 1, 1n);
      kafka.fail = (attempt) => {
        if (attempt !== 5) return attempt < 5 ? new Error('broker away') : undefined;
        session.finish(second, 1n); // arrives while the fifth try is in flight
        return new Error('broker away');
      };
      session.finish(first, 1n);
      await jest.advanceTimersByTimeAsync(3000); // four backoff delays of at most 200..1600 ms
      expect(kafka.attempts).toBe(6);
      expect(commits).toEqual([
        [
          { topic: 't', partition: 0, offset: '2' },
          { topic: 't', partition: 1, offset: '2' },
        ],
      ]);
      expect(warn).toHaveBeenCalledTimes(5);

      // Five failures with nothing arriving after them: tried again 10 s after the fifth (its
      // time depends on the backoff's jitter, so it is taken when it happens).
      const idle = session.begin('t', 0, 2n);
      let fifthAt = 0;
      kafka.fail = (attempt) => {
        if (attempt === 11) fifthAt = Date.now();
        return attempt <= 11 ? new Error('broker away') : undefined;
      };
      session.finish(idle, 2n);
      await jest.advanceTimersByTimeAsync(3000);
      expect(kafka.attempts).toBe(11);
      expect(commits).toHaveLength(1);
      await jest.advanceTimersByTimeAsync(fifthAt + 9_999 - Date.now());
      expect(kafka.attempts).toBe(11);
      await jest.advanceTimersByTimeAsync(1000);
      expect(kafka.attempts).toBe(12);
      expect(commits.at(-1)).toEqual([{ topic: 't', partition: 0, offset: '3' }]);
      session.close();
    }));

  it('retires every tracker and forgets its pauses when kafkajs stops the consumer: only what is finished after the next join commits', async () => {
    const { session, commits, join, emit } = newSession();
    join({ t: [0] });
    const before = session.begin('t', 0, 7n);
    session.pausePoisoned({
      topic: 't',
      partition: 0,
      offset: '7',
      consumer: 'c',
      eventId: 'e',
      reason: 'r',
      since: new Date(),
    });
    emit(EVENTS.STOP); // also on the way to a crash kafkajs restarts from
    expect(session.snapshot().paused).toEqual([]); // the pause died with kafkajs' consumer group
    session.finish(before, 7n); // a late result of the stopped consumer
    const whileStopped = session.begin('t', 0, 8n);
    session.finish(whileStopped, 8n);
    await session.flush();
    expect(commits).toEqual([]);
    // Started again: it re-reads from the group's committed offset.
    emit(EVENTS.CONNECT);
    join({ t: [0] });
    const again = session.begin('t', 0, 7n);
    session.finish(again, 7n);
    await session.flush();
    expect(commits).toEqual([[{ topic: 't', partition: 0, offset: '8' }]]);
  });

  it('pauses a poisoned partition at its offset and reports it until resumed', () => {
    const { session, consumer } = newSession();
    session.pausePoisoned({
      topic: 't',
      partition: 2,
      offset: '4',
      consumer: 'c',
      eventId: 'e',
      reason: 'r',
      since: new Date(),
    });
    expect(consumer.pause).toHaveBeenCalledWith([{ topic: 't', partitions: [2] }]);
    expect(consumer.seek).toHaveBeenCalledWith({ topic: 't', partition: 2, offset: '4' });
    expect(session.snapshot().paused).toHaveLength(1);
    expect(session.resume('t', 2)).toBe(true);
    expect(session.snapshot().paused).toHaveLength(0);
  });

  it('logs why the consumer crashed and whether kafkajs restarts it, and reports it crashed until it joins again', () => {
    const fake = fakeConsumer();
    const logger = new Logger('test');
    const errors = jest.spyOn(logger, 'error').mockImplementation(() => undefined);
    const session = new ConsumerSession(
      kafkajsConsumerPort(fake.consumer),
      new InboxMetrics(new Registry()),
      logger,
    );
    const cause = Object.assign(new Error('Connection error: connect ECONNREFUSED'), {
      name: 'KafkaJSNonRetriableError',
    });

    fake.emit(EVENTS.CRASH, { error: cause, restart: false, groupId: 'shipping' });

    expect(session.snapshot().status).toBe('crashed');
    expect(errors).toHaveBeenCalledWith(
      expect.stringMatching(
        /consumer crashed group=shipping stage=consume \(KafkaJSNonRetriableError: Connection error: connect ECONNREFUSED\); its client does not restart it/,
      ),
    );
    fake.emit(EVENTS.CRASH, { error: cause, restart: true, groupId: 'shipping' });
    expect(errors).toHaveBeenLastCalledWith(expect.stringMatching(/its client restarts it$/));
    fake.join({ t: [0] });
    expect(session.snapshot().status).toBe('running');
  });

  it('runs a consumer that kafkajs will not restart again, backing off until it works, and never one kafkajs restarts itself', async () => {
    jest.useFakeTimers();
    try {
      const fake = fakeConsumer();
      const logger = new Logger('test');
      jest.spyOn(logger, 'error').mockImplementation(() => undefined);
      jest.spyOn(logger, 'log').mockImplementation(() => undefined);
      const recover = jest
        .fn<Promise<void>, []>()
        .mockRejectedValueOnce(new Error('broker still away'))
        .mockResolvedValue(undefined);
      const noJitter = () => 1 - Number.EPSILON; // each delay is its full doubling
      new ConsumerSession(
        kafkajsConsumerPort(fake.consumer),
        new InboxMetrics(new Registry()),
        logger,
        recover,
        noJitter,
      );

      fake.emit(EVENTS.CRASH, { error: new Error('x'), restart: true });
      await jest.advanceTimersByTimeAsync(60_000);
      expect(recover).not.toHaveBeenCalled();

      fake.emit(EVENTS.CRASH, { error: new Error('x'), restart: false });
      await jest.advanceTimersByTimeAsync(999);
      expect(recover).not.toHaveBeenCalled();
      await jest.advanceTimersByTimeAsync(1);
      expect(recover).toHaveBeenCalledTimes(1); // fails: disconnect, wait 2 s
      expect(fake.fake.disconnect).toHaveBeenCalledTimes(1);
      await jest.advanceTimersByTimeAsync(2000);
      expect(recover).toHaveBeenCalledTimes(2);
      expect(fake.fake.connect).toHaveBeenCalledTimes(2);
      await jest.advanceTimersByTimeAsync(60_000);
      expect(recover).toHaveBeenCalledTimes(2);
    } finally {
      jest.useRealTimers();
    }
  });
});
