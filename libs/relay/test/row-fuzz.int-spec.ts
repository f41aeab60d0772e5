import { runRelayFuzz } from '../../../scripts/fuzz/relay-fuzz.run';

/**
 * The seeded short run of the relay's row fuzz (`npm run fuzz -- --relay --rows N` is the long
 * one): rows whose every column takes values from its type's whole domain, between control
 * events, drained by a real relay into the real broker. FUZZ_RELAY_SEED / FUZZ_RELAY_ROWS replay
 * another run.
 */
const SEED = Number(process.env.FUZZ_RELAY_SEED ?? 1);
const ROWS = Number(process.env.FUZZ_RELAY_ROWS ?? 1000);

jest.setTimeout(300_000);

describe(`relay under generated rows: ${ROWS} rows, seed ${SEED} (real PostgreSQL + Kafka fuzz)`, () => {
  it('Given rows of any column values among control events, then each is published carrying exactly its columns, parked alone with a reason naming its column, or waits behind its own parked row; no row is charged for another, the control events flow, and no batch fails', async () => {
    const summary = await runRelayFuzz({ rows: ROWS, seed: SEED });
    process.stdout.write(`relay fuzz: ${JSON.stringify(summary)}\n`);
    expect(summary.failures).toEqual([]);
    expect(summary.loopErrors).toBe(0);
    expect(summary.published).toBeGreaterThan(0);
    for (const column of ['occurred_at', 'headers', 'topic'])
      expect(summary.parked[column]).toBeGreaterThan(0);
  });
});
