/**
 * One TCP connection to one broker, speaking the Kafka protocol through the
 * schema-driven codec.
 *
 * - Framing: every request and response is an int32 size followed by that
 *   many bytes. Responses larger than `maxResponseBytes` close the connection.
 * - Pipelining: up to `maxInFlightRequests` requests are on the wire at once;
 *   more wait in a bounded queue (`maxQueuedRequests`). Kafka answers the
 *   requests of one connection in order, so responses are matched to the
 *   oldest in-flight request and its correlation id is checked; a mismatch is
 *   a protocol error that closes the connection.
 * - One-way requests (Produce with acks=0) get no response: they are written
 *   in order with the others but never enter the in-flight queue.
 * - Timeouts: a request not answered within its timeout fails with
 *   ERR_TRIB_REQUEST_TIMEOUT. Once it has been written, every later response
 *   on the connection is stuck behind it, so the connection is closed and the
 *   other pending requests fail with ERR_TRIB_CONNECTION_CLOSED (the Java
 *   client does the same). A request still queued is simply dropped.
 *   Deadlines cost no timer per request: one timer per connection serves
 *   them all (connection-deadline.ts).
 * - Versions: `Connection.connect` sends ApiVersions v3 first. A broker that
 *   does not know v3 answers UNSUPPORTED_VERSION with a v0 body listing its
 *   own ApiVersions range (KIP-511); the client retries with that version.
 *   `pickVersion` then intersects the broker's ranges with the caller's
 *   (connection-versions.ts).
 *
 * Options and defaults are in connection-options.ts, opening the socket in
 * connection-socket.ts; everything is re-exported here.
 */
import type { Socket } from 'node:net';
import { compile, decode } from '../protocol/codec.js';
import { readResponseHeader, requestHeaderVersion, responseHeaderVersion, writeRequestHeader } from '../protocol/headers.js';
import { apiKeyName } from '../protocol/api-keys.js';
import { ApiVersionsRequest, type ApiVersionsResponse } from '../protocol/messages/18-api-versions.js';
import { Reader } from '../protocol/primitives/reader.js';
import { Writer } from '../protocol/primitives/writer.js';
import type { Infer, Input, MessageSchema } from '../protocol/schema.js';
import { CLIENT_SOFTWARE_NAME, CLIENT_SOFTWARE_VERSION, CONNECT_TIMEOUT_MS_DEFAULT, positive, type ConnectionOptions } from './connection-options.js';
import { IN_FLIGHT_REQUESTS_MAX_DEFAULT, QUEUED_REQUESTS_MAX_DEFAULT, REQUEST_BYTES_MAX_DEFAULT, REQUEST_TIMEOUT_MS_DEFAULT } from './connection-options.js';
import { RESPONSE_BYTES_MAX_DEFAULT, type ApiPair, type SendOptions, type VersionRange } from './connection-options.js';
import { DeadlineTimer } from './connection-deadline.js';
import { openSocket, socketInput, type SocketInput } from './connection-socket.js';
import { decodeApiVersions, negotiateApiVersions } from './connection-versions.js';
import { saslAuthenticate } from './sasl-client.js';
import { ClientErrorCode, ConnectionClosedError, ProtocolError, RequestTimeoutError, TributaryClientError, UnsupportedVersionError } from './errors.js';
import type { FrameReader } from './frame-reader.js';

// Moved to their own modules; still importable from here.
export { CLIENT_SOFTWARE_NAME, CLIENT_SOFTWARE_VERSION, CONNECT_TIMEOUT_MS_DEFAULT, REQUEST_TIMEOUT_MS_DEFAULT } from './connection-options.js';
export { IN_FLIGHT_REQUESTS_MAX_DEFAULT, QUEUED_REQUESTS_MAX_DEFAULT, REQUEST_BYTES_MAX_DEFAULT, RESPONSE_BYTES_MAX_DEFAULT } from './connection-options.js';
export type { ApiPair, ConnectionOptions, ConnectionSecurity, SendOptions, TlsOptions, VersionRange } from './connection-options.js';
export type { SaslOptions, SaslMechanismName } from './sasl-client.js';
export { decodeApiVersions } from './connection-versions.js';

/** Request header and small bodies fit, so the scratch comes from Buffer's shared pool; record batches are appended by reference. */
const REQUEST_SCRATCH_BYTES = 1024;
const CORRELATION_ID_MAX = 0x7fffffff;

type DecodeBody = (frame: Buffer, bodyStart: number) => unknown;

interface PendingRequest {
  readonly correlationId: number;
  readonly apiKey: number;
  readonly version: number;
  readonly chunks: Buffer[];
  /** null for one-way requests (acks=0 produce). */
  readonly decodeBody: DecodeBody | null;
  readonly responseHeaderVersion: number;
  readonly resolve: (value: unknown) => void;
  readonly reject: (err: Error) => void;
  /** performance.now() by which it must complete; the timeout it was given, for the message. */
  readonly deadline: number;
  readonly timeoutMs: number;
  /** Settled (answered, failed or timed out): the deadline no longer applies. */
  settled: boolean;
  written: boolean;
}

/** One TCP connection to a broker: framing, pipelined requests, timeouts and ApiVersions negotiation. */
export class Connection {
  readonly host: string;
  readonly port: number;
  private readonly socket: Socket;
  private readonly clientId: string | null;
  /** Default timeout of each request. */
  readonly requestTimeoutMs: number;
  private readonly maxRequestBytes: number;
  private readonly maxInFlightRequests: number;
  private readonly maxQueuedRequests: number;
  private readonly waiting: PendingRequest[] = [];
  private readonly inFlight: PendingRequest[] = [];
  /** One-way requests written to the socket whose write has not completed yet. */
  private readonly unconfirmed: PendingRequest[] = [];
  private nextCorrelationId = 0;
  private closedError: TributaryClientError | null = null;
  private readonly closedPromise: Promise<void>;
  private brokerVersions: Map<number, VersionRange> | null = null;
  private apiVersionsVersionUsed = -1;
  /** Fires when the earliest deadline of a pending request passes. */
  private readonly deadlines = new DeadlineTimer(() => this.onDeadline());
  private timedOut = false;

  private constructor(socket: Socket, options: ConnectionOptions, input: SocketInput) {
    this.socket = socket;
    this.host = options.host;
    this.port = options.port;
    this.clientId = options.clientId === undefined ? CLIENT_SOFTWARE_NAME : options.clientId;
    this.requestTimeoutMs = positive(options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS_DEFAULT, 'requestTimeoutMs');
    this.maxRequestBytes = positive(options.maxRequestBytes ?? REQUEST_BYTES_MAX_DEFAULT, 'maxRequestBytes');
    this.maxInFlightRequests = positive(options.maxInFlightRequests ?? IN_FLIGHT_REQUESTS_MAX_DEFAULT, 'maxInFlightRequests');
    this.maxQueuedRequests = positive(options.maxQueuedRequests ?? QUEUED_REQUESTS_MAX_DEFAULT, 'maxQueuedRequests');
    socket.setNoDelay(true);
    input.deliver = (n) => this.onRead(input.reader, n);
    socket.on('error', (err) => this.fail(new ConnectionClosedError(`connection to ${this.address} failed: ${err.message}`, { cause: err })));
    this.closedPromise = new Promise((resolve) => {
      socket.once('close', () => {
        this.fail(new ConnectionClosedError(`connection to ${this.address} was closed by the broker`));
        resolve();
      });
    });
  }

  /** Opens a connection and (unless disabled) negotiates API versions. */
  static async connect(options: ConnectionOptions): Promise<Connection> {
    const input = socketInput(positive(options.maxResponseBytes ?? RESPONSE_BYTES_MAX_DEFAULT, 'maxResponseBytes'));
    const socket = await openSocket(options.host, options.port, options.connectTimeoutMs ?? CONNECT_TIMEOUT_MS_DEFAULT, input, options.tls);
    const connection = new Connection(socket, options, input);
    try {
      // The handshake is part of opening: a broker that accepts TCP but never answers (SIGSTOP, a hung
      // process) fails within the connect timeout, not after a whole request timeout.
      if (options.negotiateVersions !== false) await connection.negotiateVersions(Math.min(connection.requestTimeoutMs, options.connectTimeoutMs ?? CONNECT_TIMEOUT_MS_DEFAULT));
      // Without negotiation (inter-node links) the highest SASL versions are used: the peer is one of ours.
      if (options.sasl !== undefined) await saslAuthenticate(connection, options.sasl);
    } catch (err) {
      connection.destroy();
      throw err;
    }
    return connection;
  }

  /** `host:port` of the broker. */
  get address(): string {
    return `${this.host}:${this.port}`;
  }

  /** True once the connection is closed (by either side). */
  get isClosed(): boolean {
    return this.closedError !== null;
  }

  /** True when it was closed because a written request got no answer in time: the broker may be alive but not answering. */
  get closedByTimeout(): boolean {
    return this.timedOut;
  }

  /** Requests written and awaiting a response. */
  get inFlightCount(): number {
    return this.inFlight.length;
  }

  /** The broker's advertised ranges by API key (empty before negotiation). */
  get apiVersions(): ReadonlyMap<number, VersionRange> {
    return this.brokerVersions ?? new Map();
  }

  /** The ApiVersions version that succeeded (-1 before negotiation). */
  get apiVersionsVersion(): number {
    return this.apiVersionsVersionUsed;
  }

  /**
   * The highest version both sides support. Throws UnsupportedVersionError
   * when the broker does not list the API or the ranges do not overlap.
   * Without negotiation, returns `ourMax`.
   */
  pickVersion(apiKey: number, ourMin: number, ourMax: number): number {
    if (this.brokerVersions === null) return ourMax;
    const broker = this.brokerVersions.get(apiKey);
    const name = `${apiKeyName(apiKey)} (${apiKey})`;
    if (broker === undefined) throw new UnsupportedVersionError(apiKey, `broker ${this.address} does not support ${name}`);
    const max = Math.min(ourMax, broker.maxVersion);
    const min = Math.max(ourMin, broker.minVersion);
    if (max < min) {
      throw new UnsupportedVersionError(
        apiKey,
        `no common version of ${name}: broker ${this.address} supports ${broker.minVersion}-${broker.maxVersion}, the client ${ourMin}-${ourMax}`,
      );
    }
    return max;
  }

  /** Sends a request and resolves with its decoded response. */
  send<Req extends MessageSchema, Res extends MessageSchema>(
    api: ApiPair<Req, Res>,
    version: number,
    body: Input<Req>,
    options: SendOptions = {},
  ): Promise<Infer<Res>> {
    const decodeBody: DecodeBody = (frame, start) => decode(api.response, version, frame, start);
    return this.enqueue(api.request, version, body, decodeBody, options) as Promise<Infer<Res>>;
  }

  /**
   * Sends a request that gets no response (Produce with acks=0); resolves once
   * the bytes are handed to the kernel. Ordering with other requests is kept.
   */
  sendOneWay<Req extends MessageSchema>(request: Req, version: number, body: Input<Req>, options: SendOptions = {}): Promise<void> {
    return this.enqueue(request, version, body, null, options) as Promise<void>;
  }

  /** Closes the connection; pending requests fail with ERR_TRIB_CONNECTION_CLOSED. */
  async close(): Promise<void> {
    this.fail(new ConnectionClosedError(`connection to ${this.address} was closed by the client`));
    this.socket.end();
    this.socket.destroySoon();
    await this.closedPromise;
  }

  /** Closes immediately, without waiting for the socket to flush. */
  destroy(reason?: TributaryClientError): void {
    this.fail(reason ?? new ConnectionClosedError(`connection to ${this.address} was closed by the client`));
    this.socket.destroy();
  }

  // --------------------------------------------------------------- sending

  private enqueue<Req extends MessageSchema>(
    schema: Req,
    version: number,
    body: Input<Req>,
    decodeBody: DecodeBody | null,
    options: SendOptions,
  ): Promise<unknown> {
    if (this.closedError !== null) return Promise.reject(new ConnectionClosedError(this.closedError.message, { cause: this.closedError }));
    if (this.waiting.length >= this.maxQueuedRequests) {
      return Promise.reject(
        new TributaryClientError(ClientErrorCode.QUEUE_FULL, `more than ${this.maxQueuedRequests} requests queued on ${this.address}`),
      );
    }
    let chunks: Buffer[];
    let flexible: boolean;
    const correlationId = this.nextCorrelationId;
    try {
      flexible = compile(schema, version).flexible;
      chunks = this.encodeFrame(schema, version, correlationId, flexible, body);
    } catch (err) {
      return Promise.reject(err);
    }
    this.nextCorrelationId = correlationId === CORRELATION_ID_MAX ? 0 : correlationId + 1;
    const timeoutMs = options.timeoutMs ?? this.requestTimeoutMs;
    return new Promise((resolve, reject) => {
      const pending: PendingRequest = {
        correlationId,
        apiKey: schema.apiKey,
        version,
        chunks,
        decodeBody,
        responseHeaderVersion: responseHeaderVersion(schema.apiKey, flexible),
        resolve,
        reject,
        deadline: performance.now() + timeoutMs,
        timeoutMs,
        settled: false,
        written: false,
      };
      this.waiting.push(pending);
      this.deadlines.armFor(pending.deadline);
      this.drain();
    });
  }

  private encodeFrame<Req extends MessageSchema>(schema: Req, version: number, correlationId: number, flexible: boolean, body: Input<Req>): Buffer[] {
    const w = new Writer(REQUEST_SCRATCH_BYTES);
    const sizeSlot = w.reserveInt32();
    const header = { apiKey: schema.apiKey, apiVersion: version, correlationId, clientId: this.clientId };
    writeRequestHeader(w, header, requestHeaderVersion(schema.apiKey, flexible));
    compile(schema, version).write(w, body);
    const size = w.length - 4;
    if (size > this.maxRequestBytes) {
      throw new ProtocolError(ClientErrorCode.REQUEST_TOO_LARGE, `${schema.name} v${version} of ${size} bytes exceeds maxRequestBytes (${this.maxRequestBytes})`);
    }
    sizeSlot.chunkOwner.writeInt32BE(size, sizeSlot.position);
    return w.finish();
  }

  /** Writes queued requests while the in-flight limit allows, in order. */
  private drain(): void {
    while (this.waiting.length > 0 && this.closedError === null) {
      const next = this.waiting[0] as PendingRequest;
      const oneWay = next.decodeBody === null;
      if (!oneWay && this.inFlight.length >= this.maxInFlightRequests) return;
      this.waiting.shift();
      next.written = true;
      if (oneWay) this.unconfirmed.push(next);
      else this.inFlight.push(next);
      this.socket.cork();
      const last = next.chunks.length - 1;
      next.chunks.forEach((chunk, i) => {
        if (i === last && oneWay) {
          this.socket.write(chunk, (err) => {
            const at = this.unconfirmed.indexOf(next);
            if (at >= 0) this.unconfirmed.splice(at, 1);
            if (next.settled) return;
            next.settled = true;
            if (err) next.reject(new ConnectionClosedError(`write to ${this.address} failed: ${err.message}`, { cause: err }));
            else next.resolve(undefined);
          });
        } else {
          this.socket.write(chunk);
        }
      });
      this.socket.uncork();
    }
  }

  /** The deadline timer fired: fail what is overdue, re-arm for the earliest deadline left. */
  private onDeadline(): void {
    if (this.closedError !== null) return;
    const now = performance.now();
    // Queued requests that are overdue simply fail.
    for (let i = 0; i < this.waiting.length; ) {
      const p = this.waiting[i] as PendingRequest;
      if (p.deadline <= now) {
        this.waiting.splice(i, 1);
        p.settled = true;
        p.reject(this.timeoutError(p));
      } else {
        i++;
      }
    }
    // A written request that is overdue: later responses would queue behind
    // it forever. Fail it with the timeout and everything else with
    // connection-closed.
    const overdue = this.inFlight.find((p) => p.deadline <= now) ?? this.unconfirmed.find((p) => p.deadline <= now);
    if (overdue !== undefined) {
      for (const list of [this.inFlight, this.unconfirmed]) {
        const at = list.indexOf(overdue);
        if (at >= 0) list.splice(at, 1);
      }
      overdue.settled = true;
      const err = this.timeoutError(overdue);
      this.timedOut = true;
      overdue.reject(err);
      this.destroy(new ConnectionClosedError(`connection to ${this.address} closed after ${this.describe(overdue)} timed out`, { cause: err }));
      return;
    }
    let next = Infinity;
    for (const p of this.waiting) if (p.deadline < next) next = p.deadline;
    for (const p of this.inFlight) if (p.deadline < next) next = p.deadline;
    for (const p of this.unconfirmed) if (p.deadline < next) next = p.deadline;
    if (next !== Infinity) this.deadlines.armFor(next);
  }

  private describe(p: PendingRequest): string {
    return `${apiKeyName(p.apiKey)} v${p.version} (correlation id ${p.correlationId})`;
  }

  private timeoutError(p: PendingRequest): RequestTimeoutError {
    return new RequestTimeoutError(`${this.describe(p)} to ${this.address} got no response within ${p.timeoutMs} ms`);
  }

  // ------------------------------------------------------------- receiving

  /** `n` bytes landed in the reader's buffer (net.Socket `onread`). */
  private onRead(reader: FrameReader, n: number): void {
    if (this.closedError !== null) return;
    let frames: Buffer[];
    try {
      frames = reader.onRead(n);
    } catch (err) {
      this.destroy(err as TributaryClientError);
      return;
    }
    for (const frame of frames) {
      if (this.closedError !== null) return;
      this.onFrame(frame);
    }
  }

  private onFrame(frame: Buffer): void {
    const correlationId = frame.readInt32BE(0);
    const pending = this.inFlight.shift();
    if (pending === undefined) {
      this.destroy(new ProtocolError(ClientErrorCode.PROTOCOL, `unexpected response (correlation id ${correlationId}) from ${this.address} with no request in flight`));
      return;
    }
    if (pending.correlationId !== correlationId) {
      const err = new ProtocolError(
        ClientErrorCode.PROTOCOL,
        `response correlation id ${correlationId} from ${this.address} does not match the oldest request in flight (${pending.correlationId})`,
      );
      this.inFlight.unshift(pending);
      this.destroy(err);
      return;
    }
    pending.settled = true;
    let value: unknown;
    try {
      const reader = new Reader(frame);
      readResponseHeader(reader, pending.responseHeaderVersion);
      value = (pending.decodeBody as DecodeBody)(frame, reader.position);
    } catch (err) {
      // The frame boundary is intact, so only this request fails.
      const what = `${apiKeyName(pending.apiKey)} v${pending.version}`;
      pending.reject(new ProtocolError(ClientErrorCode.PROTOCOL, `cannot decode ${what} response from ${this.address}: ${(err as Error).message}`, { cause: err }));
      this.drain();
      return;
    }
    pending.resolve(value);
    this.drain();
  }

  /**
   * Marks the connection closed and fails every pending request once. The
   * oldest in-flight request gets a protocol error as it is (its response was
   * the bad one); the others get ERR_TRIB_CONNECTION_CLOSED with it as cause.
   */
  private fail(err: TributaryClientError): void {
    if (this.closedError !== null) return;
    this.closedError = err;
    this.deadlines.disarm();
    const oldest = this.inFlight[0];
    const pending = [...this.inFlight, ...this.unconfirmed, ...this.waiting];
    this.inFlight.length = 0;
    this.unconfirmed.length = 0;
    this.waiting.length = 0;
    pending.forEach((p) => {
      p.settled = true;
      if (p === oldest && err instanceof ProtocolError) p.reject(err);
      else p.reject(err instanceof ConnectionClosedError ? err : new ConnectionClosedError(err.message, { cause: err }));
    });
  }

  // ------------------------------------------------------- ApiVersions

  private async negotiateVersions(timeoutMs: number): Promise<void> {
    const negotiated = await negotiateApiVersions(this.address, (version) => this.sendApiVersions(version, timeoutMs));
    this.brokerVersions = negotiated.brokerVersions;
    this.apiVersionsVersionUsed = negotiated.version;
  }

  private sendApiVersions(version: number, timeoutMs: number): Promise<ApiVersionsResponse> {
    const body = { clientSoftwareName: CLIENT_SOFTWARE_NAME, clientSoftwareVersion: CLIENT_SOFTWARE_VERSION };
    return this.enqueue(ApiVersionsRequest, version, body, (frame, start) => decodeApiVersions(frame, start, version), { timeoutMs }) as Promise<ApiVersionsResponse>;
  }
}

