import type { JetStreamClient } from '@nats-io/jetstream';
import type { ConnectionOptions, NatsConnection } from '@nats-io/nats-core';
import { UnencodableEventError } from '../errors/unencodable-event.error';
import { rejectOnAbort } from '../publisher/kafka-client.support';
import type {
  PublishAck,
  PublishRecord,
  RelayPublisher,
} from '../publisher/relay-publisher.interface';
import { JetStreamPublishError, jetStreamError } from './jetstream-publish.error';
import { jetStreamMessage, type JetStreamMessage } from './jetstream-message';
import { loadNatsJetStream, type NatsJetStreamModules } from './nats-jetstream.loader';

interface Link {
  readonly nc: NatsConnection;
  readonly js: JetStreamClient;
}

const abortError = (signal: AbortSignal): Error =>
  signal.reason instanceof Error ? signal.reason : new Error('publish aborted');

/**
 * NATS JetStream adapter (`broker: 'nats-jetstream'`). Each record goes to subject
 * `<topic>.<aggregate id token>` with `Nats-Msg-Id` = event id, so a republish after a crash
 * is stored once within the stream's duplicate_window. Aggregates are published side by side;
 * the events of one aggregate one after the other, each sent once the previous one's PubAck
 * came back, so a failed event never has a later one of its aggregate stored before it. A
 * failure stops every aggregate at its next event; `publish` settles only when nothing of it
 * is in flight. On abort the connection is closed (what it still buffers is dropped); the next
 * publish opens a new one.
 * @internal
 */
export class NatsJetStreamPublisher implements RelayPublisher {
  private readonly nats: NatsJetStreamModules = loadNatsJetStream();
  private link: Promise<Link> | undefined;

  /**
   * @param connectOptions `ConnectionOptions` of `@nats-io/transport-node`
   * @param timeoutMs how long one publish waits for its PubAck
   */
  constructor(
    private readonly connectOptions: Record<string, unknown>,
    private readonly timeoutMs = 10_000,
  ) {}

  async connect(): Promise<void> {
    await this.open();
  }

  private open(): Promise<Link> {
    if (this.link) return this.link;
    const opening = this.nats.transport
      .connect(this.connectOptions as ConnectionOptions)
      .then((nc): Link => {
        void nc.closed().then(() => this.forget(opening));
        return { nc, js: this.nats.jetstream.jetstream(nc, { timeout: this.timeoutMs }) };
      });
    opening.catch(() => this.forget(opening));
    return (this.link = opening);
  }

  private forget(link: Promise<Link>): void {
    if (this.link === link) this.link = undefined;
  }

  async publish(records: readonly PublishRecord[], signal: AbortSignal): Promise<PublishAck[]> {
    if (signal.aborted) throw abortError(signal);
    const headers = this.nats.core.headers;
    const messages = records.map((r) => jetStreamMessage(r, () => headers()));
    const abort = rejectOnAbort(signal);
    const opening = this.open();
    try {
      const link = await Promise.race([opening, abort.promise]);
      refuseOversize(messages, link.nc.info?.max_payload);
      const acks = new Array<PublishAck>(records.length);
      const sending = this.sendAll(link, messages, acks, signal);
      sending.catch(() => undefined);
      await Promise.race([sending, abort.promise]);
      return acks;
    } catch (error) {
      if (signal.aborted) {
        this.drop(opening);
        throw abortError(signal);
      }
      if (error instanceof JetStreamPublishError || error instanceof UnencodableEventError)
        throw error;
      throw jetStreamError(error, messages[0]?.subject ?? '?');
    } finally {
      abort.dispose();
    }
  }

  /** Every aggregate's chain; the first failure, once no chain has a publish in flight. */
  private async sendAll(
    link: Link,
    messages: readonly JetStreamMessage[],
    acks: PublishAck[],
    signal: AbortSignal,
  ): Promise<void> {
    const chains = new Map<string, number[]>();
    messages.forEach((m, i) => {
      const chain = chains.get(m.aggregate);
      if (chain) chain.push(i);
      else chains.set(m.aggregate, [i]);
    });
    let failure: { error: unknown } | undefined;
    const send = async (chain: readonly number[]) => {
      for (const i of chain) {
        if (failure || signal.aborted) return;
        const { subject, data, headers } = messages[i]!;
        try {
          const ack = await link.js.publish(subject, data, { headers, timeout: this.timeoutMs });
          acks[i] = { partition: 0, offset: String(ack.seq) };
        } catch (error) {
          failure ??= { error: jetStreamError(error, subject) };
          return;
        }
      }
    };
    await Promise.all([...chains.values()].map(send));
    if (failure) throw failure.error;
  }

  /** Closes a connection (after an abort): its buffered publishes are dropped, not sent later. */
  private drop(opening: Promise<Link>): void {
    this.forget(opening);
    opening.then(({ nc }) => nc.close()).catch(() => undefined);
  }

  async ping(timeoutMs: number): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<false>(
      (resolve) => (timer = setTimeout(resolve, timeoutMs, false)),
    );
    const probe = this.open().then(
      ({ nc }) => nc.flush().then(() => true),
      () => false,
    );
    probe.catch(() => undefined);
    const ok = await Promise.race([probe.catch(() => false), timeout]);
    clearTimeout(timer);
    return ok;
  }

  /** Drains the connection; after `graceMs` it is closed, whatever is still pending. */
  async disconnect(graceMs = 1000): Promise<void> {
    const opening = this.link;
    this.link = undefined;
    const nc = await opening?.then(({ nc }) => nc).catch(() => undefined);
    if (!nc || nc.isClosed()) return;
    let timer: NodeJS.Timeout | undefined;
    const draining = nc.drain().catch(() => undefined);
    await Promise.race([
      draining,
      new Promise((resolve) => (timer = setTimeout(resolve, graceMs))),
    ]);
    clearTimeout(timer);
    if (!nc.isClosed()) await nc.close().catch(() => undefined);
  }
}

/** A message over the server's `max_payload` is refused before anything is sent. */
function refuseOversize(
  messages: readonly JetStreamMessage[],
  maxPayload: number | undefined,
): void {
  if (!maxPayload) return;
  const big = messages.find((m) => m.bytes > maxPayload);
  if (big)
    throw new JetStreamPublishError(
      'MESSAGE_TOO_LARGE',
      `a message of ${big.bytes} bytes on ${JSON.stringify(big.subject)} is over the server's max_payload (${maxPayload}): raise max_payload or shrink the event`,
    );
}
