/**
 * The options, defaults and shared types of `Connection` (connection.ts):
 * what callers configure and what they import without needing the socket
 * machinery. Kept apart so connection.ts holds only the request pipeline.
 */
import type { MessageSchema } from '../protocol/schema.js';
import { invalidArgument } from './errors.js';
import type { ConnectionOptions as TlsConnectionOptions } from 'node:tls';
import type { SaslOptions } from './sasl-client.js';

/** node:tls client options (ca, cert, key, passphrase, servername, rejectUnauthorized...) for an SSL or SASL_SSL listener. */
export type TlsOptions = Omit<TlsConnectionOptions, 'host' | 'port' | 'socket' | 'path' | 'onread'>;

/** A request schema and its response schema, e.g. `{ request: MetadataRequest, response: MetadataResponse }`. */
export interface ApiPair<Req extends MessageSchema = MessageSchema, Res extends MessageSchema = MessageSchema> {
  readonly request: Req;
  readonly response: Res;
}

export const CLIENT_SOFTWARE_NAME = 'tributary';
export const CLIENT_SOFTWARE_VERSION = '0.1.0';

export const CONNECT_TIMEOUT_MS_DEFAULT = 10_000;
export const REQUEST_TIMEOUT_MS_DEFAULT = 30_000;
/** As the broker's socket.request.max.bytes default. */
export const RESPONSE_BYTES_MAX_DEFAULT = 100 * 1024 * 1024;
export const REQUEST_BYTES_MAX_DEFAULT = 100 * 1024 * 1024;
export const IN_FLIGHT_REQUESTS_MAX_DEFAULT = 64;
export const QUEUED_REQUESTS_MAX_DEFAULT = 10_000;

/** Options of `Connection.connect`. */
export interface ConnectionOptions {
  host: string;
  port: number;
  /** Sent in every request header; default 'tributary'. */
  clientId?: string | null;
  connectTimeoutMs?: number;
  /** Default timeout of each request (overridable per request). */
  requestTimeoutMs?: number;
  maxResponseBytes?: number;
  maxRequestBytes?: number;
  maxInFlightRequests?: number;
  maxQueuedRequests?: number;
  /** Send ApiVersions on connect (default true). */
  negotiateVersions?: boolean;
  /** Authenticate with SASL after ApiVersions (sasl-client.ts); without negotiateVersions, right after connecting. */
  sasl?: SaslOptions | undefined;
  /** Connect with TLS (an SSL or SASL_SSL listener); the server certificate is verified unless rejectUnauthorized is false. */
  tls?: TlsOptions | undefined;
}

/** The security half of ConnectionOptions: what a listener's protocol asks of a client (`{}` for PLAINTEXT). */
export type ConnectionSecurity = Pick<ConnectionOptions, 'sasl' | 'tls'>;

/** Per-request options of `Connection.send`. */
export interface SendOptions {
  /** Overrides the connection's requestTimeoutMs (e.g. a long-poll fetch adds maxWaitMs). */
  timeoutMs?: number;
}

/** A broker's advertised version range of one API. */
export interface VersionRange {
  readonly minVersion: number;
  readonly maxVersion: number;
}

/** A connection option that must be a positive number. */
export function positive(value: number, name: string): number {
  if (!Number.isFinite(value) || value <= 0) throw invalidArgument(`${name} must be a positive number, got ${value}`);
  return value;
}
