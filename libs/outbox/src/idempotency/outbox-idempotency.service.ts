import {
  Inject,
  Injectable,
  Logger,
  type ExecutionContext,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { errorLabel, PeriodicTask, relationExists } from '@nest-outbox/core/internal';
import { driverErrorChain, sqlStateOf } from '../errors/driver-error';
import { OutboxIdempotencyTableNotFoundError } from './idempotency.errors';
import { OutboxMetrics } from '../metrics/outbox.metrics';
import { OUTBOX_OPTIONS, OUTBOX_TRANSACTION_HOST } from '../outbox.constants';
import type { ResolvedOutboxOptions } from '../outbox-options.interface';
import { OutboxService } from '../outbox.service';
import type { OutboxTransactionOptions } from '../transaction/outbox-transaction-options.interface';
import { IdempotencyKeyReusedError } from './idempotency.errors';
import { sha256Of } from './idempotency-key';
import { idempotencySql } from './idempotency.sql';

/** One idempotent request: who sent it, its key, and the fingerprint of what it asks. @publicApi */
export interface IdempotentRequest {
  /** The caller's scope (principal, tenant); stored hashed. `''`: one scope for all. */
  readonly scope: string;
  readonly key: string;
  /** Equal for a retry, different for another request (e.g. `sha256(method, path, body)`). */
  readonly fingerprint: string;
}

/** A command's answer; `body` must survive `JSON.stringify` (it is stored as JSON text). @publicApi */
export interface IdempotentAnswer {
  readonly status: number;
  readonly body: unknown;
}

/**
 * Runs commands once per key (the function form of `@Idempotent()`): the key, the request's
 * fingerprint and the answer commit in the command's own outbox transaction, with its
 * change and its events. Starts deleting keys older than `idempotency.retentionMs` on first use.
 * @publicApi
 */
@Injectable()
export class OutboxIdempotency implements OnApplicationShutdown {
  private readonly logger = new Logger('OutboxIdempotency');
  private readonly sql: ReturnType<typeof idempotencySql>;
  private readonly housekeeping: PeriodicTask<number>;

  constructor(
    @Inject(OUTBOX_OPTIONS) private readonly options: ResolvedOutboxOptions,
    @Inject(OUTBOX_TRANSACTION_HOST) private readonly host: { readonly tx: unknown },
    private readonly outbox: OutboxService,
    private readonly metrics: OutboxMetrics,
  ) {
    const { table, retentionMs } = options.idempotency;
    this.sql = idempotencySql(table);
    this.housekeeping = new PeriodicTask({
      intervalMs: Math.min(retentionMs, 60_000),
      run: () => this.deleteExpired(),
      onError: (error) => this.logger.warn(`deleting expired keys failed: ${errorLabel(error)}`),
    });
  }

  /**
   * Runs `command` in an outbox transaction, once per `(scope, key)`: a retry of the same
   * request gets the stored answer (`replayed: true`) without running it; a concurrent one
   * waits for the first to end, then replays it (or runs, if the first rolled back). A
   * command that throws stores nothing: the key stays free.
   * @throws IdempotencyKeyReusedError (422) when the key came with another fingerprint
   * @throws OutboxIdempotencyTableNotFoundError when the keys' table does not exist
   */
  run(
    request: IdempotentRequest,
    command: () => Promise<IdempotentAnswer>,
    options?: OutboxTransactionOptions,
  ): Promise<IdempotentAnswer & { readonly replayed: boolean }> {
    this.housekeeping.start();
    const scope = sha256Of(request.scope);
    const { key, fingerprint } = request;
    return this.outbox.transaction(async () => {
      const db = this.options.sqlExecutor(this.host.tx);
      const claimed = await db
        .query(this.sql.claim, [scope, key, fingerprint])
        .catch((error: unknown) => {
          throw this.missingTable(error) ?? error;
        });
      if (claimed.length === 0) {
        const [first] = await db.query<{
          fingerprint: string;
          status: number;
          body: string | null;
        }>(this.sql.first, [scope, key]);
        if (first?.fingerprint !== fingerprint) {
          this.metrics.idempotent.inc({ outcome: 'rejected' });
          throw new IdempotencyKeyReusedError();
        }
        this.metrics.idempotent.inc({ outcome: 'replayed' });
        const body: unknown = first.body === null ? undefined : JSON.parse(first.body);
        return { status: first.status, body, replayed: true };
      }
      const answer = await command();
      await db.query(this.sql.answer, [
        scope,
        key,
        answer.status,
        JSON.stringify(answer.body) ?? null,
      ]);
      this.metrics.idempotent.inc({ outcome: 'applied' });
      return { ...answer, replayed: false };
    }, options);
  }

  /**
   * @throws OutboxIdempotencyTableNotFoundError when the keys' table does not exist (checked
   * at start-up by `@Idempotent()`, unless `tuning.verifySchema: false`)
   * @internal
   */
  async verifyTable(): Promise<void> {
    if (!this.options.verifySchema) return;
    const { table } = this.options.idempotency;
    if (!(await relationExists(this.options.sqlExecutor(this.host.tx), table)))
      throw new OutboxIdempotencyTableNotFoundError(table);
  }

  /** The typed error when `error` says the keys' table does not exist (42P01). */
  private missingTable(error: unknown): OutboxIdempotencyTableNotFoundError | undefined {
    return driverErrorChain(error).some((e) => sqlStateOf(e) === '42P01')
      ? new OutboxIdempotencyTableNotFoundError(this.options.idempotency.table)
      : undefined;
  }

  /** The caller's scope of the request in `context` (the `idempotency.scope` option). */
  scopeOf(context: ExecutionContext): string {
    return this.options.idempotency.scope(context);
  }

  /** Deletes the keys older than the retention, in batches; answers how many. */
  async deleteExpired(): Promise<number> {
    const db = this.options.sqlExecutor(this.host.tx);
    let total = 0;
    for (;;) {
      const [row] = await db.query<{ deleted: number }>(this.sql.purge, [
        this.options.idempotency.retentionMs,
      ]);
      total += row?.deleted ?? 0;
      if ((row?.deleted ?? 0) < this.sql.batch) return total;
    }
  }

  /** @internal */
  async onApplicationShutdown(): Promise<void> {
    await this.housekeeping.stop();
  }
}
