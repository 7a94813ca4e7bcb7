/**
 * Request and response headers.
 *
 * Request header v0: apiKey int16, apiVersion int16, correlationId int32.
 * v1 adds clientId (a classic nullable string, even in flexible versions).
 * v2 (flexible requests) adds a tagged-field section.
 * Response header v0: correlationId. v1 (flexible responses) adds tags,
 * except ApiVersions, whose response header is always v0 so that a client
 * can read it before it knows which versions the broker speaks (KIP-511).
 */
import { DecodeError } from './primitives/decode-error.js';
import { Reader } from './primitives/reader.js';
import type { Writer } from './primitives/writer.js';
import { ApiKey } from './api-keys.js';

export interface RequestHeader {
  apiKey: number;
  apiVersion: number;
  correlationId: number;
  clientId: string | null;
}

/** Reads the fixed part (v0) of a request header: enough to find the schema. */
export function readRequestHeaderPrefix(r: Reader): RequestHeader {
  if (r.remaining < 8) throw new DecodeError(`request header needs 8 bytes, have ${r.remaining}`);
  return { apiKey: r.readInt16(), apiVersion: r.readInt16(), correlationId: r.readInt32(), clientId: null };
}

/** Reads the rest of a v1/v2 header after the prefix. */
export function readRequestHeaderRest(r: Reader, header: RequestHeader, headerVersion: number): void {
  if (headerVersion >= 1) {
    const length = r.readInt16();
    if (length < -1) throw new DecodeError(`bad client id length ${length}`);
    header.clientId = length === -1 ? null : r.readUtf8(length);
  }
  if (headerVersion >= 2) skipTaggedFields(r);
}

export function skipTaggedFields(r: Reader): void {
  const count = r.readUVarint();
  for (let i = 0; i < count; i++) {
    r.readUVarint();
    r.skip(r.readUVarint());
  }
}

export function requestHeaderVersion(apiKey: number, flexible: boolean): number {
  // ControlledShutdown v0 is the one request that uses header v0.
  return flexible ? 2 : 1;
}

export function responseHeaderVersion(apiKey: number, flexible: boolean): number {
  if (apiKey === ApiKey.ApiVersions) return 0;
  return flexible ? 1 : 0;
}

export function writeRequestHeader(w: Writer, header: RequestHeader, headerVersion: number): void {
  w.writeInt16(header.apiKey).writeInt16(header.apiVersion).writeInt32(header.correlationId);
  if (headerVersion >= 1) {
    if (header.clientId === null) w.writeInt16(-1);
    else {
      const bytes = Buffer.byteLength(header.clientId);
      w.writeInt16(bytes).writeUtf8(header.clientId, bytes);
    }
  }
  if (headerVersion >= 2) w.writeUVarint(0);
}

export function writeResponseHeader(w: Writer, correlationId: number, headerVersion: number): void {
  w.writeInt32(correlationId);
  if (headerVersion >= 1) w.writeUVarint(0);
}

/** Reads a response header; returns the correlation id. */
export function readResponseHeader(r: Reader, headerVersion: number): number {
  const correlationId = r.readInt32();
  if (headerVersion >= 1) skipTaggedFields(r);
  return correlationId;
}
