/**
 * A frame turned into a request a handler can run (connection.ts): its
 * header, the SASL gate, the handler for its API key and version, its body.
 * What cannot be served is turned away here, and the connection is told how
 * (`RequestRejections`): it closes (the stream cannot be trusted after a bad
 * request), or, for an ApiVersions version outside the handler's range
 * (KIP-511), queues the registry's answer in the request's turn.
 */
import { Reader } from '../protocol/primitives/reader.js';
import { DecodeError } from '../protocol/primitives/decode-error.js';
import { readRequestHeaderPrefix, readRequestHeaderRest, requestHeaderVersion, type RequestHeader } from '../protocol/headers.js';
import { compile, isFlexible } from '../protocol/codec.js';
import { apiKeyName } from '../protocol/api-keys.js';
import type { AnyHandler } from './handler.js';
import type { HandlerRegistry } from './handler-registry.js';
import type { RejectReason } from './request-metrics.js';
import type { SaslSession } from '../security/sasl/session.js';

/** A request read off the wire: its header (client id included) and decoded body, with the handler that serves it. */
export interface DecodedRequest {
  readonly handler: AnyHandler;
  readonly header: RequestHeader;
  readonly body: unknown;
}

/** What the connection does with a request turned away (one object per connection, made once). */
export interface RequestRejections {
  /** Logs `message` as a warning with `fields`, counts `reason`, and closes the connection (`closeReason`). */
  reject(fields: object, message: string, reason: RejectReason, closeReason: string): void;
  /** Queues an answer given in the handler's place (KIP-511), in the request's turn. */
  answerInPlace(chunks: Buffer[]): void;
}

/**
 * The frame's header and body, decoded for the handler of its API key and
 * version; null when the request was rejected (connection closed) or
 * already answered (KIP-511 ApiVersions fallback). `whole` is the frame with
 * its 4-byte size prefix.
 */
export function decodeRequest(
  whole: Buffer, registry: HandlerRegistry, sasl: SaslSession | null, listenerName: string, rejections: RequestRejections,
): DecodedRequest | null {
  const reader = new Reader(whole, 4);
  let header;
  try {
    header = readRequestHeaderPrefix(reader);
  } catch (err) {
    rejections.reject({ err }, 'unreadable request header; closing connection', 'bad_header', 'bad header');
    return null;
  }
  if (sasl !== null && !sasl.permits(header.apiKey)) {
    rejections.reject(
      { api: apiKeyName(header.apiKey), correlationId: header.correlationId, listener: listenerName },
      sasl.principal === null ? 'request before SASL authentication; closing connection' : 'SASL session expired without re-authentication; closing connection',
      'unauthenticated', 'not authenticated',
    );
    return null;
  }
  const handler = handlerFor(header, registry, rejections);
  if (handler === null) return null;
  const flexible = isFlexible(handler.request, header.apiVersion);
  let body: unknown;
  try {
    readRequestHeaderRest(reader, header, requestHeaderVersion(header.apiKey, flexible));
    body = compile(handler.request, header.apiVersion).read(reader);
    if (reader.remaining !== 0) throw new DecodeError(`${reader.remaining} trailing bytes`);
  } catch (err) {
    rejections.reject(
      { err, api: apiKeyName(header.apiKey), apiVersion: header.apiVersion, correlationId: header.correlationId, clientId: header.clientId },
      'malformed request; closing connection', 'malformed', 'malformed request',
    );
    return null;
  }
  return { handler, header, body };
}

/**
 * The handler serving the header's API key at its version; null when there
 * is none (the connection is closed) or when the version is outside its
 * range and the registry answered in its place (KIP-511).
 */
function handlerFor(header: RequestHeader, registry: HandlerRegistry, rejections: RequestRejections): AnyHandler | null {
  const handler = registry.get(header.apiKey);
  if (!handler) {
    rejections.reject({ apiKey: header.apiKey, correlationId: header.correlationId }, 'unknown API key; closing connection', 'unknown_api_key', 'unknown api key');
    return null;
  }
  if (header.apiVersion < handler.minVersion || header.apiVersion > handler.maxVersion) {
    const unsupported = registry.unsupportedVersionResponse(header.apiKey, header.apiVersion, header.correlationId);
    if (unsupported) {
      // KIP-511: ApiVersions answers any version with a v0 body and error 35.
      rejections.answerInPlace(unsupported);
      return null;
    }
    rejections.reject(
      { api: apiKeyName(header.apiKey), apiVersion: header.apiVersion, supported: `${handler.minVersion}-${handler.maxVersion}` },
      'unsupported API version; closing connection', 'unsupported_version', 'unsupported version',
    );
    return null;
  }
  return handler;
}
