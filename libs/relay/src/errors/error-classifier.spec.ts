import {
  KafkaJSConnectionError,
  KafkaJSNumberOfRetriesExceeded,
  KafkaJSProtocolError,
} from 'kafkajs';
import { classifyKafkaError, hasKafkaErrorType } from './error-classifier';
import { NoTopicError } from './no-topic.error';
import { PublishTimeoutError } from './publish-timeout.error';

const protocol = (type: string, retriable = false) =>
  new KafkaJSProtocolError({ message: type, type, code: 1, retriable } as never);

describe('classifyKafkaError', () => {
  it.each([
    'MESSAGE_TOO_LARGE',
    'UNKNOWN_TOPIC_OR_PARTITION',
    'TOPIC_AUTHORIZATION_FAILED',
    'INVALID_RECORD',
  ])('calls %s permanent, also when wrapped by retries', (type) => {
    expect(classifyKafkaError(protocol(type))).toBe('permanent');
    expect(
      classifyKafkaError(
        new KafkaJSNumberOfRetriesExceeded(protocol(type, true), {
          retryCount: 3,
          retryTime: 1,
        } as never),
      ),
    ).toBe('permanent');
  });

  it('calls broker unavailable, leader changes, request timeouts and our publish timeout transient', () => {
    expect(classifyKafkaError(new KafkaJSConnectionError('refused'))).toBe('transient');
    expect(classifyKafkaError(protocol('NOT_LEADER_FOR_PARTITION', true))).toBe('transient');
    expect(classifyKafkaError(protocol('REQUEST_TIMED_OUT', true))).toBe('transient');
    expect(classifyKafkaError(new PublishTimeoutError(1000))).toBe('transient');
  });

  it("calls a failed SASL authentication transient: the relay's credentials fail, not the event", () => {
    const sasl = Object.assign(new Error('SASL SCRAM SHA512 authentication failed'), {
      name: 'KafkaJSSASLAuthenticationError',
    });
    expect(classifyKafkaError(sasl)).toBe('transient');
    expect(classifyKafkaError(protocol('SASL_AUTHENTICATION_FAILED'))).toBe('transient');
  });

  it('calls throttling throttled and a missing route permanent', () => {
    expect(classifyKafkaError(protocol('THROTTLING_QUOTA_EXCEEDED', true))).toBe('throttled');
    expect(classifyKafkaError(new NoTopicError('order'))).toBe('permanent');
  });
});

describe('hasKafkaErrorType', () => {
  it('finds a protocol error type anywhere in the chain, and nothing else', () => {
    const types = new Set(['CORRUPT_MESSAGE']);
    const wrapped = new KafkaJSNumberOfRetriesExceeded(protocol('CORRUPT_MESSAGE', true), {
      retryCount: 3,
      retryTime: 1,
    } as never);
    expect(hasKafkaErrorType(wrapped, types)).toBe(true);
    expect(hasKafkaErrorType(protocol('MESSAGE_TOO_LARGE'), types)).toBe(false);
    expect(hasKafkaErrorType(new Error('CORRUPT_MESSAGE'), types)).toBe(false);
  });
});
