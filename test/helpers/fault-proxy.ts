/**
 * A TCP proxy on 127.0.0.1 (ephemeral port) between Kafka clients and one
 * broker that reads the Kafka framing in both directions and injects faults
 * on command:
 *
 * - `cutProduceResponses(select)`: a Produce request is forwarded; when the
 *   broker's response to it comes back, the proxy drops it and cuts both
 *   sides of that connection. The broker has appended the batch, the client
 *   never hears so, and retries: the idempotence case.
 * - `cutBeforeProduce(select)`: the Produce request is not forwarded; the
 *   connection is cut at once (the broker never sees it).
 * - `dropAll()`: cuts every open connection now.
 *
 * Start the broker with `advertised.listeners=PLAINTEXT://127.0.0.1:<proxy
 * port>` so that the connections clients open after Metadata go through the
 * proxy too. Responses are matched to requests by order, as Kafka answers a
 * connection's requests in order; acks=0 Produce requests get no response
 * and are never cut. Every cut is counted; `maxCuts` bounds them.
 */
import { createConnection, createServer, type AddressInfo, type Server, type Socket } from 'node:net';

/** The largest frame the proxy accepts (a broker's message.max.bytes is far below). */
const FRAME_BYTES_MAX = 256 * 1024 * 1024;
const PRODUCE_API_KEY = 0;

/** Which Produce requests to cut: `n` counts the Produce requests the proxy has seen, from 0. */
export type ProduceSelector = (n: number) => boolean;

export interface FaultProxyStats {
  connections: number;
  produceRequests: number;
  /** Produce responses dropped (connection cut after the broker answered). */
  responsesCut: number;
  /** Produce requests dropped before the broker saw them. */
  requestsCut: number;
}

/** Splits a byte stream into whole Kafka frames (int32 size + body), each returned with its size prefix. */
class FrameSplitter {
  private pending: Buffer = Buffer.alloc(0);

  push(chunk: Buffer): Buffer[] {
    this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    const frames: Buffer[] = [];
    let position = 0;
    while (this.pending.length - position >= 4) {
      const size = this.pending.readInt32BE(position);
      if (size < 0 || size > FRAME_BYTES_MAX) throw new Error(`fault proxy: frame of ${size} bytes`);
      if (this.pending.length - position - 4 < size) break;
      frames.push(this.pending.subarray(position, position + 4 + size));
      position += 4 + size;
    }
    this.pending = this.pending.subarray(position);
    return frames;
  }
}

interface Pair {
  client: Socket;
  broker: Socket;
  /** Per request written to the broker and expecting a response, in order: cut when its response arrives? */
  expecting: boolean[];
  cut: boolean;
}

export class FaultProxy {
  readonly stats: FaultProxyStats = { connections: 0, produceRequests: 0, responsesCut: 0, requestsCut: 0 };
  /** At most this many cuts in all (default unbounded). */
  maxCuts = Number.POSITIVE_INFINITY;
  private readonly pairs = new Set<Pair>();
  private cutResponse: ProduceSelector = () => false;
  private cutRequest: ProduceSelector = () => false;

  private constructor(
    private readonly server: Server,
    readonly port: number,
    public targetPort: number,
    readonly targetHost: string,
  ) {}

  /** Listens on 127.0.0.1:0; `targetPort` may be set later (before clients connect). */
  static async start(targetPort = 0, targetHost = '127.0.0.1'): Promise<FaultProxy> {
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    const proxy = new FaultProxy(server, (server.address() as AddressInfo).port, targetPort, targetHost);
    server.on('connection', (socket) => proxy.accept(socket));
    return proxy;
  }

  get bootstrap(): string {
    return `127.0.0.1:${this.port}`;
  }

  get cuts(): number {
    return this.stats.responsesCut + this.stats.requestsCut;
  }

  /** Cut the connection instead of forwarding the response of the selected Produce requests. */
  cutProduceResponses(select: ProduceSelector): void {
    this.cutResponse = select;
  }

  /** Cut the connection instead of forwarding the selected Produce requests. */
  cutBeforeProduce(select: ProduceSelector): void {
    this.cutRequest = select;
  }

  /** No more faults. */
  heal(): void {
    this.cutResponse = () => false;
    this.cutRequest = () => false;
  }

  /** Cuts every open connection now. */
  dropAll(): void {
    for (const pair of this.pairs) this.cut(pair);
  }

  async close(): Promise<void> {
    this.heal();
    this.dropAll();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(client: Socket): void {
    this.stats.connections++;
    const broker = createConnection({ host: this.targetHost, port: this.targetPort });
    const pair: Pair = { client, broker, expecting: [], cut: false };
    this.pairs.add(pair);
    client.setNoDelay(true);
    broker.setNoDelay(true);
    const toBroker = new FrameSplitter();
    const toClient = new FrameSplitter();
    client.on('data', (chunk: Buffer) => {
      if (pair.cut) return;
      let frames: Buffer[];
      try {
        frames = toBroker.push(chunk);
      } catch {
        return this.cut(pair);
      }
      for (const frame of frames) if (!this.forwardRequest(pair, frame)) return;
    });
    broker.on('data', (chunk: Buffer) => {
      if (pair.cut) return;
      let frames: Buffer[];
      try {
        frames = toClient.push(chunk);
      } catch {
        return this.cut(pair);
      }
      for (const frame of frames) {
        const cutThis = pair.expecting.shift() ?? false;
        if (cutThis) {
          this.stats.responsesCut++;
          return this.cut(pair);
        }
        client.write(frame);
      }
    });
    const end = (): void => this.cut(pair);
    client.on('close', end);
    broker.on('close', end);
    client.on('error', end);
    broker.on('error', end);
  }

  /** Forwards one request frame (or cuts); false when the connection was cut. */
  private forwardRequest(pair: Pair, frame: Buffer): boolean {
    const apiKey = frame.length >= 6 ? frame.readInt16BE(4) : -1;
    let cutResponse = false;
    let expectsResponse = true;
    if (apiKey === PRODUCE_API_KEY) {
      const n = this.stats.produceRequests++;
      expectsResponse = producesResponse(frame);
      if (this.cuts < this.maxCuts && this.cutRequest(n)) {
        this.stats.requestsCut++;
        this.cut(pair);
        return false;
      }
      cutResponse = expectsResponse && this.cuts < this.maxCuts && this.cutResponse(n);
    }
    if (expectsResponse) pair.expecting.push(cutResponse);
    pair.broker.write(frame);
    return true;
  }

  private cut(pair: Pair): void {
    if (pair.cut) return;
    pair.cut = true;
    this.pairs.delete(pair);
    pair.client.destroy();
    pair.broker.destroy();
  }
}

/**
 * False for a Produce request with acks=0 (the broker sends no response).
 * Produce v3+ puts a nullable transactionalId before acks; flexible versions
 * (v9+) use a compact string. The request header is v1 (v0-v8) or v2 (v9+,
 * with a tagged-fields byte after the client id).
 */
function producesResponse(frame: Buffer): boolean {
  try {
    const version = frame.readInt16BE(6);
    let position = 4 + 2 + 2 + 4; // size, apiKey, apiVersion, correlationId
    const clientIdLength = frame.readInt16BE(position);
    position += 2 + Math.max(0, clientIdLength);
    const flexible = version >= 9;
    if (flexible) position += 1; // empty tagged fields of the request header
    if (version >= 3) {
      if (flexible) {
        // compact nullable string: unsigned varint length + 1 (0 = null); a transactional id is short.
        let length = 0;
        let shift = 0;
        for (;;) {
          const b = frame.readUInt8(position++);
          length |= (b & 0x7f) << shift;
          if ((b & 0x80) === 0) break;
          shift += 7;
        }
        position += Math.max(0, length - 1);
      } else {
        const length = frame.readInt16BE(position);
        position += 2 + Math.max(0, length);
      }
    }
    return frame.readInt16BE(position) !== 0;
  } catch {
    return true;
  }
}
