import { errorChain } from './error-classifier';
import { NoTopicError } from './no-topic.error';
import { PublishTimeoutError } from './publish-timeout.error';
import { UnencodableEventError } from './unencodable-event.error';

/** The bounded `reason` label of a failed publish. @internal */
export type PublishFailureReason =
  | 'publish_timeout'
  | 'connection'
  | 'request_timeout'
  | 'not_leader'
  | 'no_topic'
  | 'unencodable'
  | 'message_too_large'
  | 'authorization'
  | 'invalid_record'
  | 'throttled'
  | 'other';

const BY_TYPE: Readonly<Record<string, PublishFailureReason>> = {
  NOT_LEADER_FOR_PARTITION: 'not_leader',
  NOT_LEADER_OR_FOLLOWER: 'not_leader',
  LEADER_NOT_AVAILABLE: 'not_leader',
  NOT_ENOUGH_REPLICAS: 'not_leader',
  NOT_ENOUGH_REPLICAS_AFTER_APPEND: 'not_leader',
  REQUEST_TIMED_OUT: 'request_timeout',
  UNKNOWN_TOPIC_OR_PARTITION: 'no_topic',
  INVALID_TOPIC_EXCEPTION: 'no_topic',
  UNROUTABLE: 'no_topic',
  MESSAGE_TOO_LARGE: 'message_too_large',
  RECORD_LIST_TOO_LARGE: 'message_too_large',
  TOPIC_AUTHORIZATION_FAILED: 'authorization',
  CLUSTER_AUTHORIZATION_FAILED: 'authorization',
  TRANSACTIONAL_ID_AUTHORIZATION_FAILED: 'authorization',
  SASL_AUTHENTICATION_FAILED: 'authorization',
  INVALID_RECORD: 'invalid_record',
  CORRUPT_MESSAGE: 'invalid_record',
  THROTTLING_QUOTA_EXCEEDED: 'throttled',
};

const BY_NAME: Readonly<Record<string, PublishFailureReason>> = {
  KafkaJSConnectionError: 'connection',
  KafkaJSConnectionClosedError: 'connection',
  KafkaJSBrokerNotFound: 'connection',
  KafkaJSRequestTimeoutError: 'request_timeout',
  KafkaJSSASLAuthenticationError: 'authorization',
};

/** The bounded reason of `publish_failures_total`, through causes and aggregated errors. @internal */
export function publishFailureReason(error: unknown): PublishFailureReason {
  for (const e of errorChain(error)) {
    if (e instanceof PublishTimeoutError) return 'publish_timeout';
    if (e instanceof NoTopicError) return 'no_topic';
    if (e instanceof UnencodableEventError) return 'unencodable';
    if (typeof e.type === 'string' && BY_TYPE[e.type]) return BY_TYPE[e.type]!;
    if (typeof e.name === 'string' && BY_NAME[e.name]) return BY_NAME[e.name]!;
    if (e.code === 'ECONNREFUSED' || e.code === 'ECONNRESET' || e.code === 'ENOTFOUND')
      return 'connection';
  }
  return 'other';
}
