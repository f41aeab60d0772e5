import fc from 'fast-check';
import { jsonExcess, jsonTextTooDeep } from './json-bounds';
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

describe('jsonExcess', () => {
  it('walks parsed values iteratively and says which bound they exceed: depth or node count', () => {
    expect(jsonExcess(JSON.parse(nested(3)), 3, 100)).toBeUndefined();
    expect(jsonExcess(JSON.parse(nested(4)), 3, 100)).toBe('depth');
    expect(jsonExcess({ a: 1, b: [1, 2] }, 2, 100)).toBeUndefined();
    expect(jsonExcess({ a: 1, b: [1, 2] }, 2, 3)).toBe('nodes');
    expect(jsonExcess('text', 0, 1)).toBeUndefined();
    expect(jsonExcess(JSON.parse(nested(100_000)), 64, 1_000_000)).toBe('depth');
    // A flat array is never "too deep", however long.
    expect(jsonExcess(new Array(300_000).fill(0), 64, 100_000)).toBe('nodes');
  });
});

/** Depth and node count of a value, recursively (fine for the small values generated here). */
function measure(value: unknown): { depth: number; nodes: number } {
  if (typeof value !== 'object' || value === null) return { depth: 0, nodes: 1 };
  const children = Object.values(value).map(measure);
  return {
    depth: 1 + Math.max(0, ...children.map((c) => c.depth)),
    nodes: 1 + children.reduce((sum, c) => sum + c.nodes, 0),
  };
}

describe('jsonExcess against the measured value', () => {
  it('names a bound the value exceeds, and none only when it exceeds neither', () => {
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
          const { depth, nodes } = measure(value);
          const excess = jsonExcess(value, limit, maxNodes);
          if (excess === 'depth') expect(depth).toBeGreaterThan(limit);
          else if (excess === 'nodes') expect(nodes).toBeGreaterThan(maxNodes);
          else expect(depth <= limit && nodes <= maxNodes).toBe(true);
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
