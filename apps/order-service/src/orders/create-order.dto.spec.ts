import type { ArgumentMetadata } from '@nestjs/common';
import { InvalidRequestException, RequestValidationPipe } from '../../../common/src';
import { CreateOrderDto } from './create-order.dto';

const pipe = new RequestValidationPipe();
const metadata: ArgumentMetadata = { type: 'body', metatype: CreateOrderDto };

async function fieldsRejected(body: unknown): Promise<string[]> {
  const error: unknown = await pipe.transform(body, metadata).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(InvalidRequestException);
  return ((error as InvalidRequestException).getResponse() as { fields: string[] }).fields;
}

describe('CreateOrderDto through the global validation pipe (unit)', () => {
  const valid = {
    customerId: 'c-1',
    amountCents: 1250,
    currency: 'EUR',
    shippingAddress: '1 Main St',
  };

  it('Given a complete body, then it yields exactly the order fields', async () => {
    const dto = await pipe.transform(valid, metadata);
    expect(dto).toBeInstanceOf(CreateOrderDto);
    expect({ ...(dto as object) }).toEqual(valid);
  });

  it('Given the largest integer the column holds, then it is accepted', async () => {
    await expect(pipe.transform({ ...valid, amountCents: 2147483647 }, metadata)).resolves.toEqual({
      ...valid,
      amountCents: 2147483647,
    });
  });

  it.each([
    ['no body', undefined, ['customerId', 'amountCents', 'currency', 'shippingAddress']],
    [
      'fields the client may not set',
      { ...valid, status: 'confirmed', version: 9 },
      ['status', 'version'],
    ],
    ['a zero amount', { ...valid, amountCents: 0 }, ['amountCents']],
    ['a fractional amount', { ...valid, amountCents: 12.5 }, ['amountCents']],
    ['an amount beyond the integer column', { ...valid, amountCents: 2147483648 }, ['amountCents']],
    ['an amount as a string', { ...valid, amountCents: '1250' }, ['amountCents']],
    ['a lower-case currency', { ...valid, currency: 'eur' }, ['currency']],
    ['an empty customer', { ...valid, customerId: ' ' }, ['customerId']],
    ['a customer with a NUL', { ...valid, customerId: 'c\u00001' }, ['customerId']],
    ['a customer as an object', { ...valid, customerId: { $gt: '' } }, ['customerId']],
    [
      'an address with an unpaired surrogate',
      { ...valid, shippingAddress: 'x\ud800' },
      ['shippingAddress'],
    ],
    [
      'an address of 501 characters',
      { ...valid, shippingAddress: 'a'.repeat(501) },
      ['shippingAddress'],
    ],
    ['no shipping address', { ...valid, shippingAddress: undefined }, ['shippingAddress']],
  ])('Given %s, then it answers 400 naming %j', async (_case, body, fields) => {
    expect(await fieldsRejected(body)).toEqual(fields);
  });
});
