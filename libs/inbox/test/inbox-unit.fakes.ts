import { Logger } from '@nestjs/common';
import type { TransactionHost } from '@nestjs-cls/transactional';
import { KafkaContext } from '@nestjs/microservices';
import type { Consumer, KafkaMessage } from 'kafkajs';
import { EventEmitter } from 'node:events';
import { Registry } from 'prom-client';
import {
  recordOf,
  type ChunkRecord,
  type InboxKafkaContext,
  type InboxRoute,
} from '../src/chunk/chunk';
import { ConsumerSession } from '../src/consumer/consumer.session';
import { kafkajsConsumerPort } from '../src/consumer/kafkajs-consumer.port';
import { InboxMetrics } from '../src/metrics/inbox.metrics';
import { resolveInboxOptions } from '../src/options/inbox-options.resolver';
import type { ResolvedHandlerPolicy } from '../src/options/inbox-options.resolver';
import { InboxPipeline } from '../src/pipeline/inbox.pipeline';
import { DeadLetterSink } from '../src/settle/dead-letter.sink';
import { HandlerFailures } from '../src/settle/handler-failures';
import type {
  InboxStore,
  PendingRegistration,
  RejectionRow,
  VersionCheck,
} from '../src/store/inbox.store';
import { eventRecord } from './inbox-test.records';

/**
 * Recording fakes for the unit specs of the inbox's consumer path. Each step a fake sees is
 * pushed to one shared `trace`, so a spec can assert the order of stages across fakes.
 */
export type Trace = string[];

/** Runs `fn` as the transaction; `commit` when it returns, `rollback` when it throws. */
export function fakeTransactionHost(trace: Trace): TransactionHost {
  const withTransaction = async (fn: () => Promise<unknown>) => {
    trace.push('begin');
    try {
      const result = await fn();
      trace.push('commit');
      return result;
    } catch (error) {
      trace.push('rollback');
      throw error;
    }
  };
  return { withTransaction } as unknown as TransactionHost;
}

/** The inbox store's statements, scripted: `known` ids are not new, `fail` makes a statement throw. */
export class FakeInboxStore {
  /** Event ids an earlier transaction registered. */
  readonly known = new Set<string>();
  /** The version check's answer per event id (`next` when absent). */
  readonly versions = new Map<string, VersionCheck>();
  readonly rejections: RejectionRow[] = [];
  readonly registrations: { consumer: string; pending: readonly PendingRegistration[] }[] = [];
  readonly fail: { registerMany?: Error; recordRejection?: Error } = {};

  constructor(private readonly trace: Trace) {}

  registerMany(consumer: string, _at: unknown, pending: readonly PendingRegistration[]) {
    this.trace.push(`register ${consumer} ${pending.map((p) => p.offset).join(',')}`);
    this.registrations.push({ consumer, pending });
    if (this.fail.registerMany) return Promise.reject(this.fail.registerMany);
    const ids = pending.map((p) => p.event.eventId).filter((id) => !this.known.has(id));
    return Promise.resolve(new Set(ids));
  }

  checkVersion(_consumer: string, event: { eventId: string; aggregateVersion: number }) {
    this.trace.push(`version ${event.aggregateVersion}`);
    return Promise.resolve(this.versions.get(event.eventId) ?? { kind: 'next' });
  }

  recordRejection(row: RejectionRow) {
    this.trace.push(`reject ${row.offset}`);
    if (this.fail.recordRejection) return Promise.reject(this.fail.recordRejection);
    this.rejections.push(row);
    return Promise.resolve();
  }

  asStore(): InboxStore {
    return this as unknown as InboxStore;
  }
}

/** A handler policy with no delays between attempts (override what a spec needs). */
export function policyOf(overrides: Partial<ResolvedHandlerPolicy> = {}): ResolvedHandlerPolicy {
  return {
    eventTypes: undefined,
    schemaVersions: undefined,
    maxMessageBytes: 1_048_576,
    maxAttempts: 3,
    baseDelayMs: 0,
    maxDelayMs: 0,
    onExhausted: 'dead-letter',
    deadLetterTopic: undefined,
    versionCheck: 'off',
    ...overrides,
  };
}

/** What a fake route's handler was called with: the offsets and event ids it was given. */
export interface RouteCall {
  readonly consumer: string;
  readonly offsets: string[];
  readonly eventIds: string[];
  readonly payload: unknown;
}

/** A route whose handler records its calls and throws what `fail(call)` returns, if anything. */
export function fakeRoute(
  trace: Trace,
  consumer: string,
  options: { batch?: boolean; policy?: Partial<ResolvedHandlerPolicy> } = {},
) {
  const handler = {
    calls: [] as RouteCall[],
    fail: undefined as ((call: RouteCall) => Error | undefined) | undefined,
    route: undefined as unknown as InboxRoute,
  };
  handler.route = {
    consumer,
    policy: policyOf(options.policy),
    batch: options.batch === true,
    invoke: (payload, inboxContext) => {
      const context = inboxContext as InboxKafkaContext;
      const call = {
        consumer,
        offsets: options.batch
          ? context.events.map((e) => offsetOf(e.eventId))
          : [context.getMessage().offset],
        eventIds: context.events.map((e) => e.eventId),
        payload,
      };
      trace.push(`invoke ${consumer} ${call.offsets.join(',')}`);
      handler.calls.push(call);
      const error = handler.fail?.(call);
      return error ? Promise.reject(error) : Promise.resolve(undefined);
    },
  };
  return handler;
}

/** Event ids chosen so the offset they were first written at can be read back from them. */
export function eventIdAt(offset: number): string {
  return `0190a000-0000-7000-8000-${offset.toString(16).padStart(12, '0')}`;
}

function offsetOf(eventId: string): string {
  return String(parseInt(eventId.slice(-12), 16));
}

/** A Kafka message in the event contract at `offset` (event id `eventIdAt(eventAt ?? offset)`). */
export function kafkaMessage(
  offset: number,
  fields: { eventAt?: number; aggregateVersion?: number; bad?: boolean } = {},
): KafkaMessage {
  const { key, value, headers } = eventRecord({
    eventId: eventIdAt(fields.eventAt ?? offset),
    aggregateId: 'order-1',
    aggregateVersion: fields.aggregateVersion ?? offset + 1,
    payload: { at: offset },
  });
  const valid = headers as Record<string, string>;
  return {
    key: Buffer.from(key as string),
    value: Buffer.from(value as string),
    // A bad record lacks its event id: the decode stage refuses it.
    headers: fields.bad ? { ...valid, event_id: '' } : valid,
    offset: String(offset),
    timestamp: '0',
    attributes: 0,
  };
}

/** A record of partition `t`/0 as the transports hand it to the pipeline. */
export function chunkRecord(
  consumer: Consumer,
  offset: number,
  fields: Parameters<typeof kafkaMessage>[1] = {},
): ChunkRecord {
  const message = kafkaMessage(offset, fields);
  const parsed = { ...message, value: message.value!.toString(), topic: 't', partition: 0 };
  const heartbeat = () => Promise.resolve();
  const message_ = parsed as unknown as KafkaMessage; // as Nest's KafkaParser leaves it
  const context = new KafkaContext([message_, 0, 't', consumer, heartbeat, undefined as never]);
  return recordOf(context, () => JSON.parse(parsed.value) as unknown);
}

const CONSUMER_EVENTS = {
  GROUP_JOIN: 'consumer.group_join',
  REBALANCING: 'consumer.rebalancing',
  CRASH: 'consumer.crash',
  STOP: 'consumer.stop',
  CONNECT: 'consumer.connect',
  HEARTBEAT: 'consumer.heartbeat',
  START_BATCH_PROCESS: 'consumer.start_batch_process',
  END_BATCH_PROCESS: 'consumer.end_batch_process',
  COMMIT_OFFSETS: 'consumer.commit_offsets',
};

type CommittedOffset = { topic: string; partition: number; offset: string };

/** The kafkajs consumer surface a `ConsumerSession` uses; every commit is sent and confirmed. */
export function fakeKafkaConsumer() {
  const emitter = new EventEmitter();
  const commits: CommittedOffset[][] = [];
  const consumer = {
    events: CONSUMER_EVENTS,
    on: (event: string, fn: (e: unknown) => void) => {
      emitter.on(event, fn);
      return () => emitter.off(event, fn);
    },
    commitOffsets: (offsets: CommittedOffset[]) => {
      commits.push(offsets);
      const topics = offsets.map(({ topic, partition, offset }) => ({
        topic,
        partitions: [{ partition, offset }],
      }));
      emitter.emit(CONSUMER_EVENTS.COMMIT_OFFSETS, { payload: { groupId: 'g', topics } });
      return Promise.resolve();
    },
    pause: () => undefined,
    resume: () => undefined,
    seek: () => undefined,
  } as unknown as Consumer;
  const join = (memberAssignment: Record<string, number[]>) =>
    emitter.emit(CONSUMER_EVENTS.GROUP_JOIN, { payload: { groupId: 'g', memberAssignment } });
  const emit = (event: keyof typeof CONSUMER_EVENTS, payload: object) =>
    emitter.emit(CONSUMER_EVENTS[event], { payload });
  return { consumer, commits, join, emit };
}

/** Reads a counter of `metrics`: the sum of its series matching `labels`. */
export async function counted(
  metrics: InboxMetrics,
  name: string,
  labels: Record<string, string> = {},
): Promise<number> {
  const metric = metrics.registry!.getSingleMetric(`${metrics.prefix}${name}`);
  if (!metric) throw new Error(`no metric ${name}`);
  const { values } = await metric.get();
  return values
    .filter((v) => Object.entries(labels).every(([k, want]) => v.labels[k] === want))
    .reduce((sum, v) => sum + v.value, 0);
}

/**
 * A real `InboxPipeline` over the fakes: a real `ConsumerSession` on a fake kafkajs consumer,
 * real settlers (dead-letter sink, handler failures) on the fake store, real metrics on a
 * registry of its own. Log lines are silenced and traced as `log <message>`; outcomes counted
 * (`settle <consumer>`) and offsets made committable (`finish` / `finishAll`) are traced too.
 */
export function pipelineOverFakes(options: { isPermanentError?: (e: unknown) => boolean } = {}) {
  const trace: Trace = [];
  const store = new FakeInboxStore(trace);
  const metrics = new InboxMetrics(new Registry());
  const kafka = fakeKafkaConsumer();
  const logger = new Logger('test');
  const session = new ConsumerSession(kafkajsConsumerPort(kafka.consumer), metrics, logger);
  const resolved = resolveInboxOptions({
    kafka: { brokers: ['localhost:9092'] },
    tuning: { isPermanentError: options.isPermanentError },
  });
  const sink = new DeadLetterSink(store.asStore(), metrics);
  const failures = new HandlerFailures(metrics, sink, resolved);
  const pipeline = new InboxPipeline(
    fakeTransactionHost(trace),
    store.asStore(),
    metrics,
    failures,
    sink,
  );
  const finish = session.finish.bind(session);
  jest.spyOn(session, 'finish').mockImplementation((tracker, offset) => {
    trace.push(`finish ${offset}`);
    finish(tracker, offset);
  });
  const finishAll = session.finishAll.bind(session);
  jest.spyOn(session, 'finishAll').mockImplementation((tracker, offsets) => {
    trace.push(`finishAll ${offsets.join(',')}`);
    finishAll(tracker, offsets);
  });
  const settledMany = metrics.settledMany.bind(metrics);
  jest.spyOn(metrics, 'settledMany').mockImplementation((tally, labels) => {
    trace.push(`settle ${labels.consumer}`);
    settledMany(tally, labels);
  });
  const logs: string[] = [];
  for (const level of ['log', 'warn', 'error'] as const) {
    jest.spyOn(Logger.prototype, level).mockImplementation((...message: unknown[]) => {
      const line = String(message[0]);
      logs.push(line);
      trace.push(`log ${line.split(' ').slice(0, 2).join(' ')}`);
    });
  }
  return { trace, store, metrics, session, pipeline, logs, ...kafka };
}
