import { InboxMetrics } from '../src/metrics/inbox.metrics';

/**
 * Test-only fault: the inbox's metrics, which count a delivery right after its PostgreSQL
 * commit and before its offset is committed, SIGKILL the process on the first count with an applied one. Given to the app
 * in place of the module's `InboxMetrics` (see `startInboxApp({ metrics })`).
 */
export class KillAfterCommitMetrics extends InboxMetrics {
  constructor() {
    super(undefined);
  }

  override settledMany(
    tally: { readonly applied: number; readonly duplicate: number; readonly stale: number },
    labels: { consumer: string; topic: string },
  ): void {
    super.settledMany(tally, labels);
    if (tally.applied > 0) process.kill(process.pid, 'SIGKILL');
  }
}
