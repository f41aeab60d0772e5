/* eslint-disable @typescript-eslint/no-require-imports -- kafkajs' protocol modules have no types */
import { encodeProduceRequest, type ProduceRequestArgs } from './produce-request.encoder';

/** Marks a message object built by the relay: only such messages take the fast encoder. */
const FAST_RECORD = Symbol.for('@nest-outbox/relay:fast-record');

interface KafkajsEncoder {
  readonly buffer: Buffer;
  writeBuffer(value: Buffer): KafkajsEncoder;
}

interface KafkajsRequest {
  readonly apiVersion: number;
  encode(): Promise<KafkajsEncoder>;
}

type ProduceBuilder = (args: ProduceRequestArgs & { readonly compression?: number }) => {
  request: KafkajsRequest;
  response: unknown;
};

/** kafkajs' Produce request definition (`requests.Produce`), as 2.2.x shapes it. @internal */
export interface KafkajsProduceDefinition {
  readonly versions: readonly string[];
  protocol: (lookup: { version: number }) => ProduceBuilder;
}

/** kafkajs' Produce request definition, or undefined when this kafkajs is shaped otherwise. @internal */
export function kafkajsProduceProtocol(): KafkajsProduceDefinition | undefined {
  try {
    const { requests } = require('kafkajs/src/protocol/requests') as {
      requests?: { Produce?: KafkajsProduceDefinition };
    };
    const produce = requests?.Produce;
    const versions = produce?.versions ?? [];
    if (typeof produce?.protocol !== 'function') return undefined;
    if (!['3', '4', '5', '6', '7'].every((v) => versions.includes(v))) return undefined;
    return produce;
  } catch {
    return undefined;
  }
}

function kafkajsEncoder(): (new (initialSize?: number) => KafkajsEncoder) | undefined {
  try {
    const Encoder = require('kafkajs/src/protocol/encoder') as unknown;
    return typeof Encoder === 'function'
      ? (Encoder as new (initialSize?: number) => KafkajsEncoder)
      : undefined;
  } catch {
    return undefined;
  }
}

/** Fast path only for what it encodes exactly: the relay's own, uncompressed, idempotent sends. */
function takesFastPath(args: Parameters<ProduceBuilder>[0]): boolean {
  if ((args.compression ?? 0) !== 0 || args.transactionalId) return false;
  for (const topic of args.topicData)
    for (const partition of topic.partitions) {
      if (partition.messages.length === 0) return false;
      for (const message of partition.messages)
        if (
          (message as { [FAST_RECORD]?: true })[FAST_RECORD] !== true ||
          message.timestamp != null
        )
          return false;
    }
  return true;
}

let installed: boolean | undefined;
let encodedRequests = 0;

/** Produce requests encoded by the fast path in this process so far (for tests). @internal */
export function fastEncodedRequests(): number {
  return encodedRequests;
}

/**
 * Makes kafkajs encode the relay's Produce requests with `encodeProduceRequest` (one buffer
 * per request) instead of its own encoder, which allocates a buffer per record, per header and
 * per varint and cost more Node CPU than the rest of the relay. Same bytes on the wire: the
 * unit specs compare both encoders byte for byte, the integration specs consume what the
 * broker stored. Only messages marked by `markFastRecord` take this path; every other kafkajs
 * producer in the process keeps kafkajs' encoder. Installed once per process (kafkajs'
 * protocol table is shared by its clients), idempotent; false when this kafkajs is not shaped
 * like 2.2.x, and then nothing changes.
 * @internal
 */
export function installFastProduceEncoding(): boolean {
  if (installed !== undefined) return installed;
  const produce = kafkajsProduceProtocol();
  const Encoder = kafkajsEncoder();
  if (!produce || !Encoder) return (installed = false);
  const original = produce.protocol;
  produce.protocol = (lookup) => {
    const build = original(lookup);
    if (typeof build !== 'function' || lookup.version < 3 || lookup.version > 7) return build;
    return (args) => {
      const built = build(args);
      if (!takesFastPath(args)) return built;
      const encode = () => {
        encodedRequests++;
        return Promise.resolve(new Encoder(1).writeBuffer(encodeProduceRequest(args)));
      };
      return { ...built, request: { ...built.request, encode } };
    };
  };
  return (installed = true);
}

/** Lets a kafkajs message built by the relay take the fast encoder. @internal */
export function markFastRecord<T extends object>(message: T): T {
  (message as { [FAST_RECORD]?: true })[FAST_RECORD] = true;
  return message;
}
