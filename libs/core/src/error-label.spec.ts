import { errorLabel } from './error-label';

describe('errorLabel', () => {
  it('gives the class and the code of an error, never its message', () => {
    const db = Object.assign(new Error('duplicate key value (id)=(secret)'), {
      name: 'DatabaseError',
      code: '23505',
    });
    expect(errorLabel(db)).toBe('DatabaseError 23505');
    expect(errorLabel(new TypeError('secret'))).toBe('TypeError');
    expect(errorLabel('secret')).toBe('string');
    expect(errorLabel(null)).toBe('object');
  });
});
