import { UnencodableEventError } from '../errors/unencodable-event.error';

/** Bytes kept as they are in the aggregate id's subject token; any other is `%XX`. */
const PLAIN = /^[A-Za-z0-9_-]$/;
/** Longest subject published, well within the control line the server accepts. */
const MAX_SUBJECT_BYTES = 1024;

/**
 * The aggregate id as one subject token: UTF-8 bytes outside `[A-Za-z0-9_-]` percent-encoded
 * (`decodeURIComponent` reads it back), so that `.`, `*`, `>` and spaces cannot split or
 * widen the subject. UUIDs and plain ids stay as they are.
 * @internal
 */
export function aggregateToken(aggregateId: string): string {
  let token = '';
  for (const char of aggregateId) {
    if (PLAIN.test(char)) token += char;
    else
      for (const byte of Buffer.from(char, 'utf8'))
        token += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return token;
}

/**
 * The subject of an event: `<topic>.<aggregate id token>`. A stream capturing `<topic>.>`
 * holds the topic; a consumer filtering on `<topic>.<token>` reads one aggregate, in order.
 * @throws UnencodableEventError when no subject can be made (empty aggregate id, an empty
 * token in the topic, or a subject too long for the server)
 * @internal
 */
export function eventSubject(topic: string, aggregateId: string): string {
  if (aggregateId.length === 0)
    throw new UnencodableEventError('aggregate_id is empty, and a NATS subject token cannot be');
  if (topic.split('.').some((t) => t.length === 0))
    throw new UnencodableEventError(
      `topic ${JSON.stringify(topic)} has an empty NATS subject token (a leading, trailing or double '.')`,
    );
  const subject = `${topic}.${aggregateToken(aggregateId)}`;
  if (subject.length > MAX_SUBJECT_BYTES)
    throw new UnencodableEventError(
      `the subject of topic and aggregate_id is over ${MAX_SUBJECT_BYTES} bytes: shorten the aggregate id`,
    );
  return subject;
}
