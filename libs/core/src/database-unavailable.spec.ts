import { isDatabaseUnavailable } from './database-unavailable';

describe('isDatabaseUnavailable', () => {
  it.each([
    ['a refused connection', Object.assign(new Error('connect'), { code: 'ECONNREFUSED' })],
    ['a server starting up (57P03)', Object.assign(new Error('starting'), { code: '57P03' })],
    ['an immediate shutdown (57P01)', Object.assign(new Error('shutdown'), { code: '57P01' })],
    ['a connection exception (08006)', Object.assign(new Error('x'), { code: '08006' })],
    ['a connection that broke', new Error('Connection terminated unexpectedly')],
    [
      "TypeORM's wrapper of one",
      Object.assign(new Error('query failed'), { driverError: { code: '57P01' } }),
    ],
    ['a cause chain', new Error('outer', { cause: { code: 'ECONNRESET' } })],
  ])('Given %s, then the database is unavailable', (_, error) => {
    expect(isDatabaseUnavailable(error)).toBe(true);
  });

  it.each([
    ['a unique violation (23505)', Object.assign(new Error('dup'), { code: '23505' })],
    ['a handler bug', new TypeError('x is undefined')],
    ['a string', 'ECONNREFUSED'],
    ['null', null],
  ])('Given %s, then it is not', (_, error) => {
    expect(isDatabaseUnavailable(error)).toBe(false);
  });
});
