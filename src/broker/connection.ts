/**
 * One client connection: length-prefixed framing in, responses out strictly in
 * request order.
 *
 * Requests are dispatched as soon as they are read, so a long-polling Fetch
 * never stops a later Produce on the same connection from being processed;
 * their responses still leave in the order the requests arrived (the protocol
 * requires it). Handlers make any order-sensitive change (a log append) before
 * their first await, so dispatch order is processing order.
 *
 * Writes: responses that complete in the same turn of the event loop (for
 * example the Produce requests of one socket read, answered inside their
 * handle calls) leave in one corked write (one writev), flushed on
 * process.nextTick, instead of one write syscall each; a single small
 * response is one plain write.
 *
 * Framing: a request that arrives in several socket chunks is copied once
 * into a buffer of exactly its size; the bytes after it stay where they are.
 * For a Produce request that buffer comes from services.ioBuffers and goes
 * back once the handler has settled: Produce copies the batches into the log
 * and keeps no view of the request, and a large fresh buffer per request
 * costs a page fault per 4 KiB (bench/README.md, "Producer: recycled request
 * and batch buffers").
 *
 * Limits: a frame larger than `socket.request.max.bytes` closes the
 * connection (as Kafka does: the size prefix cannot be trusted after that);
 * at most `maxInFlightRequests` requests wait for their turn, after which the
 * socket stops being read until responses drain; while the kernel send
 * buffer is full (write returned false) reading pauses too.
 *
 * Quotas (KIP-219): a request over its client quota is answered at once
 * with throttle_time_ms, then the connection is muted (no frame is read or
 * dispatched) for that long; src/broker/request-quotas.ts decides.
 */
import type { Socket } from 'node:net';
// Imported, not read from globalThis: Node 20 defines Buffer, performance and process there as
// accessors, so every use in hot code is a global-property IC with a getter call (perf, bench/README.md).
import { Buffer } from 'node:buffer';
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import type { Logger } from 'pino';
import { NO_RESPONSE, type AnyHandler } from './handler.js';
import type { HandlerRegistry } from './handler-registry.js';
import type { BrokerServices } from './services.js';
import { topLevelErrorCode } from './request-metrics.js';
import { decodeRequest, type DecodedRequest, type RequestRejections } from './request-decoding.js';
import { failedRequestResponse } from './request-failure.js';
import { encodeResponse } from './response-encoding.js';
import type { SaslSession } from '../security/sasl/session.js';
import { ALLOW_ALL, ConnectionAuthorization, auditDenials } from '../security/authorizer/request-authorizer.js';
import { gateErrorCode } from './request-authorization.js';
import type { QuotaTicket } from './request-quotas.js';
import { InFlightRequest, type RequestOrigin, type ResponseSlot } from './in-flight-request.js';

export interface ConnectionLimits {
  readonly requestBytesMax: number;
  readonly inFlightRequestsMax: number;
  /** sasl.server.max.receive.size: the largest frame before a SASL connection is authenticated. */
  readonly unauthenticatedRequestBytesMax?: number;
}

const MIN_REQUEST_BYTES = 8;
/** API key of Produce: the one request whose multi-chunk frames are assembled in pooled buffers. */
const PRODUCE_API_KEY = 0;

export class Connection {
  private readonly pending: ResponseSlot[] = [];
  private buffered: Buffer[] = [];
  private bufferedBytes = 0;
  private closed = false;
  /** closeAfterResponses was called: no more frames are read. */
  private closing = false;
  private pausedForInFlight = false;
  private pausedForDrain = false;
  private flushScheduled = false;
  private readonly logger: Logger;
  /** Resolves when every dispatched request has been answered (graceful shutdown). */
  private idleWaiters: (() => void)[] = [];
  /** RequestContext.onPeerClosed callbacks. */
  private peerClosedListeners: (() => void)[] = [];
  /** This node closed the connection (close()), as opposed to the peer. */
  private closedHere = false;
  /** The connection's cached authorization decisions; null without an authorizer. */
  private readonly authorization: ConnectionAuthorization | null;
  private readonly auditLogger: Logger;
  /** Muted by a quota throttle (KIP-219): nothing is read until the timer fires. */
  private muteTimer: NodeJS.Timeout | null = null;
  /** `host:port` of the peer, computed once (every request's context carries it). */
  private peerAddress: string | null = null;
  /** RequestContext.onPeerClosed: one function per connection, not one per request. */
  private readonly addPeerClosedListener = (fn: () => void): void => {
    if (!this.closed) this.peerClosedListeners.push(fn);
  };
  /** What every request's context carries about this connection (one object per connection). */
  private readonly origin: RequestOrigin;
  /** What is done with a request decodeRequest turns away (request-decoding.ts): made once, not per request. */
  private readonly rejections: RequestRejections = {
    reject: (fields, message, reason, closeReason) => {
      this.logger.warn(fields, message);
      this.services.metrics.requestRejected(reason);
      this.close(closeReason);
    },
    answerInPlace: (chunks) => this.enqueueEncoded(chunks),
  };
  /** The nextTick callback of scheduleFlush, made once. */
  private readonly flushTick = (): void => {
    this.flushScheduled = false;
    if (!this.closed) this.flushResponses();
  };

  constructor(
    readonly id: string,
    private readonly socket: Socket,
    readonly listenerName: string,
    private readonly registry: HandlerRegistry,
    private readonly services: BrokerServices,
    private readonly limits: ConnectionLimits,
    logger: Logger,
    private readonly onClose: (c: Connection) => void,
    /** The SASL state on a SASL listener (src/security/sasl/session.ts); null on others. */
    private readonly sasl: SaslSession | null = null,
    /** The principal before (or without) SASL: the client certificate's on an SSL listener, else User:ANONYMOUS. */
    private readonly peerPrincipal = 'User:ANONYMOUS',
  ) {
    this.logger = logger.child({ connection: id, client: this.clientAddress });
    this.origin = { listenerName, connectionId: id, clientAddress: this.clientAddress, services, logger: this.logger, onPeerClosed: this.addPeerClosedListener };
    // Services built for a controller listener alone (tests, Raft only) may have no authorizer field at all.
    const authorizer = services.authorizer ?? null;
    this.authorization = authorizer === null ? null : new ConnectionAuthorization(authorizer, socket.remoteAddress ?? '');
    this.auditLogger = logger.child({ component: 'authorizer' });
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('drain', () => {
      this.pausedForDrain = false;
      this.updateReading();
    });
    socket.on('error', (err) => this.logger.debug({ err }, 'socket error'));
    socket.on('close', () => this.handleClose());
  }

  get clientAddress(): string {
    return (this.peerAddress ??= `${this.socket.remoteAddress ?? '?'}:${this.socket.remotePort ?? '?'}`);
  }

  get inFlight(): number {
    return this.pending.length;
  }

  /** Who is on the connection: `User:<name>` once SASL-authenticated, else `User:ANONYMOUS`. */
  get principal(): string {
    return this.sasl?.principal ?? 'User:ANONYMOUS';
  }

  /**
   * Stops reading requests for `ms` (a quota throttle, KIP-219); responses
   * still go out. A longer mute replaces a shorter one still running.
   */
  mute(ms: number): void {
    if (this.closed || ms <= 0) return;
    if (this.muteTimer !== null) clearTimeout(this.muteTimer);
    this.muteTimer = setTimeout(() => {
      this.muteTimer = null;
      this.updateReading();
      this.readFrames();
    }, ms);
    this.updateReading();
  }

  close(reason: string): void {
    if (this.closed) return;
    this.logger.debug({ reason }, 'closing connection');
    this.closedHere = true;
    // Responses already complete but waiting for this turn's corked flush go
    // out first: a request answered before a bad one keeps its answer.
    if (this.flushScheduled) this.writeDoneResponses();
    this.closed = true;
    this.socket.destroy();
  }

  /** Stops reading new requests (shutdown) and resolves once all answered. */
  async drain(): Promise<void> {
    this.socket.pause();
    if (this.pending.length === 0) return;
    await new Promise<void>((resolve) => this.idleWaiters.push(resolve));
  }

  private handleClose(): void {
    this.closed = true;
    if (this.muteTimer !== null) clearTimeout(this.muteTimer);
    this.pending.length = 0;
    this.buffered = [];
    for (const w of this.idleWaiters.splice(0)) w();
    const listeners = this.peerClosedListeners.splice(0);
    if (!this.closedHere) {
      for (const fn of listeners) {
        try {
          fn();
        } catch (err) {
          this.logger.warn({ err }, 'a connection-closed listener failed');
        }
      }
    }
    this.onClose(this);
  }

  private onData(chunk: Buffer): void {
    if (this.closed) return;
    this.buffered.push(chunk);
    this.bufferedBytes += chunk.length;
    this.readFrames();
  }

  private readFrames(): void {
    while (!this.closed && !this.closing && this.muteTimer === null && this.bufferedBytes >= 4) {
      if (this.pending.length >= this.limits.inFlightRequestsMax) {
        this.pausedForInFlight = true;
        this.updateReading();
        return;
      }
      const head = this.peekHead(4);
      const size = head.readInt32BE(0);
      const bytesMax = this.frameBytesMax();
      // A bare SASL token (after a v0 handshake) may be short; it has no request header.
      const bytesMin = this.sasl?.rawTokenExpected === true ? 0 : MIN_REQUEST_BYTES;
      if (size < bytesMin || size > bytesMax) {
        this.rejections.reject(
          { size, requestBytesMax: bytesMax },
          size > bytesMax ? 'request larger than socket.request.max.bytes (sasl.server.max.receive.size before authentication); closing connection' : 'request frame too small; closing connection',
          'bad_frame_size', 'bad frame size',
        );
        return;
      }
      if (this.bufferedBytes < 4 + size) return;
      const pooled = (this.buffered[0] as Buffer).length < 4 + size && this.peekHead(6).readInt16BE(4) === PRODUCE_API_KEY;
      const whole = this.take(4 + size, pooled ? this.services.ioBuffers.allocate : Buffer.allocUnsafe);
      this.dispatch(whole, pooled ? whole : null);
    }
  }

  /** The first `n` buffered bytes (merging chunks only when needed). */
  private peekHead(n: number): Buffer {
    const first = this.buffered[0] as Buffer;
    if (first.length >= n) return first;
    const merged = Buffer.concat(this.buffered, this.bufferedBytes);
    this.buffered = [merged];
    return merged;
  }

  /** Removes and returns the first `n` buffered bytes (the caller checked they are there); a copy goes into `allocate(n)`. */
  private take(n: number, allocate: (n: number) => Buffer): Buffer {
    const first = this.buffered[0] as Buffer;
    let out: Buffer;
    if (first.length === n) {
      // The usual case, one request per socket read: the chunk itself, no view of it.
      out = first;
      this.buffered.shift();
    } else if (first.length > n) {
      out = first.subarray(0, n);
      this.buffered[0] = first.subarray(n);
    } else {
      // Copy exactly n bytes; a partial next frame in the last chunk is left as a view, not copied.
      out = allocate(n);
      let filled = 0;
      let used = 0;
      while (filled < n) {
        const chunk = this.buffered[used] as Buffer;
        const k = Math.min(chunk.length, n - filled);
        chunk.copy(out, filled, 0, k);
        filled += k;
        if (k === chunk.length) used++;
        else this.buffered[used] = chunk.subarray(k);
      }
      this.buffered.splice(0, used);
    }
    this.bufferedBytes -= n;
    return out;
  }

  /** socket.request.max.bytes, or sasl.server.max.receive.size while a SASL connection is not authenticated. */
  private frameBytesMax(): number {
    const unauthenticated = this.sasl !== null && this.sasl.principal === null;
    return unauthenticated ? Math.min(this.limits.requestBytesMax, this.limits.unauthenticatedRequestBytesMax ?? this.limits.requestBytesMax) : this.limits.requestBytesMax;
  }

  /**
   * `whole`: the frame with its 4-byte size prefix (read past, not sliced
   * off: a Buffer view per request is garbage too). `pooledFrame`: the
   * services.ioBuffers buffer the frame is in, released once the handler settles.
   */
  private dispatch(whole: Buffer, pooledFrame: Buffer | null): void {
    if (this.sasl?.rawTokenExpected === true) {
      this.answerRawToken(this.sasl, whole.subarray(4));
      return;
    }
    const request = decodeRequest(whole, this.registry, this.sasl, this.listenerName, this.rejections);
    if (request !== null) this.handleRequest(request, pooledFrame, whole.length);
  }

  /**
   * A bare SASL token after a SaslHandshake v0: the reply goes back as a bare
   * frame, in order with the responses before it. A failed exchange cannot
   * be reported without a header: the connection closes (as Kafka does).
   */
  private answerRawToken(sasl: SaslSession, token: Buffer): void {
    const reply = sasl.rawToken(token);
    if (reply === null) {
      this.logger.info({ listener: this.listenerName }, 'SASL authentication failed; closing connection');
      this.closeAfterResponses('authentication failed');
      return;
    }
    const size = Buffer.allocUnsafe(4);
    size.writeInt32BE(reply.length, 0);
    this.enqueueEncoded([size, reply]);
  }

  /** Closes once the responses queued so far are written (a failed authentication's answer goes out first). */
  private closeAfterResponses(reason: string): void {
    if (this.closed || this.closing) return;
    this.closing = true;
    this.socket.pause();
    const end = (): void => {
      if (this.closed) return;
      this.logger.debug({ reason }, 'closing connection');
      this.closedHere = true;
      this.closed = true;
      this.socket.end();
    };
    if (this.pending.length === 0) end();
    else this.idleWaiters.push(end);
  }

  /** Queues the request's response slot (in arrival order) and runs its handler; the slot completes when the handler's result is in. */
  private handleRequest({ handler, header, body }: DecodedRequest, pooledFrame: Buffer | null, frameBytes: number): void {
    const principal = this.sasl?.principal ?? this.peerPrincipal;
    const receivedAtMs = performance.now();
    const authz = this.authorization === null ? ALLOW_ALL : this.authorization.forRequest(principal);
    // The request's context is also its response slot (in-flight-request.ts).
    const ctx = new InFlightRequest(this.origin, header.apiKey, header.apiVersion, header.correlationId, header.clientId, principal, authz, this.sasl ?? undefined, receivedAtMs);
    this.pending.push(ctx);
    this.services.metrics.requestStarted(header.apiKey);
    const ticket = this.services.quotas?.begin(ctx, body, frameBytes) ?? null;
    let result;
    let failed = false;
    try {
      const denied = gateErrorCode(ctx.authz, header.apiKey, header.apiVersion, body);
      result = denied === null ? handler.handle(ctx, body as never) : handler.errorResponse(body as never, denied, ctx);
    } catch (err) {
      result = failedRequestResponse(handler, body, ctx, err);
      failed = true;
    }
    // The synchronous part is what held the event loop (request_percentage).
    const handlerMs = performance.now() - receivedAtMs;
    if (result instanceof Promise) {
      result.then(
        (r) => this.settle(ctx, handler, ticket, pooledFrame, handlerMs, r, false),
        (err: unknown) => this.settle(ctx, handler, ticket, pooledFrame, handlerMs, failedRequestResponse(handler, body, ctx, err), true),
      );
    } else {
      // Answered inside the call (Produce with acks 0 or 1, a Fetch with its records there): no promise, no closure.
      this.settle(ctx, handler, ticket, pooledFrame, handlerMs, result, failed);
    }
  }

  /** The handler's result is in: quotas recorded, the response encoded, then the request's pooled buffer (if any) goes back. */
  private settle(ctx: InFlightRequest, handler: AnyHandler, ticket: QuotaTicket | null, pooledFrame: Buffer | null, handlerMs: number, result: unknown, failed: boolean): void {
    // The response is encoded (in complete) before the request's buffer goes back to the pool.
    this.complete(ctx, handler, this.applyQuotas(ticket, result, handlerMs), failed);
    if (pooledFrame !== null) this.services.ioBuffers.release(pooledFrame);
  }

  /** The response with the request's quota use recorded (request-quotas.ts); mutes the connection when it is throttled. */
  private applyQuotas(ticket: QuotaTicket | null, result: unknown, handlerMs: number): unknown {
    const quotas = this.services.quotas;
    if (ticket === null || quotas === undefined) return result;
    const { result: out, throttleMs } = quotas.end(ticket, result, handlerMs);
    if (throttleMs > 0) this.mute(throttleMs);
    return out;
  }

  private complete(ctx: InFlightRequest, handler: AnyHandler, result: unknown, failed = false): void {
    const latencyMs = performance.now() - ctx.receivedAtMs;
    if (ctx.authz.enabled) auditDenials(ctx.authz, this.auditLogger, { apiName: handler.name, apiVersion: ctx.apiVersion, correlationId: ctx.correlationId, clientId: ctx.clientId, principal: ctx.principal, clientAddress: ctx.clientAddress, listenerName: ctx.listenerName });
    const errored = failed || topLevelErrorCode(result) !== 0;
    this.services.metrics.requestCompleted(ctx.apiKey, latencyMs, ctx.apiVersion, errored);
    if (ctx.logger.isLevelEnabled('debug')) {
      ctx.logger.debug({ api: handler.name, apiVersion: ctx.apiVersion, correlationId: ctx.correlationId, clientId: ctx.clientId, latencyMs: Math.round(latencyMs * 1000) / 1000, errored }, 'request');
    }
    if (this.closed) return;
    if (result !== NO_RESPONSE) {
      try {
        ctx.chunks = encodeResponse(handler, ctx.apiVersion, ctx.correlationId, result);
      } catch (err) {
        ctx.logger.error({ err, api: handler.name, apiVersion: ctx.apiVersion, correlationId: ctx.correlationId, clientId: ctx.clientId }, 'could not encode response; closing connection');
        this.close('encode failure');
        return;
      }
    }
    ctx.done = true;
    this.scheduleFlush();
    // KIP-152: a failed SaslAuthenticate (or an unsupported mechanism) is answered, then the connection closes.
    if (this.sasl?.failed === true) this.closeAfterResponses('authentication failed');
  }

  private enqueueEncoded(chunks: Buffer[]): void {
    this.pending.push({ done: true, chunks, afterWrite: null });
    this.scheduleFlush();
  }

  /** Flushes once the current turn's other completions are in too (one corked write for all of them). */
  private scheduleFlush(): void {
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    process.nextTick(this.flushTick);
  }

  /**
   * Writes the completed responses at the head of the queue, in order: one
   * plain write when that is a single buffer (the common small response),
   * else one corked write (a writev).
   */
  private writeDoneResponses(): void {
    const pending = this.pending;
    let slots = 0;
    let chunks = 0;
    while (slots < pending.length && (pending[slots] as ResponseSlot).done) chunks += (pending[slots++] as ResponseSlot).chunks?.length ?? 0;
    if (slots === 0) return;
    const corked = chunks > 1;
    if (corked) this.socket.cork();
    for (let s = 0; s < slots; s++) {
      const slot = pending.shift() as ResponseSlot;
      const out = slot.chunks;
      if (out === null) continue;
      const last = out.length - 1;
      const afterWrite = slot.afterWrite;
      for (let i = 0; i <= last; i++) {
        // The callback of a corked write runs when the whole writev is done with its buffers.
        const written = i === last && afterWrite !== null ? this.socket.write(out[i] as Buffer, (err) => runAfterWrite(err, afterWrite)) : this.socket.write(out[i] as Buffer);
        if (!written) this.pausedForDrain = true;
      }
    }
    if (corked) this.socket.uncork();
  }

  private flushResponses(): void {
    this.writeDoneResponses();
    if (this.pending.length === 0) for (const w of this.idleWaiters.splice(0)) w();
    if (this.pausedForInFlight && this.pending.length < this.limits.inFlightRequestsMax) {
      this.pausedForInFlight = false;
      this.updateReading();
      // Frames may already be buffered beyond the limit we stopped at.
      this.readFrames();
    } else {
      this.updateReading();
    }
  }

  private updateReading(): void {
    if (this.closed) return;
    if (this.pausedForDrain || this.pausedForInFlight || this.muteTimer !== null) this.socket.pause();
    else if (this.idleWaiters.length === 0) this.socket.resume();
  }
}

/** A response's after-write hooks, only on success: after a failed write nothing is sure to be done with the buffers. */
function runAfterWrite(err: Error | null | undefined, hooks: readonly (() => void)[]): void {
  if (err) return;
  for (const fn of hooks) fn();
}
