import type { KafkaMessage } from 'kafkajs';
import { MAX_RECORD_HEADERS, TOO_MANY_HEADERS_HEADER } from '../kafkajs/header-decoding';
import { UNDECODABLE_BATCH_HEADER } from '../kafkajs/undecodable-batch';
import type { FetchedRecord } from './fetched-batch';

/**
 * A fetched record in the shape Nest's `KafkaParser` and the inbox read under `ServerKafka`: string
 * header names, a repeated header as an array of its values; more than `MAX_RECORD_HEADERS`
 * headers become the one marker header the decoder rejects (`too_many_headers`), and an
 * undecodable batch's offsets the marker of that (`undecodable_batch`). @internal
 */
export function messageOf(record: FetchedRecord): KafkaMessage {
  const { undecodable } = record;
  const headers: Record<string, Buffer | string | (Buffer | string)[]> = {};
  if (undecodable !== undefined) headers[UNDECODABLE_BATCH_HEADER] = undecodable;
  else if (record.headers.length > MAX_RECORD_HEADERS)
    headers[TOO_MANY_HEADERS_HEADER] = String(record.headers.length);
  else
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
    headers,
    offset: String(record.offset),
    timestamp: String(record.timestamp),
    attributes: 0,
  };
}
