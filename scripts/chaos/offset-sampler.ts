import { Kafka, logLevel, type Admin } from 'kafkajs';
import type { Pool } from 'pg';
import { CHAOS_NAMES } from './chaos-system';
import type { TopicReader } from './topic-reader';

/**
 * I5 while the run goes: every second, the shipping group's committed offsets first, then the
 * inbox: every record below a committed offset must have its effect (inbox row) committed by
 * then. Effects only grow, so one missing after the offsets were read was committed late: a
 * violation. Records the reader has not read yet are checked by a later sample.
 */
export class OffsetSampler {
  readonly violations: string[] = [];
  samples = 0;
  checked = 0;
  private admin: Admin | undefined;
  private readonly verified = new Map<number, number>();
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(
    private readonly brokers: string[],
    private readonly db: Pool,
    private readonly reader: TopicReader,
  ) {}

  start(): void {
    const tick = () => {
      if (this.stopped) return;
      this.running = this.sample()
        .catch(() => this.dropAdmin())
        .finally(() => {
          if (!this.stopped) this.timer = setTimeout(tick, 1000);
        });
    };
    tick();
  }

  /** One sample now (the check at quiescence calls it too). */
  async sample(): Promise<void> {
    const n = CHAOS_NAMES;
    this.admin ??= await this.connect();
    const [group] = await this.admin.fetchOffsets({
      groupId: n.consumerGroup,
      topics: [n.orderTopic],
    });
    const wanted: { partition: number; offset: number; eventId: string; committed: number }[] = [];
    const records = this.reader.partitions(n.orderTopic);
    for (const { partition, offset } of group?.partitions ?? []) {
      const committed = Number(offset);
      if (committed < 0) continue;
      const from = this.verified.get(partition) ?? 0;
      const list = records.get(partition) ?? [];
      for (const r of list) {
        if (r.offset >= from && r.offset < committed)
          wanted.push({ partition, offset: r.offset, eventId: r.eventId, committed });
      }
      const readUpTo = (list[list.length - 1]?.offset ?? -1) + 1;
      this.verified.set(partition, Math.max(from, Math.min(committed, readUpTo)));
    }
    this.samples += 1;
    if (wanted.length === 0) return;
    const { rows } = await this.db.query<{ event_id: string }>(
      `SELECT event_id::text FROM ${n.shippingSchema}.inbox WHERE consumer = $1 AND event_id = ANY($2::uuid[])`,
      [n.projection, wanted.map((w) => w.eventId)],
    );
    const applied = new Set(rows.map((r) => r.event_id));
    this.checked += wanted.length;
    for (const w of wanted) {
      if (!applied.has(w.eventId))
        this.violations.push(
          `I5: partition ${w.partition} committed offset ${w.committed} while the effect of offset ${w.offset} (event ${w.eventId}) was not committed`,
        );
    }
  }

  private async connect(): Promise<Admin> {
    const admin = new Kafka({
      clientId: 'chaos-offset-sampler',
      brokers: this.brokers,
      logLevel: logLevel.NOTHING,
      connectionTimeout: 1000,
      retry: { retries: 2 },
    }).admin();
    await admin.connect();
    return admin;
  }

  private dropAdmin(): void {
    void this.admin?.disconnect().catch(() => undefined);
    this.admin = undefined;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
    this.dropAdmin();
  }
}
