import { BadRequestException } from '@nestjs/common';
import { parseCreateOrder } from './create-order.input';

describe('parseCreateOrder (unit)', () => {
  const valid = {
    customerId: 'c-1',
    amountCents: 1250,
    currency: 'EUR',
    shippingAddress: '1 Main St',
  };

  it('Given a complete body, then it returns exactly the order fields', () => {
    expect(parseCreateOrder({ ...valid, status: 'confirmed', version: 9 })).toEqual(valid);
  });

  it.each([
    ['no body', undefined],
    ['a zero amount', { ...valid, amountCents: 0 }],
    ['a fractional amount', { ...valid, amountCents: 12.5 }],
    ['a lower-case currency', { ...valid, currency: 'eur' }],
    ['an empty customer', { ...valid, customerId: ' ' }],
    ['no shipping address', { ...valid, shippingAddress: undefined }],
  ])('Given %s, then it answers 400', (_case, body) => {
    expect(() => parseCreateOrder(body)).toThrow(BadRequestException);
  });
});
