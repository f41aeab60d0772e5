import { connect as netConnect, isIP, Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import type { ISocketFactory } from 'kafkajs';

const KEEP_ALIVE_DELAY_MS = 60_000;

/** kafkajs' own default socket factory (net or tls), for wrapping. */
const defaultSocketFactory: ISocketFactory = ({ host, port, ssl, onConnect }) => {
  const socket = ssl
    ? tlsConnect({ host, port, ...(isIP(host) ? {} : { servername: host }), ...ssl }, onConnect)
    : netConnect({ host, port }, onConnect);
  socket.setKeepAlive(true, KEEP_ALIVE_DELAY_MS);
  return socket;
};

/**
 * Tracks the sockets of one kafkajs client, so that a cancelled publish can be abandoned at
 * once (`disconnect()` waits up to `requestTimeout`). Once closed, it destroys every socket
 * the client still opens, so its retries never send the abandoned request again.
 * @internal
 */
export class SocketTracker {
  private readonly sockets = new Set<Socket>();
  private closed = false;

  constructor(private readonly base: ISocketFactory = defaultSocketFactory) {}

  /** The socket factory to give kafkajs (`KafkaConfig.socketFactory`). */
  readonly factory: ISocketFactory = (args) => {
    if (this.closed) {
      const refused = new Socket();
      process.nextTick(() => refused.destroy(new Error('kafka client abandoned')));
      return refused;
    }
    const socket = this.base(args);
    this.sockets.add(socket);
    socket.once('close', () => this.sockets.delete(socket));
    return socket;
  };

  /** Destroys every open socket and refuses new ones; returns how many were open. */
  close(): number {
    this.closed = true;
    const open = this.sockets.size;
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
    return open;
  }
}
