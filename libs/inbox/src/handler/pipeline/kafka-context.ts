import type { ExecutionContext } from '@nestjs/common';
import { KafkaContext } from '@nestjs/microservices';
import { InboxMisuseError } from '../../errors/inbox-misuse.error';

/** The KafkaContext of an `@InboxHandler` call, or a misuse error saying why not. @internal */
export function kafkaContextOf(context: ExecutionContext): KafkaContext {
  const rpc = context.getType() === 'rpc' ? context.switchToRpc().getContext<unknown>() : undefined;
  if (!(rpc instanceof KafkaContext)) {
    throw new InboxMisuseError(
      '@InboxHandler works only on @EventPattern methods of a controller served by the Kafka transport ' +
        '(app.connectMicroservice({ transport: Transport.KAFKA, options: { ..., run: { autoCommit: false } } })).',
    );
  }
  return rpc;
}
