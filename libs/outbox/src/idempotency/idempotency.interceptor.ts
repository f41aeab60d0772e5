import {
  Injectable,
  type CallHandler,
  type ExecutionContext,
  type NestInterceptor,
  type OnModuleInit,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { defer, lastValueFrom, map, type Observable } from 'rxjs';
import type { OutboxTransactionOptions } from '../transaction/outbox-transaction-options.interface';
import { parseIdempotencyKey, sha256Of } from './idempotency-key';
import { OutboxIdempotency } from './outbox-idempotency.service';

/** Handler metadata of `@Idempotent()`: its transaction options. @internal */
export const IDEMPOTENT_METADATA = 'nest-outbox:idempotent';

/** What the interceptor reads of the platform's request and response (Express or Fastify). */
interface HttpRequest {
  readonly method: string;
  readonly originalUrl?: string;
  readonly url: string;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body?: unknown;
}
interface HttpResponse {
  statusCode: number;
  status(code: number): unknown;
}

/** The HTTP side of `@Idempotent()`: reads the header, runs the handler once per key. @internal */
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor, OnModuleInit {
  constructor(
    private readonly reflector: Reflector,
    private readonly idempotency: OutboxIdempotency,
  ) {}

  /** Nest creates it only for a module with `@Idempotent()` handlers: the keys' table must exist. */
  onModuleInit(): Promise<void> {
    return this.idempotency.verifyTable();
  }

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const http = context.switchToHttp();
    const request = http.getRequest<HttpRequest>();
    const header = context.getType() === 'http' ? request.headers['idempotency-key'] : undefined;
    if (header === undefined) return next.handle();
    const key = parseIdempotencyKey(header);
    const response = http.getResponse<HttpResponse>();
    const options = this.reflector.get<OutboxTransactionOptions>(
      IDEMPOTENT_METADATA,
      context.getHandler(),
    );
    const command = `${context.getClass().name}.${context.getHandler().name}`;
    const url = request.originalUrl ?? request.url;
    const idempotent = {
      scope: this.idempotency.scopeOf(context),
      key,
      fingerprint: sha256Of(request.method, url, request.body ?? null),
    };
    // `next.handle()` is called inside the transaction, so the handler runs in its context;
    // the status is read after it, which may have set one (`@Res({ passthrough: true })`).
    const run = async () => {
      const body = await lastValueFrom(next.handle() as Observable<unknown>, {
        defaultValue: undefined,
      });
      return { status: response.statusCode, body };
    };
    return defer(() => this.idempotency.run(idempotent, run, { command, ...options })).pipe(
      map((answer) => {
        if (answer.replayed) response.status(answer.status);
        return answer.body;
      }),
    );
  }
}
