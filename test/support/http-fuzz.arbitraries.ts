import fc from 'fast-check';

/**
 * Generated HTTP requests against the sample APIs (apps/order-service, apps/shipping-service):
 * the known routes with hostile path parameters, query strings and bodies, plus unknown
 * routes and methods. Strings carry any UTF-16 unit (NUL, controls, unpaired surrogates),
 * numbers come as raw JSON literals (beyond int4, beyond float64, `-0`, exponents), bodies
 * nest, carry unknown and prototype keys, wrong types, or are not JSON at all.
 */

/**
 * A request as the fuzz test sends it; `{existing:N}` in `target` stands for a real order id
 * (the N-th of the orders created so far, modulo their count).
 */
export interface FuzzRequest {
  readonly app: 'orders' | 'shipping';
  readonly method: string;
  /** Path and query, already percent-encoded (possibly into invalid UTF-8, on purpose). */
  readonly target: string;
  readonly contentType?: string;
  readonly body?: string;
}

/** A JSON document whose numbers are kept as raw literals (`1e400` survives generation). */
export type JsonTree =
  | { readonly raw: string }
  | string
  | boolean
  | null
  | readonly JsonTree[]
  | { readonly [key: string]: JsonTree };

/** Serialises a `JsonTree`; `JSON.stringify` keeps unpaired surrogates as `\udXXX` escapes. */
export function jsonText(tree: JsonTree): string {
  if (tree === null || typeof tree !== 'object') return JSON.stringify(tree);
  if (Array.isArray(tree)) return `[${tree.map(jsonText).join(',')}]`;
  if ('raw' in tree && typeof tree.raw === 'string') return tree.raw;
  const fields = Object.entries(tree as Record<string, JsonTree>);
  return `{${fields.map(([k, v]) => `${JSON.stringify(k)}:${jsonText(v)}`).join(',')}}`;
}

/** Percent-encodes every byte but the unreserved ones (so `/`, `?`, `#` stay inside the part). */
export function percentEncode(bytes: Uint8Array): string {
  let out = '';
  for (const b of bytes) {
    const c = String.fromCharCode(b);
    out += /[A-Za-z0-9\-._~]/.test(c) ? c : `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

const encodeText = (text: string) => percentEncode(Buffer.from(text, 'utf8'));

/** Builds the arbitraries around `marker`, a text planted in most generated strings. */
export function httpRequests(marker: string): fc.Arbitrary<FuzzRequest> {
  /** Any UTF-16 code unit (unpaired surrogates included) or any code point. */
  const unit = fc.oneof(
    fc.integer({ min: 0, max: 0xffff }).map((u) => String.fromCharCode(u)),
    fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
    fc.constantFrom('\u0000', '\n', '\r', '\u001b', '\ud800', '\udfff', '\u2028', '%', '"', '\\'),
  );
  const hostile = fc.oneof(
    { arbitrary: fc.string({ unit, maxLength: 30 }), weight: 4 },
    { arbitrary: fc.string({ unit: 'grapheme', maxLength: 30 }), weight: 2 },
    { arbitrary: fc.string({ maxLength: 600 }), weight: 1 },
    {
      arbitrary: fc.constantFrom('', ' ', "' OR 1=1 --", '__proto__', 'constructor', '${x}', 'EUR'),
      weight: 1,
    },
  );
  /** A hostile string that carries the marker 3 times in 4. */
  const text = fc
    .tuple(hostile, fc.nat(3))
    .map(([s, k]) => (k === 0 ? s : `${s.slice(0, k * 5)}${marker}${s.slice(k * 5)}`));

  const rawNumber = fc.oneof(
    fc.integer().map(String),
    fc.double({ noNaN: true, noDefaultInfinity: true }).map(String),
    fc.bigInt({ min: -(10n ** 40n), max: 10n ** 40n }).map(String),
    fc.constantFrom('2147483648', '-2147483649', '2147483647', '0', '-0', '1e400', '1.0', '1e3'),
  );
  const leaf: fc.Arbitrary<JsonTree> = fc.oneof(
    text,
    rawNumber.map((raw) => ({ raw })),
    fc.boolean(),
    fc.constant(null),
    fc.uuid(),
  );
  const key = fc.oneof(
    text,
    fc.constantFrom(
      'customerId',
      'amountCents',
      'currency',
      'shippingAddress',
      'reason',
      'orderIds',
      'status',
      'version',
      '__proto__',
      'constructor',
    ),
  );
  const { tree } = fc.letrec<{ tree: JsonTree }>((tie) => ({
    tree: fc.oneof(
      { depthSize: 'small' },
      leaf,
      fc.array(tie('tree'), { maxLength: 4 }),
      fc.dictionary(key, tie('tree'), { maxKeys: 4 }),
    ),
  }));

  const field = <T extends JsonTree>(valid: fc.Arbitrary<T>) =>
    fc.oneof({ arbitrary: valid, weight: 5 }, { arbitrary: tree, weight: 1 });
  const order = fc
    .tuple(
      fc.record(
        {
          customerId: field(fc.string({ minLength: 1, maxLength: 90 }).map((s) => `${s}${marker}`)),
          amountCents: field(
            fc
              .oneof(
                { arbitrary: fc.integer({ min: 1, max: 2147483647 }), weight: 9 },
                { arbitrary: fc.constant(2147483648), weight: 1 },
              )
              .map((n) => ({ raw: String(n) })),
          ),
          currency: field(fc.constantFrom('EUR', 'USD', 'JPY', 'eur', 'EURO')),
          shippingAddress: field(
            fc.string({ minLength: 1, maxLength: 90 }).map((s) => `${marker}${s}`),
          ),
        },
        { requiredKeys: [] },
      ),
      fc.oneof(
        { arbitrary: fc.constant(null), weight: 3 },
        { arbitrary: fc.dictionary(key, tree, { minKeys: 1, maxKeys: 3 }), weight: 1 },
      ),
    )
    .map(([known, extra]): JsonTree => ({ ...(extra ?? {}), ...known }));
  /** A valid order carrying the marker: it is stored, published and shipped when confirmed. */
  const canary = fc
    .record({
      customerId: fc.string({ minLength: 1, maxLength: 20 }),
      amountCents: fc.integer({ min: 1, max: 2147483647 }),
      currency: fc.constantFrom('EUR', 'USD'),
      shippingAddress: fc.string({ minLength: 1, maxLength: 60 }),
    })
    .filter((o) => /\S/.test(o.customerId) && /\S/.test(o.shippingAddress))
    .map((o) => ({
      ...o,
      customerId: `${o.customerId}${marker}`,
      shippingAddress: `${marker}${o.shippingAddress}`,
    }));
  const lookup = fc
    .array(fc.oneof(fc.uuid(), text), { maxLength: 5 })
    .map((ids): JsonTree => ({ orderIds: ids }));
  const cancel = fc.option(text).map((reason): JsonTree => (reason === null ? {} : { reason }));
  /** Arrays nested far deeper than any validator expects, inside an object or not. */
  const deep = fc.tuple(fc.integer({ min: 10, max: 30_000 }), fc.boolean()).map(([n, wrapped]) => {
    const value = `${'['.repeat(n)}${']'.repeat(n)}`;
    return wrapped ? `{"customerId":${value}}` : value;
  });

  /** Past the body parser's limit (100 kB): 413. */
  const huge = fc
    .integer({ min: 100_000, max: 150_000 })
    .map((n) => `{"customerId":"${marker}${'a'.repeat(n)}"}`);

  const body = (typical: fc.Arbitrary<JsonTree>) =>
    fc.oneof(
      { arbitrary: typical.map(jsonText), weight: 5 },
      { arbitrary: tree.map(jsonText), weight: 2 },
      { arbitrary: deep, weight: 1 },
      { arbitrary: huge, weight: 1 },
      { arbitrary: fc.string({ unit, maxLength: 200 }).map((s) => `${s}${marker}`), weight: 1 },
      {
        arbitrary: fc
          .array(fc.tuple(text, text), { maxLength: 4 })
          .map((pairs) => pairs.map(([k, v]) => `${encodeText(k)}=${encodeText(v)}`).join('&')),
        weight: 1,
      },
    );
  const contentType = fc.constantFrom(
    'application/json',
    'application/json',
    'application/json',
    'application/json',
    'application/json',
    'application/json; charset=utf-8',
    `application/json; charset=${marker}`,
    'application/json; charset=utf-16',
    'application/x-www-form-urlencoded',
    'text/plain',
    undefined,
  );

  const pathId = fc.oneof(
    { arbitrary: fc.nat(999).map((i) => `{existing:${i}}`), weight: 3 },
    { arbitrary: fc.uuid(), weight: 2 },
    { arbitrary: text.map(encodeText), weight: 3 },
    { arbitrary: fc.uint8Array({ maxLength: 12 }).map(percentEncode), weight: 1 },
    { arbitrary: fc.constantFrom('%', '%E0%A4%A', '..%2F..', '%00'), weight: 1 },
  );
  const date = fc.oneof(
    fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
    fc.integer({ min: -300_000, max: 300_000 }).map((y) => {
      const year =
        y >= 0 && y <= 9999
          ? String(y).padStart(4, '0')
          : `${y < 0 ? '-' : '+'}${String(Math.abs(y)).padStart(6, '0')}`;
      return `${year}-01-01T00:00:00Z`;
    }),
    text,
  );
  const query = fc
    .array(fc.tuple(fc.oneof(fc.constantFrom('from', 'to'), text), date), { maxLength: 3 })
    .map((pairs) => pairs.map(([k, v]) => `${encodeText(k)}=${encodeText(v)}`).join('&'));

  const withBody = (
    app: FuzzRequest['app'],
    target: fc.Arbitrary<string>,
    typical: fc.Arbitrary<JsonTree>,
  ) =>
    fc.record({
      app: fc.constant(app),
      method: fc.constant('POST'),
      target,
      contentType,
      body: fc.option(body(typical), { freq: 8, nil: undefined }),
    });
  const read = (app: FuzzRequest['app'], target: fc.Arbitrary<string>) =>
    fc.record({ app: fc.constant(app), method: fc.constant('GET'), target });

  return fc.oneof(
    { arbitrary: withBody('orders', fc.constant('/orders'), order), weight: 6 },
    {
      arbitrary: canary.map((o) => ({
        app: 'orders' as const,
        method: 'POST',
        target: '/orders',
        contentType: 'application/json',
        body: JSON.stringify(o),
      })),
      weight: 2,
    },
    {
      arbitrary: withBody(
        'orders',
        pathId.map((id) => `/orders/${id}/confirm`),
        cancel,
      ),
      weight: 2,
    },
    {
      arbitrary: withBody(
        'orders',
        pathId.map((id) => `/orders/${id}/cancel`),
        cancel,
      ),
      weight: 2,
    },
    {
      arbitrary: read(
        'orders',
        pathId.map((id) => `/orders/${id}`),
      ),
      weight: 2,
    },
    {
      arbitrary: read(
        'orders',
        query.map((q) => `/reconciliation?${q}`),
      ),
      weight: 3,
    },
    {
      arbitrary: read(
        'shipping',
        pathId.map((id) => `/shipments/by-order/${id}`),
      ),
      weight: 2,
    },
    { arbitrary: withBody('shipping', fc.constant('/shipments/lookup'), lookup), weight: 3 },
    {
      arbitrary: fc.record({
        app: fc.constantFrom('orders' as const, 'shipping' as const),
        method: fc.constantFrom('PUT', 'DELETE', 'PATCH', 'GET', 'POST'),
        target: fc
          .tuple(fc.constantFrom('/orders', '/shipments', '/health', '/metrics', ''), pathId, query)
          .map(([base, id, q]) => `${base}/${id}?${q}`),
      }),
      weight: 1,
    },
  );
}
