import {
  KafkaJSConnectionError,
  KafkaJSNumberOfRetriesExceeded,
  KafkaJSProtocolError,
} from 'kafkajs';
import { backoffDelayMs } from '../loop/backoff';
import { classifyKafkaError } from './error-classifier';
import { NoTopicError, PublishTimeoutError } from './relay.errors';

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

  it('calls throttling throttled and a missing route permanent', () => {
    expect(classifyKafkaError(protocol('THROTTLING_QUOTA_EXCEEDED', true))).toBe('throttled');
    expect(classifyKafkaError(new NoTopicError('order'))).toBe('permanent');
  });
});

describe('backoffDelayMs', () => {
  const options = { baseMs: 100, capMs: 1000, jitter: 'none' as const };
  it('doubles from the base and stops at the cap', () => {
    expect([1, 2, 3, 4, 5, 50].map((a) => backoffDelayMs(a, options))).toEqual([
      100, 200, 400, 800, 1000, 1000,
    ]);
  });
  it('jitters within [delay/2, delay] (equal) and [0, delay] (full)', () => {
    expect(backoffDelayMs(5, { ...options, jitter: 'equal' }, () => 0)).toBe(500);
    expect(backoffDelayMs(5, { ...options, jitter: 'equal' }, () => 1)).toBe(1000);
    expect(backoffDelayMs(5, { ...options, jitter: 'full' }, () => 0)).toBe(0);
  });
});
