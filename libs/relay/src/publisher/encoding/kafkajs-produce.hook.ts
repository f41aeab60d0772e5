/* eslint-disable @typescript-eslint/no-require-imports -- kafkajs' protocol modules have no types */
import type { ProduceRequestArgs, RecordsCompressor } from './produce-request.encoder';
import { encodersAgree, type KafkajsProduceDefinition } from './encoder-self-check';

/** The only kafkajs version whose Produce bytes the relay's encoder reproduces. @internal */
export const ENCODED_KAFKAJS_VERSION = '2.2.4';

/** Marks a message object built by the relay with the encoder of its publisher. */
const FAST_RECORD = Symbol.for('@nest-outbox/relay:fast-record');

/** Encodes the body of a Produce request (one publisher's encoder). @internal */
export type ProduceEncode = (args: ProduceRequestArgs) => Buffer | Promise<Buffer>;

interface KafkajsEncoder {
  readonly buffer: Buffer;
  writeBuffer(value: Buffer): KafkajsEncoder;
  writeEncoder(value: KafkajsEncoder): KafkajsEncoder;
}

type EncoderClass = new (initialSize?: number) => KafkajsEncoder;

/**
 * A kafkajs Encoder holding `body` itself (2.2.4 keeps its bytes in `buf` up to `offset`), which
 * spares a copy of every Produce request. `install` checks the shape before it relies on it.
 */
function holding(Encoder: EncoderClass, body: Buffer): KafkajsEncoder {
  const encoder = new Encoder(1) as KafkajsEncoder & { buf: Buffer; offset: number };
  encoder.buf = body;
  encoder.offset = body.length;
  return encoder;
}

/** Whether `holding` gives an Encoder whose bytes kafkajs reads as the body's (in a request too). */
function holdsBody(Encoder: EncoderClass): boolean {
  try {
    const body = Buffer.from([1, 2, 3]);
    const request = new Encoder()
      .writeBuffer(Buffer.from([9]))
      .writeEncoder(holding(Encoder, body));
    return request.buffer.equals(Buffer.from([9, 1, 2, 3]));
  } catch {
    return false;
  }
}

/** Whether the relay's encoder is used in this process, and why not. @internal */
export type FastEncodingStatus =
  | { readonly enabled: true }
  | { readonly enabled: false; readonly reason: string };

/** `require(id)`, or undefined when it fails. */
function tryRequire<T>(id: string): T | undefined {
  try {
    return require(id) as T;
  } catch {
    return undefined;
  }
}

/** The installed kafkajs version, if it can be read. @internal */
export function installedKafkajsVersion(): string | undefined {
  return tryRequire<{ version?: string }>('kafkajs/package.json')?.version;
}

/** kafkajs' Produce request definition, or undefined when this kafkajs is shaped otherwise. @internal */
export function kafkajsProduceProtocol(): KafkajsProduceDefinition | undefined {
  type Requests = { requests?: { Produce?: KafkajsProduceDefinition } };
  const produce = tryRequire<Requests>('kafkajs/src/protocol/requests')?.requests?.Produce;
  const versions = Array.isArray(produce?.versions) ? produce.versions : [];
  if (typeof produce?.protocol !== 'function') return undefined;
  return ['3', '4', '5', '6', '7'].every((v) => versions.includes(v)) ? produce : undefined;
}

function kafkajsEncoder(): EncoderClass | undefined {
  const Encoder = tryRequire<unknown>('kafkajs/src/protocol/encoder');
  return typeof Encoder === 'function' ? (Encoder as EncoderClass) : undefined;
}

/** Why the relay's encoder cannot be used with `version` of kafkajs, or undefined. @internal */
export function fastEncodingBlocker(version = installedKafkajsVersion()): string | undefined {
  if (version !== ENCODED_KAFKAJS_VERSION)
    return `kafkajs ${version ?? '(unknown version)'} is installed; the relay's encoder reproduces the bytes of kafkajs ${ENCODED_KAFKAJS_VERSION} only`;
  if (!kafkajsProduceProtocol() || !kafkajsEncoder())
    return "kafkajs' protocol modules are not where kafkajs 2.2.4 has them";
  return undefined;
}

/** kafkajs' own codec of compression `type`, as a compressor. @internal */
export function kafkajsCompressor(type: number): RecordsCompressor {
  const { lookupCodec } = require('kafkajs/src/protocol/message/compression') as {
    lookupCodec: (type: number) => { compress: (encoder: { buffer: Buffer }) => Promise<Buffer> };
  };
  const codec = lookupCodec(type);
  return (records) => codec.compress({ buffer: records });
}

/**
 * The encoder marked on every message of the request, when it takes the fast path: the
 * relay's own non-transactional sends, all from one publisher.
 */
function markedEncoder(args: ProduceRequestArgs): ProduceEncode | undefined {
  if (args.transactionalId) return undefined;
  let encode: ProduceEncode | undefined;
  for (const topic of args.topicData)
    for (const partition of topic.partitions) {
      if (partition.messages.length === 0) return undefined;
      for (const message of partition.messages) {
        const mark = (message as { [FAST_RECORD]?: unknown })[FAST_RECORD];
        if (typeof mark !== 'function' || message.timestamp != null) return undefined;
        if (encode && mark !== encode) return undefined;
        encode = mark as ProduceEncode;
      }
    }
  return encode;
}

let installing: Promise<FastEncodingStatus> | undefined;

function install(produce: KafkajsProduceDefinition, Encoder: EncoderClass): void {
  const original = produce.protocol;
  const wrap = holdsBody(Encoder)
    ? (body: Buffer) => holding(Encoder, body)
    : (body: Buffer) => new Encoder(1).writeBuffer(body);
  produce.protocol = (lookup) => {
    const build = original(lookup);
    if (typeof build !== 'function' || lookup.version < 3 || lookup.version > 7) return build;
    return (args) => {
      const built = build(args);
      const encodeBody = markedEncoder(args);
      if (!encodeBody) return built;
      const encode = async () => wrap(await encodeBody(args));
      return { ...built, request: { ...built.request, encode } };
    };
  };
}

/**
 * Makes kafkajs encode the relay's Produce requests with the relay's encoder (one buffer per
 * request; kafkajs allocates one per record, header and varint). Only messages marked by
 * `markFastRecord` take this path; other kafkajs producers in the process keep kafkajs' encoder.
 * Once per process and fail-safe: nothing is installed unless kafkajs is exactly
 * `ENCODED_KAFKAJS_VERSION` and both encoders agree on a synthetic request (Produce v3 to v7).
 * @internal
 */
export function installFastProduceEncoding(): Promise<FastEncodingStatus> {
  installing ??= (async (): Promise<FastEncodingStatus> => {
    const blocker = fastEncodingBlocker();
    const produce = kafkajsProduceProtocol();
    const Encoder = kafkajsEncoder();
    if (blocker || !produce || !Encoder) return { enabled: false, reason: blocker ?? 'unknown' };
    if (!(await encodersAgree(produce)))
      return {
        enabled: false,
        reason: "the relay's encoder and kafkajs' disagree on the bytes of a synthetic request",
      };
    install(produce, Encoder);
    return { enabled: true };
  })();
  return installing;
}

/** Lets a kafkajs message built by the relay take the fast path with `encode`. @internal */
export function markFastRecord<T extends object>(message: T, encode: ProduceEncode): T {
  (message as { [FAST_RECORD]?: ProduceEncode })[FAST_RECORD] = encode;
  return message;
}
