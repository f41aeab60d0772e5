import type { InboxRoute } from '../chunk/chunk';
import type { ConsumerSession } from '../consumer/consumer.session';
import type { InboxConsumerPort } from '../consumer/inbox-consumer.port';
import type { InboxPipeline } from '../pipeline/inbox.pipeline';

/** What `InboxModule` hands the `InboxKafkaServer` of its application before it starts. @internal */
export interface InboxLink {
  readonly pipeline: InboxPipeline;
  readonly routes: (topic: string) => readonly InboxRoute[];
  readonly session: (consumer: InboxConsumerPort) => ConsumerSession;
  /** The module's `connectionName` (the server's must match). */
  readonly connectionName: string | undefined;
}
