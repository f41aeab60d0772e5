import {
  Inject,
  Injectable,
  type CallHandler,
  type ExecutionContext,
  type NestInterceptor,
} from '@nestjs/common';
import { KafkaContext } from '@nestjs/microservices';
import type { Consumer } from 'kafkajs';
import { defer, lastValueFrom, type Observable } from 'rxjs';
import { recordOf, type InboxRoute } from '../chunk/chunk';
import { InboxKafkaContext } from '../chunk/inbox-kafka.context';
import { InboxConsumerRegistry } from '../consumer/inbox-consumer.registry';
import { InboxMisuseError } from '../errors/inbox-misuse.error';
import { InboxHandlerPolicies } from '../options/inbox-handler.policies';
import { InboxPipeline } from '../pipeline/inbox.pipeline';

/**
 * The inbox under Nest's own `ServerKafka`: runs each record through the inbox's pipeline as a
 * chunk of one, the rest of Nest's chain (later interceptors, pipes, the method) being its
 * invoke stage, called with the record's `InboxKafkaContext` as `@Ctx()`. Under
 * `InboxKafkaServer` the pipeline already runs around the call: it steps aside. @internal
 */
@Injectable()
export class InboxInterceptor implements NestInterceptor {
  constructor(
    @Inject(InboxHandlerPolicies) private readonly policies: InboxHandlerPolicies,
    @Inject(InboxPipeline) private readonly pipeline: InboxPipeline,
    @Inject(InboxConsumerRegistry) private readonly registry: InboxConsumerRegistry,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const args = context.getArgs<unknown[]>();
    const kafka = context.getType() === 'rpc' ? args[1] : undefined;
    if (kafka instanceof InboxKafkaContext) return next.handle();
    const handler = this.policies.forHandler(context.getHandler());
    if (!(kafka instanceof KafkaContext) || !handler) {
      throw new InboxMisuseError(
        '@InboxHandler works only on @EventPattern methods of a controller served by the Kafka transport ' +
          '(app.connectMicroservice({ transport: Transport.KAFKA, options: { ..., run: { autoCommit: false } } })).',
      );
    }
    const route: InboxRoute = {
      ...handler,
      invoke: (_payload, inboxContext) => {
        args[1] = inboxContext; // what @Ctx() and @InboxEvent() read in the rest of the chain
        return lastValueFrom(next.handle(), { defaultValue: undefined });
      },
    };
    const session = this.registry.attach(kafka.getConsumer() as unknown as Consumer);
    const record = recordOf(kafka, () => args[0]);
    return defer(async () => {
      await this.pipeline.runRecord(session, route, record);
      return undefined;
    });
  }
}
