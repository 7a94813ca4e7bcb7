/**
 * The registry of request handlers. ApiVersions answers from it, so what the
 * broker advertises is exactly what it has handlers for (docs/compatibility.md:
 * a listed range must be accepted in full).
 */
import { Writer } from '../protocol/primitives/writer.js';
import { compile } from '../protocol/codec.js';
import { writeResponseHeader } from '../protocol/headers.js';
import { ApiKey } from '../protocol/api-keys.js';
import { ErrorCode } from '../protocol/errors.js';
import { ApiVersionsResponse } from '../protocol/messages/18-api-versions.js';
import type { AnyHandler } from './handler.js';

export interface ApiVersionRange {
  apiKey: number;
  minVersion: number;
  maxVersion: number;
}

export class HandlerRegistry {
  private readonly handlers = new Map<number, AnyHandler>();

  constructor(handlers: readonly AnyHandler[]) {
    for (const h of handlers) {
      if (this.handlers.has(h.apiKey)) throw new Error(`two handlers for API key ${h.apiKey}`);
      if (h.minVersion < h.request.minVersion || h.maxVersion > h.request.maxVersion) {
        throw new Error(`${h.name} handles v${h.minVersion}-${h.maxVersion} but its schema covers v${h.request.minVersion}-${h.request.maxVersion}`);
      }
      this.handlers.set(h.apiKey, h);
    }
  }

  get(apiKey: number): AnyHandler | undefined {
    return this.handlers.get(apiKey);
  }

  /** The advertised ranges, sorted by key. */
  ranges(): ApiVersionRange[] {
    return [...this.handlers.values()]
      .map((h) => ({ apiKey: h.apiKey, minVersion: h.minVersion, maxVersion: h.maxVersion }))
      .sort((a, b) => a.apiKey - b.apiKey);
  }

  /**
   * KIP-511: a request for an ApiVersions version we do not know is answered
   * with a v0 body carrying UNSUPPORTED_VERSION and our range for key 18, so
   * the client can retry with a version we speak. Null for other APIs.
   */
  unsupportedVersionResponse(apiKey: number, _apiVersion: number, correlationId: number): Buffer[] | null {
    if (apiKey !== ApiKey.ApiVersions) return null;
    const own = this.handlers.get(ApiKey.ApiVersions);
    if (!own) return null;
    const w = new Writer();
    const size = w.reserveInt32();
    writeResponseHeader(w, correlationId, 0);
    compile(ApiVersionsResponse, 0).write(w, {
      errorCode: ErrorCode.UNSUPPORTED_VERSION,
      apiKeys: [{ apiKey: ApiKey.ApiVersions, minVersion: own.minVersion, maxVersion: own.maxVersion }],
    });
    size.chunkOwner.writeInt32BE(w.length - 4, size.position);
    return w.finish();
  }
}
