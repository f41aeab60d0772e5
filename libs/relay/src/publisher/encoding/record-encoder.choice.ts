import type { Logger } from '@nestjs/common';
import type { Message } from 'kafkajs';
import { hasKafkaErrorType } from '../../errors/error-classifier';
import {
  installFastProduceEncoding,
  kafkajsCompressor,
  markFastRecord,
  type ProduceEncode,
} from './kafkajs-produce.hook';
import {
  encodeCompressedProduceRequest,
  encodeProduceRequest,
  type ProduceRequestArgs,
} from './produce-request.encoder';

/**
 * Who encodes the relay's Produce requests: `relay` (its own encoder, the default) or
 * `kafkajs`. Both put the same bytes on the wire.
 * @publicApi
 */
export type KafkaRecordEncoder = 'relay' | 'kafkajs';

/** Broker answers that say the request's bytes were wrong. */
const REFUSED_BYTES = new Set(['CORRUPT_MESSAGE', 'INVALID_RECORD']);

/**
 * The encoder of one publisher's requests: the relay's when asked for and the process-wide
 * checks passed; kafkajs' for good, with a warning, when a check fails or the broker refuses
 * the bytes of a request the relay's encoder built.
 * @internal
 */
export class RecordEncoderChoice {
  private active: boolean | undefined;
  private settling: Promise<void> | undefined;
  private readonly encodeBound: ProduceEncode = (args) => this.encode(args);

  constructor(
    wanted: KafkaRecordEncoder = 'relay',
    private readonly logger: Logger,
  ) {
    if (wanted === 'kafkajs') this.active = false;
  }

  /** The relay's encoding of a request: compressed batches with kafkajs' codec of it. */
  protected encode(args: ProduceRequestArgs): Buffer | Promise<Buffer> {
    const compression = args.compression ?? 0;
    if (compression === 0) return encodeProduceRequest(args);
    return encodeCompressedProduceRequest(args, kafkajsCompressor(compression));
  }

  /** True while the relay's encoder builds this publisher's requests. */
  get fast(): boolean {
    return this.active === true;
  }

  /** Settles the starting encoder (the process-wide checks run once). */
  settle(): Promise<void> {
    if (this.active !== undefined) return Promise.resolve();
    this.settling ??= installFastProduceEncoding().then((status) => {
      this.active = status.enabled;
      if (!status.enabled)
        this.logger.warn(`records are encoded by kafkajs' own (slower) encoder: ${status.reason}`);
    });
    return this.settling;
  }

  /** Marks a kafkajs message for the relay's encoder while it is active. */
  mark(message: Message): Message {
    return this.active ? markFastRecord(message, this.encodeBound) : message;
  }

  /**
   * Whether `error`, from a request built while `wasFast`, is the broker refusing the relay's
   * bytes: then this publisher switches to kafkajs' encoder for good and the caller retries.
   */
  fallBackOn(error: unknown, wasFast: boolean): boolean {
    if (!wasFast || !hasKafkaErrorType(error, REFUSED_BYTES)) return false;
    if (this.active) {
      this.active = false;
      this.logger.warn(
        "the broker refused a request built by the relay's encoder (CORRUPT_MESSAGE or INVALID_RECORD): " +
          "this publisher encodes with kafkajs' encoder from now on and retries the request (nothing is parked for it)",
      );
    }
    return true;
  }
}
