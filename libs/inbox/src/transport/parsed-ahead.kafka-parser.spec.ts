import { ParsedAheadKafkaParser } from './parsed-ahead.kafka-parser';

describe('ParsedAheadKafkaParser', () => {
  it("hands a record parsed ahead to the server's next parse of it, once, then parses afresh", () => {
    const parser = new ParsedAheadKafkaParser();
    const message = {
      offset: '1',
      value: Buffer.from('{"a":1}'),
      headers: { h: Buffer.from('x') },
    };
    const ahead = parser.parseAhead<{ value: unknown; headers: unknown }>(message);
    expect(ahead).toMatchObject({ value: { a: 1 }, headers: { h: 'x' } });
    expect(parser.parse(message)).toBe(ahead);
    const again = parser.parse<object>(message);
    expect(again).not.toBe(ahead);
    expect(again).toEqual(ahead);
  });

  it('keeps nothing for a record parsed ahead without keep (it will not reach handleMessage)', () => {
    const parser = new ParsedAheadKafkaParser();
    const message = { offset: '2', value: Buffer.from('[1,2]'), headers: {} };
    const ahead = parser.parseAhead<object>(message, false);
    const parsed = parser.parse<object>(message);
    expect(parsed).not.toBe(ahead);
    expect(parsed).toEqual(ahead);
  });
});
