import { UnexpectedRowCountError } from '../errors/unexpected-row-count.error';
import { expectRowCount } from './expect-row-count';
import { idempotencyKey } from './idempotency-key';

describe('idempotencyKey', () => {
  const id = '01890a5d-ac96-774b-bcce-b302099a8057';
  it('is stable for one event, consumer and purpose, and differs otherwise', () => {
    expect(idempotencyKey(id, 'shipping', 'label')).toBe(
      idempotencyKey(id.toUpperCase(), 'shipping', 'label'),
    );
    expect(idempotencyKey(id, 'shipping', 'label')).not.toBe(
      idempotencyKey(id, 'shipping', 'email'),
    );
    expect(idempotencyKey(id, 'shipping')).not.toBe(idempotencyKey(id, 'billing'));
    expect(idempotencyKey(id, 'shipping')).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
  });
});

describe('expectRowCount', () => {
  it('accepts TypeORM, pg and EntityManager.query results with the expected count', () => {
    expect(() => expectRowCount({ affected: 1 }, 1)).not.toThrow();
    expect(() => expectRowCount({ rowCount: 2 }, 2)).not.toThrow();
    expect(() => expectRowCount([[], 1], 1)).not.toThrow();
    expect(() => expectRowCount([{ id: 1 }], 1)).not.toThrow();
  });

  it('throws a typed error naming the statement when the count differs', () => {
    expect(() => expectRowCount([[], 0], 1, 'projection update')).toThrow(UnexpectedRowCountError);
    expect(() => expectRowCount({ affected: 0 }, 1, 'projection update')).toThrow(
      /projection update: expected 1 row\(s\)/,
    );
  });
});
