import type { RecordedEvent } from '../event/outbox-event.interface';
import type { OutboxService } from '../outbox.service';

/**
 * Runs `command` and returns the events it recorded, in order: a unit test checks what a
 * command announced without Kafka nor a relay. Not for concurrent commands.
 * @example
 * ```ts
 * const events = await recordedEvents(app.get(OutboxService), () => orders.confirm('o-1'));
 * expect(events.map((e) => e.eventType)).toEqual(['order.confirmed']);
 * ```
 * @publicApi
 */
export async function recordedEvents(
  outbox: OutboxService,
  command: () => Promise<unknown>,
): Promise<RecordedEvent[]> {
  const captured: RecordedEvent[] = [];
  const keep = (event: RecordedEvent) => (captured.push(event), event);
  const record = outbox.record.bind(outbox);
  const transitionAndRecord = outbox.transitionAndRecord.bind(outbox);
  outbox.record = (event) => record(event).then(keep);
  outbox.transitionAndRecord = (spec, event) => transitionAndRecord(spec, event).then(keep);
  try {
    await command();
    return captured;
  } finally {
    // The prototype's methods show through again.
    Reflect.deleteProperty(outbox, 'record');
    Reflect.deleteProperty(outbox, 'transitionAndRecord');
  }
}
