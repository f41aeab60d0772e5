import { once } from 'node:events';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { batch, recordBytes, recordBatch } from '../../test/record-batch.fixtures';
import { FetchGuardError } from './fetch-guard.error';
import { fetchGuard } from './fetch-guard.socket';
import { KafkaFrames } from './kafka-frames';

const frame = (body: Buffer) => {
  const size = Buffer.alloc(4);
  size.writeInt32BE(body.length);
  return Buffer.concat([size, body]);
};
const int = (bytes: number, value: number | bigint) => {
  const b = Buffer.alloc(bytes);
  if (bytes === 8) b.writeBigInt64BE(BigInt(value));
  else if (bytes === 4) b.writeInt32BE(Number(value));
  else b.writeInt16BE(Number(value));
  return b;
};
const str = (s: string) => Buffer.concat([int(2, Buffer.byteLength(s)), Buffer.from(s)]);

/** A Fetch v11 request for topic `t` partition 0 from `offset`. */
const fetchRequest = (correlationId: number, offset: bigint, version = 11) =>
  frame(
    Buffer.concat([
      int(2, 1),
      int(2, version),
      int(4, correlationId),
      str('c'),
      int(4, -1),
      int(4, 100),
      int(4, 1),
      int(4, 1e6),
      Buffer.from([0]),
      int(4, 0),
      int(4, -1),
      int(4, 1),
      str('t'),
      int(4, 1),
      int(4, 0),
      int(4, -1),
      int(8, offset),
      int(8, -1),
      int(4, 1e6),
      int(4, 0),
      str(''),
    ]),
  );

/** A Fetch v11 response for topic `t` partition 0 with `error` and `records`. */
const fetchResponse = (correlationId: number, records: Buffer, error = 0) =>
  frame(
    Buffer.concat([
      int(4, correlationId),
      int(4, 0),
      int(2, 0),
      int(4, 0),
      int(4, 1),
      str('t'),
      int(4, 1),
      int(4, 0),
      int(2, error),
      int(8, 10),
      int(8, 10),
      int(8, 0),
      int(4, -1),
      int(4, -1),
      int(4, records.length),
      records,
    ]),
  );

/** A loopback "broker" that answers each request frame with `answer(frame)`. */
async function broker(answer: (request: Buffer, socket: Socket) => void): Promise<Server> {
  const server = createServer((socket) => {
    const frames = new KafkaFrames();
    socket.on('data', (chunk: Buffer) => frames.push(chunk).forEach((f) => answer(f, socket)));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return server;
}

async function connect(server: Server, onOutOfRange?: Parameters<typeof fetchGuard>[0]) {
  const { port } = server.address() as AddressInfo;
  let connected!: () => void;
  const ready = new Promise<void>((resolve) => (connected = resolve));
  const socket = fetchGuard(onOutOfRange)({
    host: '127.0.0.1',
    port,
    ssl: undefined as never, // plain TCP, as kafkajs without `ssl`
    onConnect: () => connected(),
  });
  await ready;
  const received: Buffer[] = [];
  const frames = new KafkaFrames();
  socket.on('data', (chunk: Buffer) => received.push(...frames.push(chunk)));
  return { socket, received };
}

describe('fetchGuard: the inbox kafkajs socketFactory (loopback broker)', () => {
  const servers: Server[] = [];
  afterAll(() => servers.forEach((s) => s.close()));

  it('Given a gzip batch answered between other responses, split over many chunks, then it arrives uncompressed and every response keeps its order', async () => {
    const records = [
      { key: 'k', value: '{"n":1}' },
      { key: null, value: 'x' },
    ];
    const gzipped = recordBatch(5n, 1, records);
    const server = await broker((request, socket) => {
      const id = request.readInt32BE(8);
      const answer = request.readInt16BE(4) === 1 ? fetchResponse(id, gzipped) : frame(int(4, id));
      for (let at = 0; at < answer.length; at += 7) socket.write(answer.subarray(at, at + 7));
    });
    servers.push(server);
    const { socket, received } = await connect(server);
    socket.write(
      Buffer.concat([
        frame(Buffer.concat([int(2, 3), int(2, 1), int(4, 1), str('c')])),
        fetchRequest(2, 5n),
      ]),
    );
    socket.write(frame(Buffer.concat([int(2, 18), int(2, 0), int(4, 3), str('c')])));
    await waitUntil(() => received.length === 3);
    expect(received.map((f) => f.readInt32BE(4))).toEqual([1, 2, 3]);
    const fetched = received[1]!;
    const plain = batch(5n, {
      codec: 0,
      count: 2,
      lastOffsetDelta: 1,
      payload: recordBytes(records),
    });
    expect(fetched.subarray(fetched.length - plain.length).equals(plain)).toBe(true);
    socket.destroy();
  });

  it('Given kafkajs sending a Fetch version it does not read, then the connection fails with a FetchGuardError naming it', async () => {
    const server = await broker(() => undefined);
    servers.push(server);
    const { socket } = await connect(server);
    const failed = once(socket, 'error');
    socket.write(fetchRequest(1, 0n, 3));
    const [error] = (await failed) as [Error];
    expect(error).toBeInstanceOf(FetchGuardError);
    expect(error.message).toContain('Fetch v3');
  });

  it('Given OffsetOutOfRange, then the handler gets the partition and its fetch offset, and an error it takes is cleared', async () => {
    const server = await broker((request, socket) =>
      socket.write(fetchResponse(request.readInt32BE(8), Buffer.alloc(0), 1)),
    );
    servers.push(server);
    const asked: unknown[] = [];
    const { socket, received } = await connect(server, {
      onOutOfRange: (fetches) => (asked.push(...fetches), Promise.resolve(fetches.map(() => true))),
    });
    socket.write(fetchRequest(7, 1006n));
    await waitUntil(() => received.length === 1);
    expect(asked).toEqual([{ topic: 't', partition: 0, fetchOffset: 1006n }]);
    expect(received[0]!.equals(fetchResponse(7, Buffer.alloc(0), 0))).toBe(true);
    socket.destroy();
  });
});

describe('KafkaFrames', () => {
  it('Given frames split and joined at every byte boundary, then it gives back exactly the frames', () => {
    const frames = [frame(Buffer.from('a')), frame(Buffer.alloc(0)), frame(Buffer.from('bcdef'))];
    const stream = Buffer.concat(frames);
    for (let cut = 1; cut < stream.length; cut += 1) {
      const splitter = new KafkaFrames();
      const got = [
        ...splitter.push(stream.subarray(0, cut)),
        ...splitter.push(stream.subarray(cut)),
      ];
      expect(got.map((f) => f.toString('hex'))).toEqual(frames.map((f) => f.toString('hex')));
    }
    expect(() => new KafkaFrames().push(int(4, -2))).toThrow(FetchGuardError);
  });
});

async function waitUntil(done: () => boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!done()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
