import { Kafka, logLevel, type Admin } from 'kafkajs';
import type { Pool } from 'pg';
import type { TopicReader } from './topic-reader';

/** Whose offsets against which effects: `appliedSql` takes the event ids as `$1` (uuid[]). */
export interface SampledGroup {
  readonly groupId: string;
  readonly topic: string;
  readonly appliedSql: string;
}

/**
 * I5 while a run goes: every second, a group's committed offsets first, then its effects: every record below a committed offset must have its effect (inbox row) committed by
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
    private readonly group: SampledGroup,
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
    const { groupId, topic, appliedSql } = this.group;
    this.admin ??= await this.connect();
    const [group] = await this.admin.fetchOffsets({ groupId, topics: [topic] });
    const wanted: { partition: number; offset: number; eventId: string; committed: number }[] = [];
    const records = this.reader.partitions(topic);
    const next = new Map<number, number>();
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
      next.set(partition, Math.max(from, Math.min(committed, readUpTo)));
    }
    this.samples += 1;
    if (wanted.length > 0) await this.judge(wanted, appliedSql);
    // Only once judged: a sample whose query failed leaves its offsets to the next one.
    for (const [p, upTo] of next) this.verified.set(p, upTo);
  }

  private async judge(
    wanted: readonly { partition: number; offset: number; eventId: string; committed: number }[],
    appliedSql: string,
  ): Promise<void> {
    const { rows } = await this.db.query<{ event_id: string }>(appliedSql, [
      wanted.map((w) => w.eventId),
    ]);
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
