import type { KafkaMessage } from 'kafkajs';
import { unpackHeaders } from '../kafkajs/header-decoding';
import type { FetchedRecord } from './fetched-batch';

/**
 * A fetched record in the shape Nest's `KafkaParser` and the inbox read under `ServerKafka`: string
 * header names, a repeated header as an array of its values. The record-batch guard already
 * replaced too many headers by its marker and packed many into one header: unpacked here as the
 * kafkajs path does. @internal
 */
export function messageOf(record: FetchedRecord): KafkaMessage {
  const headers: Record<string, Buffer | string | (Buffer | string)[]> = {};
  for (const [k, v] of record.headers) {
    const name = k === null ? 'null' : k.toString();
    const value = v ?? Buffer.alloc(0);
    const previous = Object.hasOwn(headers, name) ? headers[name] : undefined;
    if (Array.isArray(previous)) previous.push(value);
    else
      Object.defineProperty(headers, name, {
        value: previous === undefined ? value : [previous, value],
        writable: true,
        enumerable: true,
        configurable: true,
      });
  }
  return {
    key: record.key,
    value: record.value,
    headers: unpackHeaders(headers) ?? headers,
    offset: String(record.offset),
    timestamp: String(record.timestamp),
    attributes: 0,
  };
}
