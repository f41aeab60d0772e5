import { execFileSync } from 'node:child_process';
import { REPO_ROOT } from './env';

/**
 * Brings PostgreSQL and Kafka up once per Jest run (instant when they already answer), and
 * makes sure the Kafka jars are cached even when a running broker was reused: tests that
 * stop a broker start a private one from those jars (test/support/private-kafka.ts).
 */
export default function globalSetup(): void {
  const stack = `${REPO_ROOT}/scripts/stack.sh`;
  execFileSync('bash', [stack, 'up'], { stdio: 'inherit' });
  try {
    execFileSync('bash', [stack, 'fetch-kafka'], { stdio: 'inherit' });
  } catch {
    // Only the broker-fault tests need the jars; they fail with a message that says so.
    process.stderr.write('[stack] warning: Kafka jars not cached; broker-fault tests will fail\n');
  }
}
