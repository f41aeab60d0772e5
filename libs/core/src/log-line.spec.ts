import { escapeControl, LOG_FORMAT_ENV, logFormat, logLine } from './log-line';

describe('logLine', () => {
  const fields = {
    event_id: '0190-a',
    aggregate_id: 'agg 1',
    type: 'order.noted',
    attempt: 3,
    stage: 'publish',
  };

  it('Given text format, when fields are logged, then they follow the message as key=value, quoted where they hold spaces', () => {
    expect(logLine('parked', fields, 'text')).toBe(
      'parked event_id=0190-a aggregate_id="agg 1" type=order.noted attempt=3 stage=publish',
    );
  });

  it('Given JSON format, when fields are logged, then they come back as one flat object with the message as msg', () => {
    expect(logLine('parked', fields, 'json')).toEqual({ msg: 'parked', ...fields });
  });

  it('Given an error whose message echoes a value, when it is logged, then only its class and code appear', () => {
    const error = Object.assign(new Error('invalid input syntax for type uuid: "SECRET"'), {
      name: 'QueryFailedError',
      code: '22P02',
    });
    const json = logLine('handler failed', { error }, 'json');
    expect(json).toEqual({
      msg: 'handler failed',
      error_class: 'QueryFailedError',
      error_code: '22P02',
    });
    const text = logLine('handler failed', { error }, 'text');
    expect(text).toBe('handler failed error_class=QueryFailedError error_code=22P02');
    expect(JSON.stringify([json, text])).not.toContain('SECRET');
  });

  it('Given values with control characters, when logged in either format, then they are escaped and the line stays one line', () => {
    const hostile = { aggregate_id: 'a\nFAKE LINE\u001b[31m\u2028' };
    const text = logLine('parked', hostile, 'text') as string;
    expect(['\n', '\u001b', '\u2028'].some((c) => text.includes(c))).toBe(false);
    expect(text).toContain('a\\nFAKE LINE\\u001b[31m\\u2028');
    const line = JSON.stringify(logLine('parked', hostile, 'json'));
    expect(['\n', '\u001b', '\u2028'].some((c) => line.includes(c))).toBe(false);
    expect(escapeControl('tab\there\r')).toBe('tab\\there\\r');
  });

  it('Given a non-scalar field, when logged, then only its type appears (objects may hold a payload)', () => {
    expect(logLine('x', { payload: { secret: 'SECRET' } }, 'json')).toEqual({
      msg: 'x',
      payload: '[object]',
    });
  });

  it('Given NEST_OUTBOX_LOG_FORMAT, when the format is read, then only json (any case) selects JSON', () => {
    expect(logFormat({ [LOG_FORMAT_ENV]: 'JSON' })).toBe('json');
    expect(logFormat({ [LOG_FORMAT_ENV]: 'text' })).toBe('text');
    expect(logFormat({})).toBe('text');
  });
});
