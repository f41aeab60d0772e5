import { KafkaParser } from '@nestjs/microservices';

/**
 * Nest's `KafkaParser` that parses a record ahead (to register a chunk's rows from what the
 * guards will see) and hands that result to `handleMessage` instead of parsing twice. @internal
 */
export class ParsedAheadKafkaParser extends KafkaParser {
  private readonly ahead = new WeakMap<object, unknown>();

  /**
   * Parses `data` now. With `keep` (default), the next `parse(data)` returns this result;
   * without it nothing is kept (the record will not go through `handleMessage`).
   */
  parseAhead<T>(data: object, keep = true): T {
    const parsed = super.parse<T>(data);
    if (keep) this.ahead.set(data, parsed);
    return parsed;
  }

  override parse<T>(data: unknown): T {
    if (typeof data === 'object' && data !== null) {
      const parsed = this.ahead.get(data);
      if (parsed !== undefined) {
        this.ahead.delete(data);
        return parsed as T;
      }
    }
    return super.parse<T>(data);
  }
}
