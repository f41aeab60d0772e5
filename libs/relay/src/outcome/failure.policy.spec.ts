import { KafkaJSProtocolError } from 'kafkajs';
import type { ClaimedRow } from '../claim/claimed-batch';
import { classifyFailure, decideFailure } from './failure.policy';

const options = { maxAttempts: 3, backoff: { baseMs: 100, capMs: 1000 } };
const upper = () => 1;

describe('decideFailure', () => {
  it('parks at once on a permanent error', () => {
    expect(decideFailure(0, 'permanent', options)).toEqual({
      action: 'park',
      attempt: 1,
      reason: 'permanent',
    });
  });

  it('backs off a transient error with the shared backoff, counting the attempt', () => {
    expect(decideFailure(1, 'transient', options, upper)).toEqual({
      action: 'retry',
      attempt: 2,
      counted: true,
      delayMs: 200,
    });
  });

  it('parks as exhausted when the attempt reaches maxAttempts', () => {
    expect(decideFailure(2, 'transient', options)).toEqual({
      action: 'park',
      attempt: 3,
      reason: 'exhausted',
    });
  });

  it('backs off at the cap without counting, instead of parking as exhausted, when the broker acknowledged nothing else meanwhile (an outage)', () => {
    expect(decideFailure(2, 'transient', options, upper, false)).toEqual({
      action: 'retry',
      attempt: 2,
      counted: false,
      delayMs: 400,
    });
    expect(decideFailure(0, 'permanent', options, upper, false)).toMatchObject({ action: 'park' });
  });

  it('backs off throttling without counting an attempt, even past maxAttempts', () => {
    expect(decideFailure(5, 'throttled', options, upper)).toEqual({
      action: 'retry',
      attempt: 5,
      counted: false,
      delayMs: 1000,
    });
  });
});

describe('classifyFailure', () => {
  const row = { eventId: 'e', eventType: 't', aggregateType: 'a', aggregateId: 'i', attempts: 2 };
  const tooLarge = new KafkaJSProtocolError({
    message: 'too large',
    type: 'MESSAGE_TOO_LARGE',
    code: 10,
    retriable: false,
  } as never);

  it("asks the user's classifier first, with the event and the attempt, never the payload", () => {
    const classifier = jest.fn().mockReturnValue('transient');
    expect(classifyFailure(tooLarge, row as ClaimedRow, 'orders', classifier)).toBe('transient');
    expect(classifier).toHaveBeenCalledWith(tooLarge, {
      eventId: 'e',
      eventType: 't',
      aggregateType: 'a',
      aggregateId: 'i',
      topic: 'orders',
      attempt: 3,
    });
  });

  it('falls back to the built-in classification when the classifier returns undefined', () => {
    expect(classifyFailure(tooLarge, row as ClaimedRow, 'orders', () => undefined)).toBe(
      'permanent',
    );
  });
});
