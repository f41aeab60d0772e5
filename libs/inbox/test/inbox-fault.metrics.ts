import { InboxMetrics } from '../src/metrics/inbox.metrics';

/**
 * Test-only fault: the inbox's metrics, which count a delivery right after its PostgreSQL
 * commit and before its offset is committed, SIGKILL the process on the first applied one
 * (for a chunk of `InboxKafkaServer`: on the first chunk that applied one). Given to the app
 * in place of the module's `InboxMetrics` (see `startInboxApp({ metrics })`).
 */
export class KillAfterCommitMetrics extends InboxMetrics {
  constructor() {
    super(undefined);
  }

  override settled(
    outcome: 'applied' | 'duplicate' | 'stale',
    labels: { consumer: string; topic: string },
  ): void {
    super.settled(outcome, labels);
    if (outcome === 'applied') process.kill(process.pid, 'SIGKILL');
  }

  override settledMany(
    tally: { readonly applied: number; readonly duplicate: number; readonly stale: number },
    labels: { consumer: string; topic: string },
  ): void {
    super.settledMany(tally, labels);
    if (tally.applied > 0) process.kill(process.pid, 'SIGKILL');
  }
}
