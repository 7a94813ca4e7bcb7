/**
 * What the launcher asks of a node to know it is up: does a port accept TCP,
 * and which brokers does the node's Metadata list (registered and unfenced).
 * One request on a fresh socket, encoded with the protocol schemas; the
 * launcher needs no connection pool, and src/embedded must not import the
 * client library.
 */
import { createServer, connect, type Socket } from 'node:net';
import { decode, encode } from '../protocol/codec.js';
import { readResponseHeader, writeRequestHeader } from '../protocol/headers.js';
import { MetadataRequest, MetadataResponse } from '../protocol/messages/03-metadata.js';
import { Reader } from '../protocol/primitives/reader.js';
import { Writer } from '../protocol/primitives/writer.js';

/** Metadata v1: topics [] means none (v0's [] meant all), no auto-creation possible; the broker list is all we need. */
const METADATA_VERSION = 1;
const HEADER_VERSION = 1;
const RESPONSE_BYTES_MAX = 1024 * 1024;
const CLIENT_ID = 'tributary-launcher';

/** A port the OS calls free right now (bind 127.0.0.1:0, read it, close). Another process may still take it before we bind it. */
export function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, host, () => {
      const address = server.address();
      const port = address !== null && typeof address === 'object' ? address.port : 0;
      server.close(() => (port > 0 ? resolve(port) : reject(new Error('listen(0) returned no port'))));
    });
  });
}

function connected(host: string, port: number, timeoutMs: number): Promise<Socket | null> {
  return new Promise((done) => {
    const socket = connect({ host, port });
    const finish = (ok: boolean): void => {
      clearTimeout(timer);
      if (!ok) socket.destroy();
      done(ok ? socket : null);
    };
    const timer = setTimeout(() => finish(false), timeoutMs);
    socket.once('connect', () => finish(true));
    socket.once('error', () => finish(false));
  });
}

/** True when something accepts TCP connections on host:port within `timeoutMs`. */
export async function portAccepts(host: string, port: number, timeoutMs = 500): Promise<boolean> {
  const socket = await connected(host, port, timeoutMs);
  socket?.destroy();
  return socket !== null;
}

function metadataFrame(correlationId: number): Buffer {
  const w = new Writer();
  writeRequestHeader(w, { apiKey: MetadataRequest.apiKey, apiVersion: METADATA_VERSION, correlationId, clientId: CLIENT_ID }, HEADER_VERSION);
  const body = Buffer.concat([...w.finish(), encode(MetadataRequest, METADATA_VERSION, { topics: [] })]);
  const size = Buffer.alloc(4);
  size.writeInt32BE(body.length);
  return Buffer.concat([size, body]);
}

/** Reads one response frame (bounded in size and time); null on close, error or timeout. */
function readFrame(socket: Socket, timeoutMs: number): Promise<Buffer | null> {
  return new Promise((done) => {
    let buffered = Buffer.alloc(0);
    const finish = (frame: Buffer | null): void => {
      clearTimeout(timer);
      socket.destroy();
      done(frame);
    };
    const timer = setTimeout(() => finish(null), timeoutMs);
    socket.on('data', (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      if (buffered.length < 4) return;
      const size = buffered.readInt32BE(0);
      if (size < 0 || size > RESPONSE_BYTES_MAX) return finish(null);
      if (buffered.length >= 4 + size) finish(buffered.subarray(4, 4 + size));
    });
    socket.once('error', () => finish(null));
    socket.once('close', () => finish(null));
  });
}

/** The node ids a broker's Metadata lists (live brokers), sorted; null when it does not answer in time. */
export async function liveBrokerIds(host: string, port: number, timeoutMs = 2_000): Promise<number[] | null> {
  const socket = await connected(host, port, timeoutMs);
  if (socket === null) return null;
  const correlationId = 1;
  const answer = readFrame(socket, timeoutMs);
  socket.write(metadataFrame(correlationId));
  const frame = await answer;
  if (frame === null) return null;
  try {
    const reader = new Reader(frame);
    if (readResponseHeader(reader, 0) !== correlationId) return null;
    const md = decode(MetadataResponse, METADATA_VERSION, frame, frame.length - reader.remaining);
    return md.brokers.map((b) => b.nodeId).sort((a, b) => a - b);
  } catch {
    return null;
  }
}
