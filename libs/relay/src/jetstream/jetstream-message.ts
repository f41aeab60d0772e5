import { EVENT_HEADERS } from '@nest-outbox/core';
import type { MsgHdrs } from '@nats-io/nats-core';
import { UnencodableEventError } from '../errors/unencodable-event.error';
import type { PublishRecord } from '../publisher/relay-publisher.interface';
import { eventSubject } from './jetstream-subject';

/** One record as JetStream takes it. @internal */
export interface JetStreamMessage {
  readonly subject: string;
  readonly data: Uint8Array;
  readonly headers: MsgHdrs;
  /** Payload and header bytes, as the server's `max_payload` counts them. */
  readonly bytes: number;
  /** The aggregate whose events must reach the stream one after the other. */
  readonly aggregate: string;
}

const shown = (name: string) => JSON.stringify(name.length > 64 ? `${name.slice(0, 64)}...` : name);

/**
 * The message of a record: subject `<topic>.<aggregate id token>`, the payload's UTF-8 bytes,
 * the contract headers as NATS headers (names kept exactly, values as UTF-8 text) and the
 * event id as `Nats-Msg-Id`.
 * @throws UnencodableEventError naming the header or column that NATS cannot carry
 * @internal
 */
export function jetStreamMessage(
  record: PublishRecord,
  makeHeaders: () => MsgHdrs,
): JetStreamMessage {
  const msgId = record.headers[EVENT_HEADERS.eventId];
  if (!msgId) throw new UnencodableEventError('event_id header is missing');
  const headers = makeHeaders();
  // The header block as the wire carries it: `NATS/1.0\r\n`, `name: value\r\n` each, `\r\n`.
  let headerBytes = 12 + 'Nats-Msg-Id'.length + 4 + Buffer.byteLength(msgId);
  for (const [name, value] of Object.entries(record.headers)) {
    headerBytes += Buffer.byteLength(name) + Buffer.byteLength(value) + 4;
    if (name.length === 0 || /^nats-/i.test(name))
      throw new UnencodableEventError(
        `header ${shown(name)} is not allowed on NATS (empty, or JetStream's own Nats- prefix): rename it`,
      );
    try {
      headers.set(name, value);
    } catch {
      throw new UnencodableEventError(
        `header ${shown(name)} cannot travel as a NATS header (names are printable ASCII without ':' or spaces, values have no CR or LF): rename it or encode its value`,
      );
    }
  }
  // The event id: a republish within the stream's duplicate_window is stored once.
  headers.set('Nats-Msg-Id', msgId);
  const data = Buffer.from(record.value, 'utf8');
  return {
    subject: eventSubject(record.topic, record.key),
    data,
    headers,
    bytes: data.length + headerBytes,
    aggregate: `${record.headers[EVENT_HEADERS.aggregateType] ?? ''}\u0000${record.key}`,
  };
}
