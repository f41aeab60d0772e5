import { execFileSync } from 'node:child_process';
import { REPO_ROOT } from './env';

/** Brings PostgreSQL and Kafka up once per Jest run (instant when they already answer). */
export default function globalSetup(): void {
  execFileSync('bash', [`${REPO_ROOT}/scripts/stack.sh`, 'up'], { stdio: 'inherit' });
}
