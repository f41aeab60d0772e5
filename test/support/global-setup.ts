import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { REPO_ROOT } from './env';

/**
 * Compiles the libraries, the sample apps and the demo's tools once per Jest run
 * (`tsc -b tsconfig.build.json`, incremental: about 3 s when nothing changed): the
 * end-to-end tests start the apps from that JavaScript, as production does. A failed build
 * removes the compiled apps, so that the end-to-end tests fail saying so, while the unit and
 * integration tests (which run the TypeScript sources) still run.
 */
function buildApps(): void {
  try {
    execFileSync(
      process.execPath,
      [require.resolve('typescript/bin/tsc'), '-b', 'tsconfig.build.json'],
      {
        cwd: REPO_ROOT,
        stdio: 'inherit',
      },
    );
  } catch {
    rmSync(`${REPO_ROOT}/dist/apps`, { recursive: true, force: true });
    rmSync(`${REPO_ROOT}/dist/scripts`, { recursive: true, force: true });
    process.stderr.write('[build] warning: npm run build failed; end-to-end tests will fail\n');
  }
}

/**
 * Brings PostgreSQL and Kafka up once per Jest run (instant when they already answer), and
 * makes sure the Kafka jars are cached even when a running broker was reused: tests that
 * stop a broker start a private one from those jars (test/support/private-kafka.ts).
 */
export default function globalSetup(): void {
  buildApps();
  const stack = `${REPO_ROOT}/scripts/stack.sh`;
  execFileSync('bash', [stack, 'up'], { stdio: 'inherit' });
  try {
    execFileSync('bash', [stack, 'fetch-kafka'], { stdio: 'inherit' });
  } catch {
    // Only the broker-fault tests need the jars; they fail with a message that says so.
    process.stderr.write('[stack] warning: Kafka jars not cached; broker-fault tests will fail\n');
  }
}
