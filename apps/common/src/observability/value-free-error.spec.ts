import { describeErrorWithoutValues } from './value-free-error';

class LeaseLostError extends Error {}

describe('describeErrorWithoutValues (unit)', () => {
  it.each([
    [
      'a PostgreSQL error',
      Object.assign(new Error('value "MARK" is bad'), { code: '22P02' }),
      'Error code=22P02',
    ],
    ['a subclass without code', new LeaseLostError('MARK'), 'LeaseLostError'],
    [
      'a Node system error',
      Object.assign(new Error('connect MARK'), { code: 'ECONNREFUSED' }),
      'Error code=ECONNREFUSED',
    ],
    [
      'a code that holds a value (a line break)',
      Object.assign(new Error('MARK'), { code: 'x\nMARK forged' }),
      'Error',
    ],
    ['a numeric code', Object.assign(new Error('MARK'), { code: 42 }), 'Error code=42'],
    ['a plain object', { message: 'MARK' }, 'Object'],
    ['a null-prototype object', Object.create(null) as object, 'Error'],
    ['a thrown string', 'MARK', 'thrown string'],
    ['undefined', undefined, 'thrown undefined'],
  ])('Given %s, then it names class and code only', (_case, error, expected) => {
    expect(describeErrorWithoutValues(error)).toBe(expected);
  });
});
