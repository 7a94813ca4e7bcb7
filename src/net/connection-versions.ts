/**
 * ApiVersions negotiation for `Connection.connect` (connection.ts): the
 * version fallback of KIP-511 and the decoding of a response that may come
 * back in v0 form. Separate from the request pipeline, which only sends the
 * requests this logic asks for.
 */
import { decode } from '../protocol/codec.js';
import { ErrorCode } from '../protocol/errors.js';
import { ApiVersionsRequest, ApiVersionsResponse } from '../protocol/messages/18-api-versions.js';
import { DecodeError } from '../protocol/primitives/decode-error.js';
import type { VersionRange } from './connection-options.js';
import { KafkaProtocolError, UnsupportedVersionError } from './errors.js';

/** ApiVersions attempts: v3, then the broker's advertised version, then v0. */
const API_VERSIONS_ATTEMPTS_MAX = 3;
const API_VERSIONS_VERSION_MAX = 3;

/** The broker's ranges by API key and the ApiVersions version that succeeded. */
export interface NegotiatedVersions {
  readonly brokerVersions: Map<number, VersionRange>;
  readonly version: number;
}

/**
 * Sends ApiVersions v3 first; on UNSUPPORTED_VERSION retries with the
 * broker's own advertised version (or v0), at most API_VERSIONS_ATTEMPTS_MAX
 * times. `address` names the broker in errors.
 */
export async function negotiateApiVersions(address: string, sendApiVersions: (version: number) => Promise<ApiVersionsResponse>): Promise<NegotiatedVersions> {
  let version = API_VERSIONS_VERSION_MAX;
  for (let attempt = 0; attempt < API_VERSIONS_ATTEMPTS_MAX; attempt++) {
    const response = await sendApiVersions(version);
    if (response.errorCode === ErrorCode.UNSUPPORTED_VERSION) {
      // KIP-511: the broker lists its own ApiVersions range even in an error.
      const own = response.apiKeys.find((k) => k.apiKey === ApiVersionsRequest.apiKey);
      const next = own === undefined ? 0 : Math.min(own.maxVersion, version - 1);
      if (next < 0 || next >= version) break;
      version = next;
      continue;
    }
    if (response.errorCode !== 0) throw new KafkaProtocolError(response.errorCode, { api: 'ApiVersions' });
    return { brokerVersions: new Map(response.apiKeys.map((k) => [k.apiKey, { minVersion: k.minVersion, maxVersion: k.maxVersion }])), version };
  }
  throw new UnsupportedVersionError(ApiVersionsRequest.apiKey, `broker ${address} accepted no ApiVersions version`);
}

/**
 * Decodes an ApiVersions response. A broker that does not support the
 * requested version answers with a v0 body (KIP-511), so error 35 or an
 * undecodable body is read again as v0, as the Java client does.
 */
export function decodeApiVersions(frame: Buffer, start: number, version: number): ApiVersionsResponse {
  if (frame.length - start >= 2 && frame.readInt16BE(start) === ErrorCode.UNSUPPORTED_VERSION) {
    return decode(ApiVersionsResponse, 0, frame, start);
  }
  try {
    return decode(ApiVersionsResponse, version, frame, start);
  } catch (err) {
    if (version === 0 || !(err instanceof DecodeError)) throw err;
    return decode(ApiVersionsResponse, 0, frame, start);
  }
}
