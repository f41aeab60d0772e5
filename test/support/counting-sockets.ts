import { connect, type Socket } from 'node:net';
import type { ISocketFactory } from 'kafkajs';

/**
 * A kafkajs socket factory (plaintext) that counts the bytes its sockets write: what a
 * client put on the wire, Kafka framing and compression included.
 */
export function countingSockets(): { factory: ISocketFactory; bytesWritten(): number } {
  const open = new Set<Socket>();
  let closedBytes = 0;
  const factory: ISocketFactory = ({ host, port, onConnect }) => {
    const socket = connect({ host, port }, onConnect);
    open.add(socket);
    socket.once('close', () => {
      closedBytes += socket.bytesWritten;
      open.delete(socket);
    });
    return socket;
  };
  const bytesWritten = () => [...open].reduce((sum, s) => sum + s.bytesWritten, closedBytes);
  return { factory, bytesWritten };
}
