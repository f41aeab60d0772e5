import { FetchGuardError } from './fetch-guard.error';

/**
 * Splits one direction of a Kafka connection into whole frames (int32 size prefix included),
 * whatever the chunking: a frame over several chunks, several frames in one. @internal
 */
export class KafkaFrames {
  private chunks: Buffer[] = [];
  private buffered = 0;
  private needed = 4;

  /** The frames `chunk` completes, in order (views of the received bytes). */
  push(chunk: Buffer): Buffer[] {
    let data = chunk;
    if (this.buffered > 0) {
      this.chunks.push(chunk);
      this.buffered += chunk.length;
      if (this.buffered < this.needed) return [];
      data = Buffer.concat(this.chunks, this.buffered);
    }
    const frames: Buffer[] = [];
    let at = 0;
    this.needed = 4;
    while (data.length - at >= 4) {
      const size = data.readInt32BE(at);
      if (size < 0)
        throw new FetchGuardError(
          `a Kafka frame declares ${size} bytes: the connection is closed and kafkajs reconnects`,
        );
      if (data.length - at - 4 < size) {
        this.needed = 4 + size;
        break;
      }
      frames.push(data.subarray(at, at + 4 + size));
      at += 4 + size;
    }
    this.chunks = at < data.length ? [data.subarray(at)] : [];
    this.buffered = data.length - at;
    return frames;
  }
}
