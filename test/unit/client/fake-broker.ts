/**
 * A tiny fake Kafka broker for client unit tests: listens on 127.0.0.1 with
 * an ephemeral port, decodes request frames with our schemas and lets each
 * test decide the answer (a body to encode, raw bytes, no answer, a delay).
 */
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { compile } from '../../../src/protocol/codec.js';
import { readRequestHeaderPrefix, readRequestHeaderRest, requestHeaderVersion, responseHeaderVersion, writeResponseHeader } from '../../../src/protocol/headers.js';
import { apiSchemas } from '../../../src/protocol/messages/index.js';
import { Reader } from '../../../src/protocol/primitives/reader.js';
import { Writer } from '../../../src/protocol/primitives/writer.js';
import { FrameDecoder } from '../../../src/net/frame-decoder.js';

export interface FakeRequest {
  apiKey: number;
  apiVersion: number;
  correlationId: number;
  clientId: string | null;
  body: Record<string, unknown>;
  socket: Socket;
}

/** What a handler returns: a body to encode at the request's version, or an action. */
export type FakeReply =
  | { body: Record<string, unknown>; version?: number; delayMs?: number }
  | { raw: Buffer }
  | { none: true }
  | { close: true };

export type FakeHandler = (req: FakeRequest, broker: FakeBroker) => FakeReply | Promise<FakeReply>;

/** The versions the fake advertises by default. */
export const FAKE_API_VERSIONS = [
  { apiKey: 0, minVersion: 3, maxVersion: 7 },
  { apiKey: 1, minVersion: 4, maxVersion: 12 },
  { apiKey: 2, minVersion: 1, maxVersion: 5 },
  { apiKey: 3, minVersion: 0, maxVersion: 9 },
  { apiKey: 18, minVersion: 0, maxVersion: 3 },
  { apiKey: 19, minVersion: 0, maxVersion: 7 },
  { apiKey: 20, minVersion: 0, maxVersion: 6 },
  { apiKey: 32, minVersion: 0, maxVersion: 4 },
  { apiKey: 37, minVersion: 0, maxVersion: 3 },
];

export class FakeBroker {
  readonly requests: FakeRequest[] = [];
  readonly sockets = new Set<Socket>();
  private readonly server: Server;
  port = 0;
  /** Requests answered so far, per socket, to check in-flight limits. */
  unanswered = 0;
  maxUnanswered = 0;

  constructor(readonly handler: FakeHandler) {
    this.server = createServer((socket) => this.onSocket(socket));
  }

  static async start(handler: FakeHandler): Promise<FakeBroker> {
    const broker = new FakeBroker(handler);
    await new Promise<void>((resolve) => broker.server.listen(0, '127.0.0.1', resolve));
    broker.port = (broker.server.address() as AddressInfo).port;
    return broker;
  }

  async stop(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private onSocket(socket: Socket): void {
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
    socket.on('error', () => undefined);
    const frames = new FrameDecoder(64 * 1024 * 1024, 8);
    // Answers go out in request order, as a real broker's do.
    let chain = Promise.resolve();
    socket.on('data', (chunk: Buffer) => {
      for (const frame of frames.push(chunk)) {
        const req = this.decodeRequest(frame, socket);
        this.requests.push(req);
        this.unanswered++;
        this.maxUnanswered = Math.max(this.maxUnanswered, this.unanswered);
        const reply = Promise.resolve(this.handler(req, this));
        chain = chain.then(async () => {
          const r = await reply;
          this.unanswered--;
          if ('body' in r && r.delayMs !== undefined) await new Promise((res) => setTimeout(res, r.delayMs));
          if (socket.destroyed) return;
          if ('none' in r) return;
          if ('close' in r) {
            socket.destroy();
            return;
          }
          if ('raw' in r) {
            socket.write(r.raw);
            return;
          }
          socket.write(encodeResponse(req, r.body, r.version ?? req.apiVersion));
        });
      }
    });
  }

  private decodeRequest(frame: Buffer, socket: Socket): FakeRequest {
    const reader = new Reader(frame);
    const header = readRequestHeaderPrefix(reader);
    const api = apiSchemas.get(header.apiKey);
    if (api === undefined) throw new Error(`fake broker: unknown api ${header.apiKey}`);
    const flexible = compile(api.request, header.apiVersion).flexible;
    readRequestHeaderRest(reader, header, requestHeaderVersion(header.apiKey, flexible));
    const body = compile(api.request, header.apiVersion).read(reader) as Record<string, unknown>;
    return { ...header, body, socket };
  }
}

/** A complete response frame (size, header, body) for `req`. */
export function encodeResponse(req: Pick<FakeRequest, 'apiKey' | 'correlationId'>, body: Record<string, unknown>, version: number): Buffer {
  const api = apiSchemas.get(req.apiKey);
  if (api === undefined) throw new Error(`fake broker: unknown api ${req.apiKey}`);
  const compiled = compile(api.response, version);
  const w = new Writer();
  const slot = w.reserveInt32();
  writeResponseHeader(w, req.correlationId, responseHeaderVersion(req.apiKey, compiled.flexible));
  compiled.write(w, body as never);
  slot.chunkOwner.writeInt32BE(w.length - 4, slot.position);
  return w.toBuffer();
}

export function apiVersionsReply(apiKeys = FAKE_API_VERSIONS): FakeReply {
  return { body: { errorCode: 0, apiKeys, throttleTimeMs: 0 } };
}

/** Answers ApiVersions and delegates everything else. */
export function withApiVersions(rest: FakeHandler, apiKeys = FAKE_API_VERSIONS): FakeHandler {
  return (req, broker) => (req.apiKey === 18 ? apiVersionsReply(apiKeys) : rest(req, broker));
}
