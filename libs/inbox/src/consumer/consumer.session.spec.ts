import { Logger } from '@nestjs/common';
import { EventEmitter } from 'node:events';
import type { Consumer } from 'kafkajs';
import { Registry } from 'prom-client';
import { InboxMetrics } from '../metrics/inbox.metrics';
import { InboxBatch } from '../transport/inbox-batch.context';
import { ChunkOffsets } from './chunk-offsets';
import { ConsumerSession } from './consumer.session';

const EVENTS = {
  GROUP_JOIN: 'consumer.group_join',
  REBALANCING: 'consumer.rebalancing',
  CRASH: 'consumer.crash',
  STOP: 'consumer.stop',
  CONNECT: 'consumer.connect',
  END_BATCH_PROCESS: 'consumer.end_batch_process',
};

/** A recording fake of the kafkajs consumer surface the session uses. */
function fakeConsumer() {
  const emitter = new EventEmitter();
  const commits: { topic: string; partition: number; offset: string }[][] = [];
  const consumer = {
    events: EVENTS,
    on: (event: string, fn: (e: unknown) => void) => {
      emitter.on(event, fn);
      return () => emitter.off(event, fn);
    },
    commitOffsets: (offsets: { topic: string; partition: number; offset: string }[]) => {
      commits.push(offsets);
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
    commits,
    join,
    emit: (e: string, payload: object = {}) => emitter.emit(e, { payload }),
  };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 10));

describe('ConsumerSession', () => {
  const newSession = () => {
    const fake = fakeConsumer();
    const session = new ConsumerSession(
      fake.consumer,
      new InboxMetrics(new Registry()),
      new Logger('test'),
    );
    return { ...fake, session };
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

  it('makes the offsets of a chunk committable only when its transaction commits, in one commit', async () => {
    const { session, commits } = newSession();
    const batch = new InboxBatch();
    const offsets = ChunkOffsets.of(batch, session);
    expect(ChunkOffsets.of(batch, session)).toBe(offsets);
    const tracker = offsets.begin('t', 0, 20n);
    offsets.begin('t', 0, 21n);
    offsets.begin('t', 0, 22n);
    await session.flush();
    expect(tracker.committable()).toBeUndefined();
    batch.settle(true);
    await session.flush();
    expect(commits).toEqual([[{ topic: 't', partition: 0, offset: '23' }]]);
  });

  it('releases the offsets of a rolled-back chunk for redelivery: a later record commits nothing past them', async () => {
    const { session, commits } = newSession();
    const rolledBack = new InboxBatch();
    const offsets = ChunkOffsets.of(rolledBack, session);
    const tracker = offsets.begin('t', 0, 30n);
    offsets.begin('t', 0, 31n);
    rolledBack.settle(false);
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
    const session = new ConsumerSession(fake.consumer, new InboxMetrics(new Registry()), logger);
    const cause = Object.assign(new Error('Connection error: connect ECONNREFUSED'), {
      name: 'KafkaJSNonRetriableError',
    });

    fake.emit(EVENTS.CRASH, { error: cause, restart: false, groupId: 'shipping' });

    expect(session.snapshot().status).toBe('crashed');
    expect(errors).toHaveBeenCalledWith(
      expect.stringMatching(
        /consumer crashed group=shipping stage=consume \(KafkaJSNonRetriableError: Connection error: connect ECONNREFUSED\); kafkajs does not restart it/,
      ),
    );
    fake.emit(EVENTS.CRASH, { error: cause, restart: true, groupId: 'shipping' });
    expect(errors).toHaveBeenLastCalledWith(expect.stringMatching(/kafkajs restarts it$/));
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
        fake.consumer,
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
