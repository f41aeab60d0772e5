import type { FuzzRequest } from './http-fuzz.arbitraries';

/**
 * Requests the HTTP fuzz test once found answered 5xx (or worse), replayed first in every
 * run. Each names the seed (`FUZZ_HTTP_SEED`) and the path that found it, and what it broke.
 */
export const HTTP_FUZZ_REGRESSIONS: readonly FuzzRequest[] = [
  // Seed 20261203, path "11": a nested object with its own "constructor" key made
  // class-transformer 0.5.1 throw a TypeError inside the ValidationPipe (500).
  {
    app: 'orders',
    method: 'POST',
    target: '/orders',
    contentType: 'application/json',
    body: '{"orderIds":{"constructor":[[{"reason":false}]]},"customerId":"c","currency":"eur"}',
  },
  // Found writing the fix: a top-level "constructor" key passed the pipe (overwritten, not
  // refused as an unknown field) and reached the handler.
  {
    app: 'orders',
    method: 'POST',
    target: '/orders',
    contentType: 'application/json',
    body: '{"customerId":"c","amountCents":5,"currency":"EUR","shippingAddress":"a","constructor":1}',
  },
];
