import { connect as connectTcp, isIP, type Socket } from 'node:net';
import { Duplex } from 'node:stream';
import { connect as connectTls } from 'node:tls';
import type { ISocketFactory } from 'kafkajs';
import { FetchGuardError } from './fetch-guard.error';
import { FETCH, rewriteFetchResponse, type OutOfRangeHandler } from './fetch-response.rewriter';
import { KafkaFrames } from './kafka-frames';

/** What the inbox's kafkajs sockets do besides guarding record batches. @internal */
export interface FetchGuardOptions {
  /** The connections underneath: the application's `socketFactory`, else kafkajs' default. */
  readonly sockets?: ISocketFactory;
  /** Takes over OffsetOutOfRange answers (see `OutOfRangeHandler`). */
  readonly onOutOfRange?: OutOfRangeHandler;
}

/** kafkajs' default sockets (src/network/socketFactory.js): TCP or TLS, keep-alive after 60 s. */
const kafkajsSockets: ISocketFactory = ({ host, port, ssl, onConnect }) => {
  const socket = ssl
    ? connectTls({ host, port, ...(isIP(host) ? {} : { servername: host }), ...ssl }, onConnect)
    : connectTcp({ host, port }, onConnect);
  return socket.setKeepAlive(true, 60_000);
};

/**
 * kafkajs' documented `socketFactory` for the inbox's client: each connection runs through a
 * `FetchGuardSocket`, so every Fetch response is guarded (`rewriteFetchResponse`) before kafkajs
 * decodes it. Works with any kafkajs that reads record batches with Fetch v4-v11 (2.2.x).
 * @internal
 */
export function fetchGuard(options: FetchGuardOptions = {}): ISocketFactory {
  const sockets = options.sockets ?? kafkajsSockets;
  // kafkajs' Connection uses only `on`, `write`, `end` and `unref` of its socket.
  return (args) => new FetchGuardSocket(sockets(args), options.onOutOfRange) as unknown as Socket;
}

/**
 * A Kafka connection as kafkajs sees it: requests go to `socket` unchanged (Fetch requests are
 * remembered by correlation id), responses come back in order, Fetch responses rewritten.
 * @internal
 */
export class FetchGuardSocket extends Duplex {
  private readonly fetches = new Map<number, { version: number; request: Buffer }>();
  private readonly requests = new KafkaFrames();
  private readonly responses = new KafkaFrames();
  /** The last response still being rewritten; later ones wait for it. */
  private pending: Promise<void> | undefined;

  constructor(
    private readonly socket: Socket,
    private readonly onOutOfRange?: OutOfRangeHandler,
  ) {
    super({ allowHalfOpen: false });
    socket.on('data', (chunk: Buffer) => this.received(chunk));
    socket.on('end', () => this.deliver(null));
    socket.on('error', (error) => this.destroy(error));
    socket.on('timeout', () => this.emit('timeout'));
  }

  override _read(): void {
    // Responses are pushed as they arrive.
  }

  override _write(
    chunk: Buffer,
    _encoding: string,
    callback: (error?: Error | null) => void,
  ): void {
    try {
      for (const frame of this.requests.push(chunk)) this.sent(frame);
    } catch (error) {
      return callback(error as Error);
    }
    this.socket.write(chunk, callback);
  }

  override _final(callback: () => void): void {
    this.socket.end();
    callback();
  }

  override _destroy(error: Error | null, callback: (error: Error | null) => void): void {
    this.socket.destroy();
    callback(error);
  }

  unref(): this {
    this.socket.unref();
    return this;
  }

  private sent(frame: Buffer): void {
    if (frame.length < 12 || frame.readInt16BE(4) !== FETCH.apiKey) return;
    const version = frame.readInt16BE(6);
    if (version < FETCH.minVersion || version > FETCH.maxVersion)
      throw new FetchGuardError(
        `kafkajs sent Fetch v${version}; the inbox reads record batches of Fetch v${FETCH.minVersion}-v${FETCH.maxVersion} ` +
          '(kafkajs 2.2.x and a Kafka >= 0.11 broker): use kafkajs 2.2.x and a supported broker',
      );
    this.fetches.set(frame.readInt32BE(8), { version, request: Buffer.from(frame) });
  }

  private received(chunk: Buffer): void {
    let frames: Buffer[];
    try {
      frames = this.responses.push(chunk);
    } catch (error) {
      return void this.destroy(error as Error);
    }
    for (const frame of frames) {
      const correlationId = frame.length >= 8 ? frame.readInt32BE(4) : -1;
      const fetch = this.fetches.get(correlationId);
      if (!fetch) {
        this.deliver(frame);
        continue;
      }
      this.fetches.delete(correlationId);
      const { version, request } = fetch;
      this.deliver(rewriteFetchResponse(frame, version, request, this.onOutOfRange));
    }
  }

  /** Pushes `next` (null: the end) after every response before it, in arrival order. */
  private deliver(next: Buffer | Promise<Buffer> | null): void {
    if (this.pending === undefined && Buffer.isBuffer(next)) {
      this.push(next);
      return;
    }
    if (next instanceof Promise) next.catch(() => undefined); // handled in turn below
    const tail: Promise<void> = (this.pending ?? Promise.resolve())
      .then(() => next)
      .then(
        (bytes) => void (this.destroyed || this.push(bytes)),
        (error: Error) => void this.destroy(error),
      )
      .finally(() => {
        if (this.pending === tail) this.pending = undefined;
      });
    this.pending = tail;
  }
}
