import { NestFactory } from '@nestjs/core';
import { RelayModule, type RelayCompression } from '@nest-outbox/relay';
import { countingSockets } from '@test/support';
import type { BenchOutbox } from './bench-outbox';
import { load1, loadNote } from './proc-stats';

/** One codec at one payload size: the relay in this process, draining into the broker. */
export interface CompressionFigures {
  readonly events_per_s: number;
  readonly wire_bytes_per_event: number;
  readonly cpu_us_per_event: number;
}

/** codec -> payload bytes -> figures (the last-line JSON's `compression`). */
export type CompressionTable = Record<string, Record<string, CompressionFigures>>;

/** What the compression rows run with. */
export interface CompressionSetup {
  readonly outbox: BenchOutbox;
  readonly databaseUrl: string;
  readonly brokers: string[];
  readonly topic: string;
  readonly batch: number;
  /** Events a row, `maxBytes` of payload at most. */
  readonly events: number;
  readonly maxBytes: number;
}

const COMPRESSION_PAYLOADS: readonly number[] = [1024, 16_384];

/** The rows of each payload size: every codec, `none` first. */
const ROWS: readonly RelayCompression[] = ['none', 'gzip', 'snappy'];

/**
 * One row: a relay (RelayModule, in this process) with `compression`, on a socket factory that
 * counts the bytes it writes; an untimed warm-up drain of a fifth of the events, then the timed
 * one. The timed events are inserted in one transaction, so the relay sees them all at once.
 * Node CPU is this process's (the relay and its kafkajs client; the bench only polls).
 */
async function compressionRow(
  setup: CompressionSetup,
  compression: RelayCompression,
  payloadBytes: number,
): Promise<CompressionFigures & { load: string }> {
  const { outbox } = setup;
  const events = Math.min(setup.events, Math.floor(setup.maxBytes / payloadBytes));
  const shape = { events, aggregates: 1000, payloadBytes, json: true };
  const before = load1();
  await outbox.reset();
  const wire = countingSockets();
  const app = await NestFactory.createApplicationContext(
    RelayModule.forRoot({
      connection: { connectionString: setup.databaseUrl, max: 4 },
      kafka: {
        clientId: `bench-${compression}`,
        brokers: setup.brokers,
        socketFactory: wire.factory,
      },
      routing: { defaultTopic: setup.topic },
      retention: false,
      schema: setup.outbox.schema,
      tuning: {
        compression,
        batchSize: setup.batch,
        polling: { minMs: 10, maxMs: 50 },
      },
    }),
    { logger: ['error'] },
  );
  await app.init();
  try {
    await outbox.fill({ ...shape, events: Math.ceil(events / 5), aggregatePrefix: 'w' }, false);
    await outbox.drainedAt();
    await outbox.fill(shape, false);
    const [startedAt, cpu, bytes] = [Date.now(), process.cpuUsage(), wire.bytesWritten()];
    const endedAt = await outbox.drainedAt();
    const used = process.cpuUsage(cpu);
    return {
      events_per_s: Math.round(events / ((endedAt - startedAt) / 1000)),
      wire_bytes_per_event: Math.round((wire.bytesWritten() - bytes) / events),
      cpu_us_per_event: Number(((used.user + used.system) / events).toFixed(1)),
      load: loadNote(before),
    };
  } finally {
    await app.close();
  }
}

/** Every codec at every payload size; prints each row as it completes. */
export async function compressionRows(
  setup: CompressionSetup,
  log: (line: string) => void,
): Promise<CompressionTable> {
  log(
    'compression (relay in this process; JSON orders): codec payload | events/s | wire bytes/event | Node CPU us/event | vs none',
  );
  const table: CompressionTable = {};
  for (const payload of COMPRESSION_PAYLOADS)
    for (const codec of ROWS) {
      const { load, ...row } = await compressionRow(setup, codec, payload);
      (table[codec] ??= {})[String(payload)] = row;
      const none = table.none?.[String(payload)];
      const vs = none
        ? `x${(row.events_per_s / none.events_per_s).toFixed(2)} events/s, x${(row.wire_bytes_per_event / none.wire_bytes_per_event).toFixed(2)} bytes, x${(row.cpu_us_per_event / none.cpu_us_per_event).toFixed(2)} CPU`
        : '';
      log(
        `  ${codec.padEnd(8)} ${String(payload).padStart(6)} B | ${String(row.events_per_s).padStart(6)} | ${String(row.wire_bytes_per_event).padStart(6)} | ${String(row.cpu_us_per_event).padStart(6)} | ${vs} | ${load}`,
      );
    }
  return table;
}
