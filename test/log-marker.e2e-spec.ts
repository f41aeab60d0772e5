import { SampleSystem } from '../scripts/sample-system';
import { markerLeaks, runMarkedFaultScenarios } from './log-marker/marked-fault.scenarios';

/**
 * The fault scenarios of the relay and the inbox with a distinctive marker in every payload
 * (test/log-marker/marked-fault.scenarios.ts), libraries logging text: whatever fails, no
 * line either process prints (Nest's logger, kafkajs' log creator, console) may carry it.
 * The JSON twin: log-marker-json.e2e-spec.ts.
 */
describe('no payload in any log line, whatever fails (e2e, text logs)', () => {
  let system: SampleSystem;

  beforeAll(async () => {
    system = await SampleSystem.create({ prefix: 'e2e_marker' });
    await system.start();
  }, 180_000);

  afterAll(async () => {
    await system?.teardown();
  }, 60_000);

  it('Given payloads carrying a marker, when events flow, are rejected, poison a handler, fail in PostgreSQL or are refused by the broker, then no log line of either service carries it', async () => {
    const outputs = await runMarkedFaultScenarios(system);
    // No line carries the marker ...
    for (const [service, output] of Object.entries(outputs))
      expect({ service, leaks: markerLeaks(output) }).toEqual({ service, leaks: [] });
    // ... though the scenarios did fail where they should (their log lines are there).
    expect(outputs.orders).toMatch(/parked event_id=\S+ aggregate_id=\S+ type=order\.noted/);
    expect(outputs.shipping).toMatch(/dead-letter|rejected/i);
    expect(outputs.shipping).toMatch(
      /handler failed .*stage=handle .*error_class=QueryFailedError error_code=22P02/,
    );
  });
});
