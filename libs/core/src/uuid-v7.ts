import { v7, validate } from 'uuid';

/**
 * A UUIDv7 (RFC 9562): 48-bit Unix milliseconds first, then a counter that keeps the ids this
 * process generates increasing, even within one millisecond or when the clock steps back.
 * @publicApi
 */
export function uuidv7(): string {
  return v7();
}

/** True for a canonical RFC 9562 UUID string (any version, nil and max included). @publicApi */
export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && validate(value);
}
