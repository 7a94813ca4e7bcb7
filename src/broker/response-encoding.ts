/**
 * A handler's response as the bytes the connection writes (connection.ts):
 * size prefix, response header, body, in the chunks of one Writer (record
 * data read from the log is written by reference, not copied).
 */
import { Writer } from '../protocol/primitives/writer.js';
import { responseHeaderVersion, writeResponseHeader } from '../protocol/headers.js';
import { compile, isFlexible } from '../protocol/codec.js';
import type { AnyHandler } from './handler.js';

/** Small enough for Buffer.allocUnsafe's shared pool; big responses grow past it. */
const RESPONSE_SCRATCH_BYTES = 2048;

export function encodeResponse(handler: AnyHandler, version: number, correlationId: number, body: unknown): Buffer[] {
  const w = new Writer(RESPONSE_SCRATCH_BYTES);
  // The size prefix, filled in below: a fresh writer's first bytes start its first chunk.
  w.writeInt32(0);
  writeResponseHeader(w, correlationId, responseHeaderVersion(handler.apiKey, isFlexible(handler.response, version)));
  compile(handler.response, version).write(w, body as never);
  const total = w.length - 4;
  const chunks = w.finish();
  (chunks[0] as Buffer).writeInt32BE(total, 0);
  return chunks;
}
