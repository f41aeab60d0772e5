import { LOG_FORMAT_ENV } from '@nest-outbox/core/internal';
import { SampleSystem } from '../scripts/sample-system';
import { markerLeaks, runMarkedFaultScenarios } from './log-marker/marked-fault.scenarios';

/** A JSON line of Nest's console logger (`new ConsoleLogger({ json: true })`). */
interface JsonLine {
  readonly level: string;
  readonly context?: string;
  readonly message: unknown;
}

/** The output's JSON lines; every line that looks like one must parse. */
function jsonLines(output: string): JsonLine[] {
  return output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as JsonLine);
}

/** The library lines (an object message with a `msg`) whose `msg` matches. */
function libraryLines(lines: JsonLine[], msg: RegExp): Record<string, unknown>[] {
  return lines
    .map((l) => l.message)
    .filter(
      (m): m is Record<string, unknown> =>
        typeof m === 'object' && m !== null && msg.test(String((m as { msg?: unknown }).msg)),
    );
}

/**
 * The fault scenarios of log-marker.e2e-spec.ts with `NEST_OUTBOX_LOG_FORMAT=json`: the
 * libraries log objects carrying event_id, aggregate_id, type, attempt and stage, errors as
 * class and code; the marker still appears in no line.
 */
describe('no payload in any log line, whatever fails (e2e, JSON logs)', () => {
  let system: SampleSystem;

  beforeAll(async () => {
    const env = { [LOG_FORMAT_ENV]: 'json' };
    system = await SampleSystem.create({
      prefix: 'e2e_markjs',
      ordersEnv: env,
      shippingEnv: env,
    });
    await system.start();
  }, 180_000);

  afterAll(async () => {
    await system?.teardown();
  }, 60_000);

  it('Given JSON logs and payloads carrying a marker, when the fault scenarios run, then the library lines are JSON objects with the event fields and none carries the marker', async () => {
    const outputs = await runMarkedFaultScenarios(system);
    for (const [service, output] of Object.entries(outputs))
      expect({ service, leaks: markerLeaks(output) }).toEqual({ service, leaks: [] });

    const orders = jsonLines(outputs.orders);
    const parked = libraryLines(orders, /^parked$/);
    expect(parked.length).toBeGreaterThanOrEqual(2);
    for (const line of parked) {
      expect(line).toMatchObject({
        event_id: expect.any(String),
        aggregate_id: expect.stringMatching(/^agg-[ab]-/),
        type: 'order.noted',
        attempt: expect.any(Number),
        stage: 'publish',
        error_class: expect.any(String),
      });
      expect(line).not.toHaveProperty('error');
    }

    const shipping = jsonLines(outputs.shipping);
    const failed = libraryLines(shipping, /^handler failed$/);
    expect(failed).toContainEqual(
      expect.objectContaining({
        event_id: expect.any(String),
        aggregate_id: expect.any(String),
        type: 'order.confirmed',
        attempt: expect.any(Number),
        stage: 'handle',
        error_class: 'QueryFailedError',
        error_code: '22P02',
      }),
    );
    expect(
      libraryLines(shipping, /^(event dead-lettered|rejected record)$/).length,
    ).toBeGreaterThan(0);
    // Nest's own lines are JSON too: the apps chose the JSON console logger from the same variable.
    expect(orders.some((l) => l.context === 'NestApplication')).toBe(true);
  });
});
