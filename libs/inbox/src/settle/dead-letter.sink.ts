import { createHash } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { EVENT_HEADERS } from '@nest-outbox/core';
import { errorLabel, isUuid, logLine } from '@nest-outbox/core/internal';
import { KafkaContext } from '@nestjs/microservices';
import { heartbeatOf, type InboxDelivery, type Rejection } from '../chunk/chunk';
import { valueBytes, type RejectionCode } from '../envelope/envelope.decoder';
import { InboxMetrics } from '../metrics/inbox.metrics';
import { InboxStore, type RejectionEvidence, type RejectionRow } from '../store/inbox.store';

/** How a record the inbox gave up on was recorded. @internal */
export type RecordedAs = 'recorded' | 'minimal' | 'unrecorded';
type Written = { as: RecordedAs; error?: unknown };

/** Delays before the 2nd and 3rd try of a rejected row against an infrastructure error. */
const WRITE_DELAYS_MS = [200, 1000];
const MAX_KEY_BYTES = 1024;
const MAX_HEADER_BYTES = 64 * 1024;

/**
 * Records a record the inbox gives up on (refused, or dead-lettered after its attempts):
 * dead-letter topic (if configured), then the rejected table, both idempotent per record. Always
 * ends (a refused row becomes a minimal row, then a metric and a log line); only infrastructure
 * errors are thrown (the record is then redelivered). @internal
 */
@Injectable()
export class DeadLetterSink {
  private readonly logger = new Logger('InboxModule');

  constructor(
    @Inject(InboxStore) private readonly store: InboxStore,
    @Inject(InboxMetrics) private readonly metrics: InboxMetrics,
  ) {}

  /** A refused record on its own: its offset becomes committable once recorded. */
  async reject(delivery: InboxDelivery, rejection: Rejection): Promise<void> {
    const { session, position, offset } = delivery;
    const tracker = session.begin(position.topic, position.partition, offset);
    try {
      await this.record(delivery, rejection.code, rejection.reason, 0);
    } catch (error) {
      tracker.abandon(offset);
      throw error;
    }
    this.logRejected(delivery, rejection);
    session.finish(tracker, offset);
  }

  /**
   * A refused record of a chunk: its row in the chunk's transaction (no fallback there: a failed
   * statement aborts it, and the record-by-record replay has them); returns what counts and logs
   * it, to run once the chunk commits.
   */
  async rejectInChunk(delivery: InboxDelivery, rejection: Rejection): Promise<() => void> {
    await this.store.recordRejection(await this.row(delivery, rejection.code, rejection.reason, 0));
    return () => {
      this.report(delivery, rejection.code, { as: 'recorded' });
      this.logRejected(delivery, rejection);
    };
  }

  /**
   * A record on its own: its row whatever its content (the full row, else a minimal one, else
   * none: `unrecorded`); infrastructure errors are retried twice, then thrown.
   */
  async record(
    delivery: InboxDelivery,
    code: RejectionCode,
    reason: string,
    attempts: number,
  ): Promise<RecordedAs> {
    const row = await this.row(delivery, code, reason, attempts);
    let written: Written | undefined;
    for (let attempt = 0; !written; attempt++) {
      try {
        await this.store.recordRejection(row);
        written = { as: 'recorded' };
      } catch (error) {
        if (refusedForContent(error)) written = await this.writeMinimal(row, error);
        else if (attempt >= WRITE_DELAYS_MS.length) throw error;
        else {
          await new Promise((resolve) => setTimeout(resolve, WRITE_DELAYS_MS[attempt]));
          await heartbeatOf(delivery);
        }
      }
    }
    this.report(delivery, code, written);
    return written.as;
  }

  private async writeMinimal(row: RejectionRow, refusal: unknown): Promise<Written> {
    const reason = `${row.reason.slice(0, 1500)}; full row refused: ${errorLabel(refusal)}`;
    try {
      await this.store.recordMinimalRejection(row, reason);
      return { as: 'minimal', error: refusal };
    } catch (error) {
      if (refusedForContent(error)) return { as: 'unrecorded', error };
      throw error;
    }
  }

  /** The rejected row, after the dead-letter send (whose failure the row says). */
  private async row(
    delivery: InboxDelivery,
    code: RejectionCode,
    reason: string,
    attempts: number,
  ): Promise<RejectionRow> {
    // Under RabbitMQ the queue's dead-letter exchange takes the message (nacked, not requeued).
    const topic =
      delivery.context instanceof KafkaContext ? delivery.policy.deadLetterTopic : undefined;
    const sendFailure = topic ? await this.publish(delivery, topic, code, reason) : undefined;
    const { headers, position } = delivery;
    return {
      ...position,
      consumer: delivery.consumer,
      reasonCode: code,
      reason: sendFailure ? `${reason}; dead-letter send failed: ${sendFailure}` : reason,
      eventId: headers.event_id,
      eventType: headers.event_type,
      aggregateId: headers.aggregate_id,
      attempts,
      headers,
      deadLetterTopic: sendFailure ? undefined : topic,
      evidence: rejectionEvidence(delivery),
    };
  }

  private report({ consumer, position }: InboxDelivery, code: RejectionCode, written: Written) {
    const labels = { consumer, topic: position.topic };
    const where = (stage: string) => ({ consumer, ...position, code, stage, error: written.error });
    if (written.as === 'unrecorded') {
      this.metrics.unrecorded.inc({ ...labels, reason: code });
      this.logger.error(logLine('record settled without a rejected row', where('last-resort')));
    } else if (code === 'handler_failed') this.metrics.deadLettered.inc(labels);
    else this.metrics.rejected.inc({ ...labels, reason: code });
    if (written.as === 'minimal')
      this.logger.warn(logLine('rejected row stored without its headers', where('record')));
  }

  private logRejected({ session, position, headers, consumer }: InboxDelivery, r: Rejection) {
    // Its headers are untrusted: only a valid event id is logged (the row keeps the rest).
    const eventId = headers[EVENT_HEADERS.eventId];
    this.logger.warn(
      logLine('rejected record', {
        consumer,
        ...position,
        event_id: eventId && isUuid(eventId) ? eventId : 'invalid',
        stage: 'decode',
        code: r.code,
        reason: r.reason,
      }),
    );
    if (r.code === 'undecodable_batch')
      session.noteUndecodable({ ...position, reason: r.reason, since: new Date() });
  }

  /** Sends the record to the dead-letter topic; the class of the error when it could not. */
  private async publish(
    delivery: InboxDelivery,
    topic: string,
    code: string,
    reason: string,
  ): Promise<string | undefined> {
    const { message, position } = delivery;
    try {
      const key =
        Buffer.isBuffer(message.key) || typeof message.key === 'string' ? message.key : null;
      const headers = {
        ...delivery.headers,
        'x-inbox-consumer': delivery.consumer,
        'x-inbox-reason-code': code,
        'x-inbox-reason': reason.slice(0, 1000),
        'x-inbox-source': `${position.topic}/${position.partition}/${position.offset}`,
      };
      const value = valueBytes(message.value) ?? null;
      await (delivery.context as KafkaContext)
        .getProducer()
        .send({ topic, messages: [{ key, value, headers }] });
      return undefined;
    } catch (error) {
      return errorLabel(error);
    }
  }
}

/**
 * True when PostgreSQL refused the row for its content (SQLSTATE classes 22, 23, 42, 54) or our
 * code choked on it; anything else is infrastructure. @internal
 */
export function refusedForContent(error: unknown): boolean {
  if (error instanceof RangeError || error instanceof TypeError || error instanceof SyntaxError)
    return true;
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^(22|23|42|54)[0-9A-Z]{3}$/.test(code);
}

/**
 * What a rejected row keeps of a record's bytes: key (1 KiB max), headers as decoded (JSON,
 * 64 KiB max), and the value's length and SHA-256, never the value. Never throws.
 */
function rejectionEvidence({ message, headers }: InboxDelivery): RejectionEvidence {
  try {
    const key = typeof message.key === 'string' ? Buffer.from(message.key) : message.key;
    const headerBytes = Buffer.from(JSON.stringify(headers));
    const value = valueBytes(message.value);
    return {
      key: Buffer.isBuffer(key) && key.length <= MAX_KEY_BYTES ? key : undefined,
      headers: headerBytes.length <= MAX_HEADER_BYTES ? headerBytes : undefined,
      valueLength: value?.length,
      valueSha256: value ? createHash('sha256').update(value).digest() : undefined,
    };
  } catch {
    return {};
  }
}
