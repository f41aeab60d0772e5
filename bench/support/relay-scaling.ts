import type { Producer } from 'kafkajs';
import type { BenchOutbox } from './bench-outbox';
import { load1, loadNote } from './proc-stats';
import type { FillShape } from './relay-fill';
import { drainWithProcesses, type RelayProcesses } from './relay-process-drain';
import { drainRawKafka } from './relay-raw-drains';

/** One scaling row: the relay (one process) and the raw Kafka loop on the same events. */
export interface ScalingRow {
  readonly payload_bytes: number;
  readonly aggregates: number;
  readonly events: number;
  readonly kafka_events_per_s: number;
  readonly raw_kafka_events_per_s: number;
  readonly kafka_vs_raw_kafka: number;
  readonly relay_cpu_us_per_event: number;
  readonly raw_kafka_cpu_us_per_event: number;
  readonly load: string;
}

/** What the scaling rows run with. */
export interface ScalingSetup {
  readonly outbox: BenchOutbox;
  readonly relays: RelayProcesses;
  readonly databaseUrl: string;
  readonly producer: Producer;
  readonly topic: string;
  readonly batch: number;
  /** Events a row; rows of large payloads take fewer, `maxBytes` of payload at most. */
  readonly events: number;
  readonly maxBytes: number;
}

/** The sweeps from 100 B over 1,000 aggregates (the first row, the base of the growth): payload size, then aggregates. */
export const SCALING_SHAPES: readonly { payloadBytes: number; aggregates: number }[] = [
  { payloadBytes: 100, aggregates: 1000 },
  { payloadBytes: 1000, aggregates: 1000 },
  { payloadBytes: 10_000, aggregates: 1000 },
  { payloadBytes: 100, aggregates: 10 },
  { payloadBytes: 100, aggregates: 100_000 },
];

async function scalingRow(
  setup: ScalingSetup,
  shape: { payloadBytes: number; aggregates: number },
): Promise<ScalingRow> {
  const { outbox } = setup;
  const events = Math.min(setup.events, Math.floor(setup.maxBytes / shape.payloadBytes));
  const fill: FillShape = { ...shape, events };
  const before = load1();
  await outbox.reset();
  await outbox.fill(fill, false);
  const raw = await drainRawKafka(
    { table: outbox.table, batch: setup.batch },
    setup.databaseUrl,
    setup.producer,
    setup.topic,
    events,
    () => outbox.vacuum(),
  );
  const relay = await drainWithProcesses(outbox, setup.relays, fill);
  return {
    payload_bytes: shape.payloadBytes,
    aggregates: shape.aggregates,
    events,
    kafka_events_per_s: Math.round(relay.rate),
    raw_kafka_events_per_s: Math.round(raw.rate),
    kafka_vs_raw_kafka: Number((relay.rate / raw.rate).toFixed(3)),
    relay_cpu_us_per_event: Number(relay.cpuUsPerEvent.toFixed(1)),
    raw_kafka_cpu_us_per_event: Number(raw.cpuUsPerEvent.toFixed(1)),
    load: loadNote(before),
  };
}

/** Runs every scaling shape; prints each row as it completes. */
export async function scalingRows(
  setup: ScalingSetup,
  log: (line: string) => void,
): Promise<ScalingRow[]> {
  log(
    'scaling: payload  aggregates  events | relay ev/s (MB/s, Node CPU us/ev) | raw Kafka ev/s (Node CPU us/ev) | relay/raw | growth vs the first row',
  );
  const rows: ScalingRow[] = [];
  for (const shape of SCALING_SHAPES) {
    const row = await scalingRow(setup, shape);
    rows.push(row);
    const base = rows[0]!;
    const usPerEvent = (r: ScalingRow) => 1e6 / r.kafka_events_per_s;
    const mbPerS = (row.kafka_events_per_s * row.payload_bytes) / 1e6;
    log(
      `  ${String(row.payload_bytes).padStart(6)} B ${String(row.aggregates).padStart(7)} ${String(row.events).padStart(7)} | ` +
        `${String(row.kafka_events_per_s).padStart(6)} (${mbPerS.toFixed(1)} MB/s, ${row.relay_cpu_us_per_event} us) | ` +
        `${String(row.raw_kafka_events_per_s).padStart(6)} (${row.raw_kafka_cpu_us_per_event} us) | ` +
        `${row.kafka_vs_raw_kafka.toFixed(2)} | wall per event x${(usPerEvent(row) / usPerEvent(base)).toFixed(2)}, ` +
        `relay CPU per event x${(row.relay_cpu_us_per_event / base.relay_cpu_us_per_event).toFixed(2)} | ${row.load}`,
    );
  }
  return rows;
}
