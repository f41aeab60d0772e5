import { applyDecorators, SetMetadata, UseInterceptors } from '@nestjs/common';
import type { OutboxTransactionOptions } from '../transaction/outbox-transaction-options.interface';
import { IDEMPOTENT_METADATA, IdempotencyInterceptor } from './idempotency.interceptor';

/**
 * Marks an HTTP handler as an idempotent command: with an `Idempotency-Key` header, the
 * handler runs in one outbox transaction (its `@OutboxTransactional()` service calls join
 * it) that also stores the key, a fingerprint of the request (method, URL, body) and the
 * answer (status + body). A retry gets the first answer; the key with another request, 422;
 * a malformed key, 400; a concurrent request with the key waits for the first, then replays
 * it. Without the header the handler runs as usual. `options` are those of the transaction
 * (`critical: false` for a command refused under back-pressure).
 * @example
 * ```ts
 * @Post() @Idempotent() create(@Body() body: CreateOrderDto) { return this.orders.create(body); }
 * ```
 * @publicApi
 */
export function Idempotent(options: OutboxTransactionOptions = {}): MethodDecorator {
  return applyDecorators(
    SetMetadata(IDEMPOTENT_METADATA, options),
    UseInterceptors(IdempotencyInterceptor),
  );
}
