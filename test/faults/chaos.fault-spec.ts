import { acquireFaultSlot, spawnTs, waitFor, type TsChild } from '@test/support';
import type { ChaosResult } from '../../scripts/chaos/chaos-run';

const ROUNDS = Number(process.env.CHAOS_ROUNDS ?? 3);
const SEED = Number(process.env.CHAOS_SEED ?? 1303);

/**
 * The short seeded chaos run of CI (`npm run chaos -- --rounds 3 --seed 1303`), as a child
 * process, so that its verdict joins the suite's counts. Longer: CHAOS_ROUNDS / CHAOS_SEED.
 */
describe('Seeded randomized fault run of the sample system (npm run chaos)', () => {
  let release: (() => void) | undefined;
  let child: TsChild | undefined;

  beforeAll(async () => {
    release = await acquireFaultSlot();
  }, 1_200_000);

  afterAll(async () => {
    if (child && child.process.exitCode === null) await child.stop(60_000);
    release?.();
  }, 120_000);

  it(`Given seed ${SEED} and ${ROUNDS} rounds of HTTP load with relay, consumer, broker and PostgreSQL faults, then every round reaches quiescence and its history (Kafka read from outside, SQL) holds I1-I6 with no violation`, async () => {
    child = spawnTs('scripts/chaos/chaos.cli.ts', {}, [
      '--rounds',
      String(ROUNDS),
      '--seed',
      String(SEED),
      '--load-ms',
      '3000',
    ]);
    const running = child;
    await waitFor(
      'the chaos run to end',
      () => running.process.exitCode !== null || running.process.signalCode !== null,
      {
        timeoutMs: 1_500_000,
        intervalMs: 1000,
      },
    );
    const output = running.output();
    const line = output.split('\n').find((l) => l.startsWith('CHAOS_RESULT '));
    if (!line) throw new Error(`no CHAOS_RESULT line:\n${output.slice(-5000)}`);
    const result = JSON.parse(line.slice('CHAOS_RESULT '.length)) as ChaosResult;
    process.stdout.write(
      `[faults] chaos seed ${result.seed}: ${result.roundsDone} rounds, faults ${JSON.stringify(result.faults)}, commands ${result.load.commands}, violations ${result.violations.length}\n`,
    );
    expect(result.violations).toEqual([]);
    expect(result.roundsDone).toBe(ROUNDS);
    expect(running.process.exitCode).toBe(0);
  }, 1_600_000);
});
