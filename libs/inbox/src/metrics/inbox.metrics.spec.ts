import { InboxVersionGapError } from '../errors/inbox-version-gap.error';
import { applyErrorReason } from './inbox.metrics';

describe('applyErrorReason', () => {
  it('tells version gaps, permanent errors, PostgreSQL errors and handler errors apart', () => {
    expect(applyErrorReason(new InboxVersionGapError('a-1', 2, 4), false)).toBe('version_gap');
    expect(applyErrorReason(new Error('boom'), true)).toBe('permanent');
    const pg = Object.assign(new Error('deadlock'), { name: 'QueryFailedError', code: '40P01' });
    expect(applyErrorReason(pg, false)).toBe('database');
    const wrapped = new Error('wrapped', {
      cause: Object.assign(new Error('x'), { code: '23505' }),
    });
    expect(applyErrorReason(wrapped, false)).toBe('database');
    expect(applyErrorReason(new TypeError('handler bug'), false)).toBe('handler');
    expect(applyErrorReason(Object.assign(new Error('net'), { code: 'ECONNRESET' }), false)).toBe(
      'handler',
    );
  });
});
