/**
 * A loopback TCP proxy in front of a broker that drops chosen Produce
 * responses: the request reaches the broker (and is appended), then the
 * proxy closes the client's connection instead of passing the answer on, so
 * the client must retry a batch the broker already has: the case the
 * idempotent producer exists for. Start the broker with
 * `advertised.listeners=PLAINTEXT://127.0.0.1:<proxy port>` so clients come
 * back through the proxy after a metadata request.
 *
 *   const proxy = await DroppingProxy.start(listenPort, brokerPort, (n) => n % 4 === 2);
 *   ... proxy.dropped ... await proxy.close();
 */
import { createConnection, createServer, type Server, type Socket } from 'node:net';

const PRODUCE = 0;

export class DroppingProxy {
  /** Produce responses seen so far (dropped or not). */
  produceResponses = 0;
  dropped = 0;
  private readonly sockets = new Set<Socket>();

  private constructor(
    private readonly server: Server,
    private readonly brokerPort: number,
    /** Replaceable: which Produce responses (counted from 0 over all connections) to drop. */
    public shouldDrop: (produceResponseIndex: number) => boolean,
  ) {}

  static start(listenPort: number, brokerPort: number, shouldDrop: (produceResponseIndex: number) => boolean): Promise<DroppingProxy> {
    const server = createServer();
    const proxy = new DroppingProxy(server, brokerPort, shouldDrop);
    server.on('connection', (client) => proxy.accept(client));
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(listenPort, '127.0.0.1', () => resolve(proxy));
    });
  }

  private accept(client: Socket): void {
    const upstream = createConnection({ host: '127.0.0.1', port: this.brokerPort });
    this.sockets.add(client);
    this.sockets.add(upstream);
    const apiKeyOf = new Map<number, number>();
    let fromClient = Buffer.alloc(0);
    let fromBroker = Buffer.alloc(0);
    const closeBoth = (): void => {
      client.destroy();
      upstream.destroy();
      this.sockets.delete(client);
      this.sockets.delete(upstream);
    };
    client.on('data', (chunk: Buffer) => {
      fromClient = Buffer.concat([fromClient, chunk]);
      while (fromClient.length >= 12) {
        const size = fromClient.readInt32BE(0);
        if (fromClient.length < 4 + size) break;
        apiKeyOf.set(fromClient.readInt32BE(8), fromClient.readInt16BE(4));
        fromClient = fromClient.subarray(4 + size);
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      fromBroker = Buffer.concat([fromBroker, chunk]);
      let forward = 0;
      while (fromBroker.length - forward >= 8) {
        const size = fromBroker.readInt32BE(forward);
        if (fromBroker.length - forward < 4 + size) break;
        const correlationId = fromBroker.readInt32BE(forward + 4);
        if (apiKeyOf.get(correlationId) === PRODUCE) {
          const index = this.produceResponses++;
          if (this.shouldDrop(index)) {
            this.dropped++;
            if (forward > 0) client.write(fromBroker.subarray(0, forward));
            closeBoth();
            return;
          }
        }
        apiKeyOf.delete(correlationId);
        forward += 4 + size;
      }
      if (forward > 0) client.write(fromBroker.subarray(0, forward));
      fromBroker = fromBroker.subarray(forward);
    });
    client.on('error', closeBoth);
    upstream.on('error', closeBoth);
    client.on('close', closeBoth);
    upstream.on('close', closeBoth);
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    this.sockets.clear();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
