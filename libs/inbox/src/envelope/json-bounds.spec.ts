import fc from 'fast-check';
import { jsonTextTooDeep, valueTooDeep } from './json-bounds';
import { valueByteLength, valueBytes } from './record-parts';

const nested = (n: number) => '['.repeat(n) + ']'.repeat(n);

describe('jsonTextTooDeep', () => {
  it('counts arrays and objects, not brackets inside strings', () => {
    expect(jsonTextTooDeep(nested(3), 3)).toBe(false);
    expect(jsonTextTooDeep(nested(4), 3)).toBe(true);
    expect(jsonTextTooDeep('{"a":{"b":[1]}}', 3)).toBe(false);
    expect(jsonTextTooDeep('{"a":{"b":[{}]}}', 3)).toBe(true);
    expect(jsonTextTooDeep('["[[[[[[", "\\"[[[["]', 2)).toBe(false);
  });

  it('scans 100,000 levels without recursion', () => {
    expect(jsonTextTooDeep(nested(100_000), 64)).toBe(true);
  });
});

describe('valueTooDeep', () => {
  it('walks parsed values iteratively, bounded by depth and node count', () => {
    expect(valueTooDeep(JSON.parse(nested(3)), 3, 100)).toBe(false);
    expect(valueTooDeep(JSON.parse(nested(4)), 3, 100)).toBe(true);
    expect(valueTooDeep({ a: 1, b: [1, 2] }, 2, 100)).toBe(false);
    expect(valueTooDeep({ a: 1, b: [1, 2] }, 2, 3)).toBe(true);
    expect(valueTooDeep('text', 0, 1)).toBe(false);
    expect(valueTooDeep(JSON.parse(nested(100_000)), 64, 1_000_000)).toBe(true);
  });
});

/** The walk's definition, recursively (fine for the small values generated here). */
function reference(value: unknown, limit: number, maxNodes: number): boolean {
  let nodes = 0;
  const deep = (v: unknown, depth: number): boolean => {
    if (++nodes > maxNodes) return true;
    if (typeof v !== 'object' || v === null || Buffer.isBuffer(v)) return false;
    if (depth + 1 > limit) return true;
    return Object.values(v).some((child) => deep(child, depth + 1));
  };
  return deep(value, 0);
}

describe('valueTooDeep against its recursive definition', () => {
  it('gives the same answer for any JSON value, depth limit and node budget', () => {
    fc.assert(
      fc.property(
        // Flat arrays and objects too: they take the walk's allocation-free path.
        fc.oneof(
          fc.jsonValue({ maxDepth: 6 }),
          fc.array(fc.oneof(fc.integer(), fc.string(), fc.constant(null))),
          fc.dictionary(fc.string(), fc.oneof(fc.double(), fc.boolean())),
        ),
        fc.integer({ min: 0, max: 7 }),
        fc.integer({ min: 0, max: 60 }),
        (value, limit, maxNodes) => {
          expect(valueTooDeep(value, limit, maxNodes)).toBe(reference(value, limit, maxNodes));
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('valueByteLength', () => {
  it('is the length valueBytes gives, for parsed values, text and bytes, without the buffer', () => {
    const values = fc.oneof(
      fc.jsonValue({ maxDepth: 5 }),
      fc.string({ unit: 'grapheme' }),
      fc.uint8Array().map((bytes) => Buffer.from(bytes)),
      fc.constantFrom(undefined, null),
    );
    fc.assert(
      fc.property(values, (value) => {
        expect(valueByteLength(value)).toBe(valueBytes(value)?.length);
        // A value whose nesting is known bounded is not walked again: same length.
        expect(valueByteLength(value, 64)).toBe(valueBytes(value)?.length);
      }),
      { numRuns: 500 },
    );
  });

  it('gives no length for a parsed value too deep to serialise again', () => {
    const deep = JSON.parse('['.repeat(2_000) + ']'.repeat(2_000)) as unknown;
    expect(valueByteLength(deep)).toBeUndefined();
    expect(valueBytes(deep)).toBeUndefined();
  });
});
