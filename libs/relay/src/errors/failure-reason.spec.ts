import { NoTopicError } from './no-topic.error';
import { PublishTimeoutError } from './publish-timeout.error';
import { publishFailureReason } from './failure-reason';

const named = (name: string, extra: object = {}) => Object.assign(new Error('x'), { name }, extra);

describe('publishFailureReason', () => {
  it('names our own errors', () => {
    expect(publishFailureReason(new PublishTimeoutError(100))).toBe('publish_timeout');
    expect(publishFailureReason(new NoTopicError('order'))).toBe('no_topic');
  });

  it('reads kafkajs protocol types and error names through causes and retries', () => {
    const retries = named('KafkaJSNumberOfRetriesExceeded', {
      cause: named('KafkaJSProtocolError', { type: 'NOT_LEADER_OR_FOLLOWER' }),
    });
    expect(publishFailureReason(retries)).toBe('not_leader');
    expect(publishFailureReason(named('KafkaJSConnectionError'))).toBe('connection');
    expect(publishFailureReason(named('KafkaJSProtocolError', { type: 'MESSAGE_TOO_LARGE' }))).toBe(
      'message_too_large',
    );
    expect(
      publishFailureReason(new AggregateError([named('KafkaJSRequestTimeoutError')], 'many')),
    ).toBe('request_timeout');
  });

  it('falls back to other for anything it does not know, never to the message', () => {
    expect(publishFailureReason(new Error('secret payload text'))).toBe('other');
    expect(publishFailureReason('a string')).toBe('other');
  });
});
